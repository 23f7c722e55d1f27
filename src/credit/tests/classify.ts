// A test's static verdict from its assertions: whether it can fail at all (the tautology rules).
export const TAUTOLOGY_RULES = [
  'skipped',
  'no-assertion',
  'constant-true',
  'literal-vs-literal',
  'same-expression',
  'self-assigned',
  'swallowed-catch',
  'weak-assertion',
  'source-text',
  'opaque-base',
] as const;

export type TautologyRule = (typeof TAUTOLOGY_RULES)[number];

export type Verdict =
  { readonly kind: 'property' } | { readonly kind: 'tautology'; readonly rule: TautologyRule; readonly detail: string };

/** One test as found in its source file. */
export interface TestSource {
  readonly file: string;
  /** Enclosing describe blocks (TS/JS) or class (Python), outermost first. */
  readonly suite: readonly string[];
  readonly name: string;
  readonly line: number;
  readonly verdict: Verdict;
  /**
   * For a name computed at run time (`test.each` placeholders, a template literal, a name built
   * in a loop): the reported names it can produce. Exact names win over patterns.
   */
  readonly namePattern?: RegExp;
  /** With a pattern: the call runs once (no loop, no `.each`), so it defines at most one reported name. */
  readonly once?: boolean;
}

/** One side of an assertion, reduced to what the rules need. */
export interface Operand {
  /** A literal (number, string, boolean, null, or a list/object of literals). */
  readonly literal: boolean;
  /** The literal `true` (or Python `True`). */
  readonly isTrue: boolean;
  /** Normalised text when the expression contains no call; null otherwise. */
  readonly key: string | null;
  /** A variable the test assigned from a literal with no call in between. */
  readonly selfAssigned: boolean;
}

/** An assertion: its operands (empty when opaque), and whether a catch swallows its failure. */
export interface Assertion {
  readonly operands: readonly Operand[];
  /** Two operands compared with each other (equality or ordering), rather than each checked alone. */
  readonly compares: boolean;
  readonly opaque: boolean;
  readonly swallowed: boolean;
  readonly line: number;
  /**
   * Set when the assertion checks only that nothing throws, only a type, or only that a value is
   * not null/undefined: a mutant that throws, recurses or returns another value of the same type
   * is not what it can tell, so a test with nothing stronger earns nothing.
   */
  readonly weak?: string;
}

/** Why one assertion cannot fail, or null when it can. */
export function checkAssertion(a: Assertion): TautologyRule | null {
  if (a.swallowed) return 'swallowed-catch';
  if (a.opaque || a.operands.length === 0) return null;
  const ops = a.operands;
  if (a.compares && ops.length === 2) {
    const [l, r] = ops as [Operand, Operand];
    if (l.literal && r.literal) return l.isTrue && r.isTrue ? 'constant-true' : 'literal-vs-literal';
    if (l.key !== null && l.key === r.key) return 'same-expression';
    if ((l.literal || l.selfAssigned) && (r.literal || r.selfAssigned)) return 'self-assigned';
    return null;
  }
  if (ops.every((o) => o.literal)) return ops.every((o) => o.isTrue) ? 'constant-true' : 'literal-vs-literal';
  if (ops.every((o) => o.literal || o.selfAssigned)) return 'self-assigned';
  return null;
}

/** A test's verdict from its assertions: a tautology when it has none, or when none of them can fail. */
export function checkTest(
  assertions: readonly Assertion[],
  skipped: string | null,
  sourceText: string | null = null,
): Verdict {
  if (skipped !== null) return { kind: 'tautology', rule: 'skipped', detail: skipped };
  // A test that reads the symbol's source text tells bytes apart, not behaviour, whatever else it asserts.
  if (sourceText !== null) return { kind: 'tautology', rule: 'source-text', detail: sourceText };
  if (assertions.length === 0) return { kind: 'tautology', rule: 'no-assertion', detail: 'the test asserts nothing' };
  let first: { rule: TautologyRule; line: number } | null = null;
  let weak: { detail: string; line: number } | null = null;
  for (const a of assertions) {
    const rule = checkAssertion(a);
    if (rule === null) {
      if (a.weak === undefined || a.swallowed) return { kind: 'property' };
      weak ??= { detail: a.weak, line: a.line };
      continue;
    }
    first ??= { rule, line: a.line };
  }
  if (weak !== null)
    return {
      kind: 'tautology',
      rule: 'weak-assertion',
      detail: `its assertions ${weak.detail} (first at line ${weak.line}): a mutant that throws, recurses or returns another value of the same type is not what they tell apart`,
    };
  const f = first as { rule: TautologyRule; line: number };
  return { kind: 'tautology', rule: f.rule, detail: `every assertion is trivial; first at line ${f.line} (${f.rule})` };
}

/** Assertion-looking names every front end accepts, besides the configured ones. */
export const EQUALITY_METHODS = new Set([
  'equal',
  'strictEqual',
  'deepEqual',
  'deepStrictEqual',
  'notEqual',
  'notStrictEqual',
  'notDeepEqual',
  'notDeepStrictEqual',
  'toBe',
  'toEqual',
  'toStrictEqual',
  'toBeCloseTo',
  'toBeGreaterThan',
  'toBeGreaterThanOrEqual',
  'toBeLessThan',
  'toBeLessThanOrEqual',
  'eql',
  'equals',
  'above',
  'below',
  'least',
  'most',
]);

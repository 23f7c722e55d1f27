// Which report case is which test definition: by name, then file, then suite, failing closed.
import type { JunitCase } from '../../runner/junit.js';
import type { TestSource, Verdict } from './classify.js';
import { caseNamesOf, type CaseNames } from '../../test-runners/index.js';

/** What the runner knows about one JUnit case: its static verdict and the files it may live in. */
export interface CaseSource {
  readonly verdict: Verdict | null;
  /** Candidate test files (more than one when the case could not be pinned down). */
  readonly files: readonly string[];
  /** pytest node ids, when the case is a pytest test pinned to one definition. */
  readonly nodeIds: readonly string[];
}

const stripParams = (name: string): string => name.replace(/\[.*\]$/, '');

function suiteMatches(src: TestSource, suite: string): boolean {
  if (src.suite.join(' > ') === suite) return true;
  return caseNamesOf(src.file)?.suiteMatches(src.file, src.suite, suite) ?? false;
}

/**
 * Match a JUnit case to its definition: by name, then file, then suite. An ambiguous match is
 * a tautology if any candidate is (fail closed), and keeps every candidate's file.
 */
export function matchCase(c: JunitCase, sources: readonly TestSource[]): CaseSource {
  return matchWith(c, sources).source;
}

function matchWith(
  c: JunitCase,
  sources: readonly TestSource[],
): { source: CaseSource; computed: readonly TestSource[] } {
  const name = stripParams(c.name);
  let cands = sources.filter((s) => s.name === name || s.name === c.name);
  const literal = cands.length > 0;
  // A computed name (test.each, a loop) matches by its pattern when no literal name does.
  if (cands.length === 0) {
    const f = c.file?.replace(/^\.\//, '') ?? null;
    cands = sources.filter(
      (s) =>
        s.namePattern !== undefined &&
        (s.namePattern.test(c.name) || s.namePattern.test(name)) &&
        (f === null || s.file === f || f.endsWith(`/${s.file}`)),
    );
  }
  // pytest's classname is the node id's file and classes, dotted; its `file` is where the
  // function is written, a mixin's file for an inherited test: the dotted name decides first.
  const dotted = cands.filter((s) => caseNamesOf(s.file)?.classname(s.file, s.suite) === c.suite);
  if (dotted.length > 0) cands = dotted;
  else if (c.file !== null) {
    const f = c.file.replace(/^\.\//, '');
    const byFile = cands.filter((s) => s.file === f || f.endsWith(`/${s.file}`));
    if (byFile.length > 0) cands = byFile;
  }
  if (cands.length > 1) {
    const bySuite = cands.filter((s) => suiteMatches(s, c.suite));
    if (bySuite.length > 0) cands = bySuite;
  }
  if (cands.length === 0) return { source: { verdict: null, files: [], nodeIds: [] }, computed: [] };
  const taut = cands.find((s) => s.verdict.kind === 'tautology');
  const verdict = taut ? taut.verdict : (cands[0] as TestSource).verdict;
  const files = [...new Set(cands.map((s) => s.file))];
  const named = cands.map((s) => ({ s, names: caseNamesOf(s.file) }));
  const nodeIds = named.every((n) => n.names !== null)
    ? named.map((n) => (n.names as CaseNames).nodeId(n.s.file, n.s.suite, c.name))
    : [];
  return { source: { verdict, files, nodeIds }, computed: literal ? [] : cands };
}

/** Each run case's test source and static verdict (null where its source was not found). */
export function classifyCases(
  cases: readonly JunitCase[],
  sources: readonly TestSource[],
): { caseSources: Map<string, CaseSource>; verdicts: Map<string, Verdict | null> } {
  const caseSources = new Map<string, CaseSource>();
  const verdicts = new Map<string, Verdict | null>();
  const matched = cases.map((c) => ({ c, ...matchWith(c, sources) }));
  // A computed-name call that runs once defines one test: when two or more cases may be its,
  // at least one was made by something the classifier cannot see, so none of them is defined.
  const claims = new Map<TestSource, number>();
  for (const m of matched) for (const t of m.computed) if (t.once === true) claims.set(t, (claims.get(t) ?? 0) + 1);
  for (const m of matched) {
    const over = m.computed.some((t) => (claims.get(t) ?? 0) > 1);
    const s = over ? { verdict: null, files: [], nodeIds: [] } : m.source;
    caseSources.set(m.c.id, s);
    verdicts.set(m.c.id, s.verdict);
  }
  return { caseSources, verdicts };
}

// Mutants as data: edits, ids, the probe and the revert, the null mutant and its camouflage, the seeded selection.
import { createHmac, randomBytes } from 'node:crypto';
import { sha256Hex } from '../../core/ids.js';

/** One text edit: replace [start, end) of the file with `text`. */
export interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export type MutantCategory =
  'arithmetic' | 'comparison' | 'logical' | 'negate' | 'constant' | 'delete' | 'return' | 'unary';

/** A mutant of one changed symbol. Probes throw on entry; behavioural mutants change what the symbol computes. */
export interface Mutant {
  readonly id: string;
  readonly symbol: string;
  readonly path: string;
  /**
   * probe: throws on entry (finds the reaching tests). behavioural: a change on the patch's own
   * tokens. revert: the symbol's base version put back. null: a byte change that keeps the
   * behaviour (a test failing on it tells sources apart and earns nothing).
   */
  readonly kind: 'probe' | 'behavioural' | 'revert' | 'null';
  readonly category: MutantCategory | 'probe' | 'revert' | 'null';
  readonly line: number;
  readonly description: string;
  readonly edits: readonly Edit[];
}

/**
 * Apply edits (non-overlapping) to a text. An insertion at the start of a replacement goes
 * before the replaced text (of two edits at one place, the longer is applied first).
 */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** A mutation site before it gets its id. */
export interface Site {
  readonly category: MutantCategory;
  readonly line: number;
  readonly column: number;
  /** Short, stable description of the change, e.g. `+ -> -`. */
  readonly change: string;
  readonly edits: readonly Edit[];
}

/** Stable ids: symbol, category, position and change; a repeated id gets a counter. */
/** The probe mutant of a symbol: it fails on entry, so the tests that fail on it are the tests that reach it. */
export function probeMutant(
  span: { readonly symbol: string; readonly path: string; readonly startLine: number },
  description: string,
  edits: Edit[],
): Mutant {
  return {
    id: `${span.symbol}#probe`,
    symbol: span.symbol,
    path: span.path,
    kind: 'probe',
    category: 'probe',
    line: span.startLine,
    description,
    edits,
  };
}

/** The revert mutant of a modified symbol: its base version in the patched tree. */
export function revertMutant(
  span: { readonly symbol: string; readonly path: string; readonly startLine: number },
  edits: readonly Edit[],
): Mutant {
  return {
    id: `${span.symbol}#revert`,
    symbol: span.symbol,
    path: span.path,
    kind: 'revert',
    category: 'revert',
    line: span.startLine,
    description: 'the base version of the symbol put back',
    edits,
  };
}

/** One of the byte changes a null mutant makes, e.g. `a comment` and the edits that add it. */
export interface NullPart {
  readonly label: string;
  readonly edits: readonly Edit[];
  /** For a renamed local: its name before (a real mutant whose own text holds it cannot carry the rename). */
  readonly renames?: string;
}

/**
 * The words a symbol's null changes are written with: the comment's text and the renamed
 * local's suffix. Drawn from a key the tests never see (noiseFor), so no fixed text marks a
 * null mutant: with `/* sealgate *\/` in every null, a test could pass every null run by
 * spotting it and fail every real one by a pinned hash (test/adversarial/null-marker.test.ts).
 */
export interface Noise {
  readonly word: string;
  readonly suffix: string;
  /** What an empty string literal is filled with in its mutant: a word of its own, so nothing the null leaves in the file names the mutant. */
  readonly fill: string;
}

/** A fresh noise key (64 hex digits): what a credit step uses when it keeps no cache. */
export function randomNoiseKey(): string {
  return randomBytes(32).toString('hex');
}

/** The noise of one symbol under a key: lower-case letters from HMAC-SHA-256(key, symbol). */
export function noiseFor(key: string, symbol: string): Noise {
  const h = createHmac('sha256', key).update(`sealgate-noise\u0000${symbol}`).digest();
  const letters = (from: number, n: number): string =>
    Array.from(h.subarray(from, from + n), (b) => String.fromCharCode(97 + (b % 26))).join('');
  return { word: letters(0, 8), suffix: letters(8, 6), fill: letters(14, 8) };
}

/** Does `text` hold `name` as a whole word, not after a lone dot (a property or an attribute of that name is another thing; a spread `...name` is the name)? */
export function holdsName(text: string, name: string): boolean {
  const re = new RegExp(`(?<!(?<!\\.)\\.\\s*)(?<![\\w$])${name.replace(/[$]/g, '\\$')}(?![\\w$])`, 'u');
  return re.test(text);
}

/**
 * A real mutant (the revert or a behavioural one) carrying its symbol's null changes too, so a
 * null run differs from a real one only by what the real one changes. Where the mutant replaces a
 * range holding the renamed local, the rename goes into its text when that text holds the range's
 * own; null when the mutant cannot carry every part.
 */
export function camouflage(m: Mutant, noise: readonly NullPart[], text: string): Mutant | null {
  if (noise.length === 0) return m;
  const replaced = m.edits.filter((e) => e.end > e.start);
  const within = (r: Edit, e: Edit): boolean => r.start <= e.start && e.end <= r.end;
  let own: readonly Edit[] = m.edits;
  const parts: Edit[][] = [];
  for (const p of noise) {
    if (p.renames === undefined) {
      parts.push([...p.edits]);
      continue;
    }
    const from = p.renames;
    own = own.map((r) => {
      if (r.end <= r.start) return r;
      const inner = p.edits.filter((e) => within(r, e));
      const orig = text.slice(r.start, r.end);
      const at = r.text.lastIndexOf(orig);
      if (inner.length === 0 || at < 0) return r;
      const renamed = applyEdits(
        orig,
        inner.map((e) => ({ start: e.start - r.start, end: e.end - r.start, text: e.text })),
      );
      return { ...r, text: r.text.slice(0, at) + renamed + r.text.slice(at + orig.length) };
    });
    if (own.some((e) => holdsName(e.text, from))) return null;
    parts.push(p.edits.filter((e) => !replaced.some((r) => within(r, e))));
  }
  const edits = combineEdits([own, ...parts]);
  return edits === null ? null : { ...m, edits };
}

/**
 * The edits of several parts as one set: insertions at one place are joined in the parts'
 * order; null when two parts overlap (a replaced range meets another, or an insertion falls
 * inside one).
 */
export function combineEdits(parts: readonly (readonly Edit[])[]): Edit[] | null {
  const inserts = new Map<number, string>();
  const ranges: Edit[] = [];
  for (const edits of parts) {
    for (const e of edits) {
      if (e.end < e.start) return null;
      if (e.start === e.end) inserts.set(e.start, (inserts.get(e.start) ?? '') + e.text);
      else ranges.push(e);
    }
  }
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) if ((sorted[i] as Edit).start < (sorted[i - 1] as Edit).end) return null;
  for (const at of inserts.keys()) if (sorted.some((r) => r.start < at && at < r.end)) return null;
  return [...sorted, ...[...inserts].map(([at, text]) => ({ start: at, end: at, text }))].sort(
    (a, b) => a.start - b.start || a.end - b.end,
  );
}

/** `a`, `a and b`, `a, b and c`. */
function listed(labels: readonly string[]): string {
  return labels.length <= 1
    ? (labels[0] ?? '')
    : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1] as string}`;
}

/**
 * The null mutant of a symbol: bytes change, behaviour does not. One run makes every part's
 * change at once (a test that fails any one of them sees it here too). Where the whole set
 * overlaps or is not `valid`, the largest subset that is (of equal size, the one with the
 * earlier parts); where none is, the whole set anyway (a null that breaks the file fails every
 * test it runs, so the symbol earns nothing: it fails closed).
 */
export function nullMutant(
  span: { readonly symbol: string; readonly path: string; readonly startLine: number },
  parts: readonly NullPart[],
  valid: (edits: readonly Edit[]) => boolean,
): Mutant {
  return nullWithParts(span, parts, valid).mutant;
}

/** nullMutant, with the parts it chose (the noise every real mutant of the symbol carries too: camouflage). */
export function nullWithParts(
  span: { readonly symbol: string; readonly path: string; readonly startLine: number },
  parts: readonly NullPart[],
  valid: (edits: readonly Edit[]) => boolean,
): { mutant: Mutant; parts: readonly NullPart[] } {
  const make = (
    chosen: readonly NullPart[],
    edits: readonly Edit[],
  ): { mutant: Mutant; parts: readonly NullPart[] } => ({
    parts: chosen,
    mutant: {
      id: `${span.symbol}#null`,
      symbol: span.symbol,
      path: span.path,
      kind: 'null',
      category: 'null',
      line: span.startLine,
      description: `null: ${listed(chosen.map((p) => p.label))} added`,
      edits,
    },
  });
  for (let size = parts.length; size > 0; size--) {
    for (const chosen of subsets(parts, size)) {
      const edits = combineEdits(chosen.map((p) => p.edits));
      if (edits !== null && valid(edits)) return make(chosen, edits);
    }
  }
  return make(
    parts,
    parts.flatMap((p) => p.edits),
  );
}

/** The subsets of `items` with `size` members, in order (earlier items first). */
function* subsets<T>(items: readonly T[], size: number, from = 0): Generator<T[]> {
  if (size === 0) {
    yield [];
    return;
  }
  for (let i = from; i <= items.length - size; i++)
    for (const rest of subsets(items, size - 1, i + 1)) yield [items[i] as T, ...rest];
}

export function toMutants(symbol: string, path: string, sites: readonly Site[]): Mutant[] {
  const seen = new Map<string, number>();
  return sites.map((s) => {
    let id = `${symbol}#${s.category}@${s.line}:${s.column}:${s.change}`;
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    if (n > 0) id = `${id}~${n}`;
    return {
      id,
      symbol,
      path,
      kind: 'behavioural',
      category: s.category,
      line: s.line,
      description: `line ${s.line}: ${s.change}`,
      edits: s.edits,
    };
  });
}

/**
 * Pick at most `budget` behavioural mutants, deterministically from the sealed seed: categories
 * take turns (so one symbol gets several kinds of change), and within a category the order
 * is a hash of the seed and the mutant id.
 */
export function selectMutants(candidates: readonly Mutant[], budget: number, seed: string): Mutant[] {
  const byCat = new Map<string, Mutant[]>();
  for (const m of candidates) {
    const list = byCat.get(m.category) ?? [];
    list.push(m);
    byCat.set(m.category, list);
  }
  const rank = (m: Mutant): string => sha256Hex(`${seed}\u0000${m.id}`);
  const queues = [...byCat.entries()]
    .sort((a, b) => (rank({ ...a[1][0]!, id: a[0] }) < rank({ ...b[1][0]!, id: b[0] }) ? -1 : 1))
    .map(([, list]) => [...list].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0)));
  const out: Mutant[] = [];
  while (out.length < budget && queues.some((q) => q.length > 0)) {
    for (const q of queues) {
      const m = q.shift();
      if (m && out.length < budget) out.push(m);
    }
  }
  return out;
}

/** Where a changed symbol sits, as changed.json's locations give it. */
export interface SymbolSpan {
  readonly symbol: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly changedLines: readonly (readonly [number, number])[];
}

export interface SymbolMutants {
  readonly probe: Mutant;
  /** Edits that record each entry to the symbol (with the running test file) in $SEALGATE_TRACE_FILE. */
  readonly trace: readonly Edit[];
  readonly candidates: readonly Mutant[];
  /** The one null mutant: bytes change, behaviour does not (a no-op statement, a comment, layout, a renamed local, all at once). */
  readonly nulls: readonly Mutant[];
  /** The null mutant's parts: every real mutant carries them too (camouflage); the candidates already do. */
  readonly noise: readonly NullPart[];
  /** Function bodies were found for the symbol (false: a module or class-level symbol). */
  readonly hasBody: boolean;
}

/** A `<module>` symbol: its own top-level statements, never the bodies of other symbols. */
export const isModuleSymbol = (symbol: string): boolean => symbol.endsWith('::<module>');

/** A name that occurs nowhere in the file. */
export function freshName(text: string, stem: string): string {
  for (let i = 0; ; i++) {
    const n = `${stem}${i === 0 ? '' : i}`;
    if (!text.includes(n)) return n;
  }
}

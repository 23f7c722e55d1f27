// What the patch changed inside one symbol, at token level: where mutants may go, and the edits of its revert.
import type { Piece } from '../../symbols/model.js';
import type { Edit } from './mutant.js';

/** A token of a symbol's own text; `cut` marks a carved nested symbol (never mutated, never reverted). */
interface Tok {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly cut: boolean;
}

export interface SymbolChange {
  /** added: no base version (all of it is the change); modified: a base version exists. */
  readonly status: 'added' | 'modified';
  /** Character ranges of the symbol's own text in the patched file (nested symbols left out). */
  readonly own: readonly (readonly [number, number])[];
  /** Character ranges, in the patched file, of the tokens the patch changed. */
  readonly changed: readonly (readonly [number, number])[];
  /** Edits on the patched file that put the base version back; null when added or not revertible. */
  readonly revert: readonly Edit[] | null;
  /** Why there is no revert for a modified symbol. */
  readonly noRevert?: string;
}

const TOKEN =
  /[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*|\d[\w.]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`|\/\/[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\/|\S/g;

/** What a language's tokens look like, where the change reads them. */
export interface TokenRules {
  /** Is the token a comment? A changed comment changes nothing to mutate or revert. */
  readonly isComment: (token: string) => boolean;
  /** `#name` is one token (a private field), not a comment. */
  readonly hashNames: boolean;
}

/** Tokens of a symbol's pieces, in file order, with a `cut` token for each carved nested symbol. */
function tokensOf(text: string, pieces: readonly Piece[], rules: TokenRules): Tok[] {
  const out: Tok[] = [];
  const segment = (from: number, to: number): void => {
    const re = new RegExp(TOKEN.source, 'g');
    const s = text.slice(from, to);
    for (let m = re.exec(s); m !== null; m = re.exec(s)) {
      const t = m[0];
      if (rules.isComment(t)) continue;
      if (rules.hashNames && t.startsWith('#') && t.length > 1) {
        // `#name` (a private field) in a script: one token; re-scan after the hash.
        re.lastIndex = m.index + 1;
        out.push({ text: '#', start: from + m.index, end: from + m.index + 1, cut: false });
        continue;
      }
      out.push({ text: t, start: from + m.index, end: from + m.index + t.length, cut: false });
    }
  };
  for (const p of [...pieces].sort((a, b) => a.offsets.start - b.offsets.start)) {
    let at = p.offsets.start;
    for (const [s, e] of p.offsets.cuts) {
      if (s > at) segment(at, s);
      out.push({ text: '\u0000', start: Math.max(at, s), end: Math.max(at, e), cut: true });
      at = Math.max(at, e);
    }
    segment(at, p.offsets.end);
  }
  return out;
}

/** Own ranges of a symbol: its pieces minus carved parts. */
function ownRanges(pieces: readonly Piece[]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of pieces) {
    let at = p.offsets.start;
    for (const [s, e] of p.offsets.cuts) {
      if (s > at) out.push([at, s]);
      at = Math.max(at, e);
    }
    if (p.offsets.end > at) out.push([at, p.offsets.end]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** Longest common subsequence matches of two token lists (common prefix and suffix first; a huge middle counts as all changed). */
function matches(a: readonly Tok[], b: readonly Tok[]): [number, number][] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre]?.text === b[pre]?.text) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf]?.text === b[b.length - 1 - suf]?.text)
    suf++;
  const out: [number, number][] = [];
  for (let i = 0; i < pre; i++) out.push([i, i]);
  const n = a.length - pre - suf;
  const m = b.length - pre - suf;
  if (n > 0 && m > 0 && n * m <= 4_000_000) {
    const w = m + 1;
    const dp = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        dp[i * w + j] =
          a[pre + i]?.text === b[pre + j]?.text
            ? (dp[(i + 1) * w + j + 1] as number) + 1
            : Math.max(dp[(i + 1) * w + j] as number, dp[i * w + j + 1] as number);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a[pre + i]?.text === b[pre + j]?.text) {
        out.push([pre + i, pre + j]);
        i++;
        j++;
      } else if ((dp[(i + 1) * w + j] as number) >= (dp[i * w + j + 1] as number)) i++;
      else j++;
    }
  }
  for (let k = suf; k > 0; k--) out.push([a.length - k, b.length - k]);
  return out;
}

/**
 * The change of one symbol. `basePieces` null: the symbol is new. Tokens are compared
 * without comments and whitespace, so a reformatted line is no change.
 */
export function symbolChange(
  rules: TokenRules,
  patchedText: string,
  patchedPieces: readonly Piece[],
  baseText: string | null,
  basePieces: readonly Piece[] | null,
): SymbolChange {
  const own = ownRanges(patchedPieces);
  if (baseText === null || basePieces === null || basePieces.length === 0)
    return { status: 'added', own, changed: own, revert: null };
  const b = tokensOf(baseText, basePieces, rules);
  const p = tokensOf(patchedText, patchedPieces, rules);
  const pairs = matches(b, p);
  // Before the first token and after the last, the symbol's own text reaches to its edges.
  const baseOwn = ownRanges(basePieces);
  const pStart = own[0]?.[0] ?? 0;
  const pEnd = own[own.length - 1]?.[1] ?? pStart;
  const bStart = baseOwn[0]?.[0] ?? 0;
  const bEnd = baseOwn[baseOwn.length - 1]?.[1] ?? bStart;
  const changed: [number, number][] = [];
  const revert: Edit[] = [];
  let skipped = 0;
  // Walk the gaps between matched tokens: each gap is one hunk (base tokens bi..bj replaced by patched pi..pj).
  const anchors: [number, number][] = [[-1, -1], ...pairs, [b.length, p.length]];
  for (let k = 0; k + 1 < anchors.length; k++) {
    const [b0, p0] = anchors[k] as [number, number];
    const [b1, p1] = anchors[k + 1] as [number, number];
    if (b1 === b0 + 1 && p1 === p0 + 1) continue;
    const pTok = p.slice(p0 + 1, p1);
    const bTok = b.slice(b0 + 1, b1);
    for (const t of pTok) if (!t.cut) changed.push([t.start, t.end]);
    if (pTok.length === 0) {
      // A pure deletion: the tokens either side of it are where the change is.
      for (const t of [p[p0], p[p1]]) if (t && !t.cut) changed.push([t.start, t.end]);
    }
    if (bTok.some((t) => t.cut)) {
      // The base had a nested declaration here that the patch removed: not this symbol's to put back.
      skipped++;
      continue;
    }
    if (pTok.some((t) => t.cut)) {
      // The patch added a nested declaration inside the change: it stays (it is its own symbol);
      // the symbol's own tokens around it are put back, the base text before the first of them.
      const runs: Tok[][] = [[]];
      for (const t of pTok) {
        if (t.cut) runs.push([]);
        else (runs[runs.length - 1] as Tok[]).push(t);
      }
      const bFrom = b0 >= 0 ? (b[b0] as Tok).end : bStart;
      const bTo = b1 < b.length ? (b[b1] as Tok).start : bEnd;
      const firstCut = pTok.find((t) => t.cut) as Tok;
      const head = runs[0] as Tok[];
      const at = p0 >= 0 ? (p[p0] as Tok).end : (head[0]?.start ?? firstCut.start);
      const edits: Edit[] = [
        {
          start: at,
          end: head.length > 0 ? (head[head.length - 1] as Tok).end : at,
          text: head.length > 0 || bTok.length > 0 ? baseText.slice(bFrom, bTo) : '',
        },
      ];
      for (const r of runs.slice(1))
        if (r.length > 0) edits.push({ start: (r[0] as Tok).start, end: (r[r.length - 1] as Tok).end, text: '' });
      if (edits.every((e) => inside(own, e.start, e.end) || e.start === e.end))
        revert.push(...edits.filter((e) => e.start !== e.end || e.text !== ''));
      else skipped++;
      continue;
    }
    // Replace the patched text between the anchors' tokens by the base text between theirs.
    const pFrom = p0 >= 0 ? (p[p0] as Tok).end : pStart;
    const pTo = p1 < p.length ? (p[p1] as Tok).start : pEnd;
    const bFrom = b0 >= 0 ? (b[b0] as Tok).end : bStart;
    const bTo = b1 < b.length ? (b[b1] as Tok).start : bEnd;
    // Nothing outside the symbol's own text is touched.
    if (!inside(own, pFrom, pTo)) {
      skipped++;
      continue;
    }
    revert.push({ start: pFrom, end: pTo, text: baseText.slice(bFrom, bTo) });
  }
  if (changed.length === 0)
    return {
      status: 'modified',
      own,
      changed: own,
      revert: null,
      noRevert: 'its tokens are the same as the base version (only comments or layout changed)',
    };
  if (revert.length === 0)
    return {
      status: 'modified',
      own,
      changed,
      revert: null,
      noRevert: 'every changed part of it adds or removes a nested declaration',
    };
  return {
    status: 'modified',
    own,
    changed,
    revert,
    ...(skipped > 0
      ? { noRevert: `${skipped} changed part(s) add or remove a nested declaration and stay patched` }
      : {}),
  };
}

function inside(ranges: readonly (readonly [number, number])[], from: number, to: number): boolean {
  return ranges.some(([s, e]) => from >= s && to <= e);
}

/** Whether an edit touches a changed token (a zero-width edit: sits inside one). */
export function touchesChange(changed: readonly (readonly [number, number])[], edits: readonly Edit[]): boolean {
  return edits.some((e) =>
    changed.some(([s, t]) => (e.start === e.end ? e.start > s && e.start < t : e.start < t && e.end > s)),
  );
}

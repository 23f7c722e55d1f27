// Pure comparison of old and new symbols, file by file, then moves across the whole patch.
import { MODULE, type FileSymbols, type Piece } from './model.js';
import type { SymbolLocation } from './schema.js';

export interface FileComparison {
  readonly path: string;
  /** The path before the patch when it differs (rename); null otherwise. */
  readonly oldPath: string | null;
  readonly language: string;
  /** Null when the side does not exist (added or deleted file). */
  readonly oldSymbols: FileSymbols | null;
  readonly newSymbols: FileSymbols | null;
  /** New-file lines the patch adds, or next to which it deletes (1-based). */
  readonly touched: readonly number[];
}

interface Candidate {
  readonly id: string;
  readonly key: string;
  readonly typeOnly: boolean;
  readonly location: SymbolLocation | null;
}

export interface ComparisonState {
  readonly changed: Map<string, SymbolLocation>;
  readonly typeOnly: Set<string>;
  readonly deleted: Set<string>;
  readonly moved: { from: string; to: string }[];
  readonly appeared: Candidate[];
  readonly disappeared: Candidate[];
}

export function newComparison(): ComparisonState {
  return { changed: new Map(), typeOnly: new Set(), deleted: new Set(), moved: [], appeared: [], disappeared: [] };
}

const idOf = (path: string, name: string) => `${path}::${name}`;

function sameTokens(a: readonly Piece[], b: readonly Piece[]): boolean {
  if (a.length !== b.length) return false;
  if (a.every((p, k) => p.text === b[k]?.text)) return true;
  const la = a.map((p) => p.lexical());
  const lb = b.map((p) => p.lexical());
  if (la.some((l, k) => l.form !== lb[k]?.form)) return false;
  if (la.every((l, k) => l.exact && lb[k]?.exact)) return true;
  const ta = a.flatMap((p) => [...p.tokens(false), '\u0004']);
  const tb = b.flatMap((p) => [...p.tokens(false), '\u0004']);
  return ta.length === tb.length && ta.every((t, k) => t === tb[k]);
}

const runtime = (ps: readonly Piece[]) => ps.filter((p) => !p.typeOnly);
const types = (ps: readonly Piece[]) => ps.filter((p) => p.typeOnly);
const hasTokens = (ps: readonly Piece[]) => ps.some((p) => p.text.trim() !== '' && p.tokens(false).length > 0);

/** Body key for move matching: the tokens without the symbol's own name. */
function moveKey(ps: readonly Piece[]): string {
  return ps.map((p) => (p.typeOnly ? 'T' : 'R') + p.tokens(true).join('\u0003')).join('\u0004');
}

function toRanges(lines: readonly number[]): [number, number][] {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const l of sorted) {
    const last = out[out.length - 1];
    if (last && l === last[1] + 1) last[1] = l;
    else out.push([l, l]);
  }
  return out;
}

/** Where a changed symbol sits in the new file, and which of its own lines the patch touched. */
export function locate(
  path: string,
  language: string,
  pieces: readonly Piece[],
  touched: readonly number[],
): SymbolLocation {
  const start = Math.min(...pieces.map((p) => p.startLine));
  const end = Math.max(...pieces.map((p) => p.endLine));
  const own = (l: number) =>
    pieces.some((p) => l >= p.startLine && l <= p.endLine && !p.carved.some(([a, b]) => l >= a && l <= b));
  let lines = touched.filter(own);
  // A change no touched line explains (a pure deletion at a carved edge, say): the whole symbol.
  if (lines.length === 0)
    lines = pieces
      .flatMap((p) => Array.from({ length: p.endLine - p.startLine + 1 }, (_, k) => p.startLine + k))
      .filter(own);
  const ranges = toRanges(lines);
  return {
    path,
    language,
    start_line: start,
    end_line: end,
    changed_lines: ranges.length > 0 ? ranges : [[start, start]],
  };
}

/** Compare one production file's symbols and record the result in `state`. */
export function compareFile(state: ComparisonState, file: FileComparison): void {
  const { path, language, touched } = file;
  const oldPath = file.oldPath ?? path;
  const fresh = file.newSymbols;
  if (fresh && !fresh.parsed) {
    // A file that no longer parses: the whole file is changed, fail closed.
    const lines = Array.from({ length: fresh.lineCount }, (_, k) => k + 1);
    const ranges = toRanges(touched.filter((l) => l >= 1 && l <= fresh.lineCount));
    state.changed.set(idOf(path, MODULE), {
      path,
      language,
      start_line: 1,
      end_line: Math.max(1, lines.length),
      changed_lines: ranges.length > 0 ? ranges : [[1, Math.max(1, fresh.lineCount)]],
    });
    return;
  }
  const before = file.oldSymbols?.parsed ? file.oldSymbols.symbols : new Map<string, readonly Piece[]>();
  const after = fresh ? fresh.symbols : new Map<string, readonly Piece[]>();
  for (const [name, newPieces] of after) {
    const oldPieces = before.get(name);
    const id = idOf(path, name);
    if (name === MODULE && oldPieces === undefined) {
      // A new file's own code (imports, constants, top-level statements) is changed when there is any.
      if (hasTokens(runtime(newPieces))) state.changed.set(id, locate(path, language, newPieces, touched));
      else if (hasTokens(newPieces)) state.typeOnly.add(id);
      continue;
    }
    if (oldPieces === undefined) {
      state.appeared.push({
        id,
        key: name === MODULE ? '' : moveKey(newPieces),
        typeOnly: runtime(newPieces).length === 0,
        location: locate(path, language, newPieces, touched),
      });
      continue;
    }
    if (!sameTokens(runtime(oldPieces), runtime(newPieces)))
      state.changed.set(id, locate(path, language, newPieces, touched));
    else if (!sameTokens(types(oldPieces), types(newPieces))) state.typeOnly.add(id);
    else if (oldPath !== path) state.moved.push({ from: idOf(oldPath, name), to: id });
  }
  for (const [name, oldPieces] of before) {
    if (after.has(name)) continue;
    if (name === MODULE) {
      if (hasTokens(oldPieces)) state.deleted.add(idOf(oldPath, name));
      continue;
    }
    state.disappeared.push({
      id: idOf(oldPath, name),
      key: moveKey(oldPieces),
      typeOnly: runtime(oldPieces).length === 0,
      location: null,
    });
  }
}

/** Match disappeared and appeared symbols by body; a key shared by more than one candidate on either side is no move. */
export function finishComparison(state: ComparisonState): {
  changed: string[];
  moved: { from: string; to: string }[];
  deleted: string[];
  typeOnly: string[];
  locations: Record<string, SymbolLocation>;
} {
  const count = (list: readonly Candidate[]) => {
    const m = new Map<string, Candidate[]>();
    for (const c of list) {
      if (c.key === '') continue;
      const l = m.get(c.key);
      if (l) l.push(c);
      else m.set(c.key, [c]);
    }
    return m;
  };
  const gone = count(state.disappeared);
  const came = count(state.appeared);
  const matched = new Set<string>();
  for (const [key, list] of came) {
    const from = gone.get(key);
    if (list.length === 1 && from?.length === 1) {
      const a = list[0] as Candidate;
      const d = from[0] as Candidate;
      state.moved.push({ from: d.id, to: a.id });
      matched.add(a.id).add(d.id);
    }
  }
  for (const a of state.appeared) {
    if (matched.has(a.id)) continue;
    if (a.typeOnly) state.typeOnly.add(a.id);
    else if (a.location) state.changed.set(a.id, a.location);
  }
  for (const d of state.disappeared) if (!matched.has(d.id)) state.deleted.add(d.id);
  const changed = [...state.changed.keys()].sort();
  const locations: Record<string, SymbolLocation> = {};
  for (const id of changed) locations[id] = state.changed.get(id) as SymbolLocation;
  return {
    changed,
    moved: [...state.moved].sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : 1)),
    deleted: [...state.deleted].sort(),
    typeOnly: [...state.typeOnly].filter((id) => !state.changed.has(id)).sort(),
    locations,
  };
}

// What a language extractor hands to the comparison: each symbol as pieces of source.
import type { LexicalForm } from './lexical.js';

/** Name of the symbol that holds everything outside named symbols in a file. */
export const MODULE = '<module>';

/**
 * A contiguous declaration of a symbol. A symbol may have several (overloads, a getter and
 * its setter, Rust impls of one method in several traits); they are compared in order.
 */
export interface Piece {
  /** No runtime behaviour: an interface, a type alias, an overload signature, `declare`. */
  readonly typeOnly: boolean;
  /** 1-based inclusive lines of the piece in its file. */
  readonly startLine: number;
  readonly endLine: number;
  /** Line ranges of nested symbols carved out of this piece (they are compared on their own). */
  readonly carved: readonly (readonly [number, number])[];
  /** Character offsets of the piece in its file, and of the nested symbols carved out of it. */
  readonly offsets: {
    readonly start: number;
    readonly end: number;
    readonly cuts: readonly (readonly [number, number])[];
  };
  /** Raw source of the piece minus carved parts: equal text means equal tokens, so no tokenising. */
  readonly text: string;
  /** The text with comments and whitespace dropped (see lexical.ts): different forms mean different tokens; equal exact forms mean equal tokens. */
  lexical(): LexicalForm;
  /** Normalised tokens (comments and insignificant whitespace dropped); `withoutName` drops the symbol's own name. */
  tokens(withoutName: boolean): readonly string[];
}

export interface FileSymbols {
  /** False when the file does not parse: the whole file then counts as changed. */
  readonly parsed: boolean;
  readonly lineCount: number;
  /** Qualified name (e.g. `Cart.total`, or MODULE) to its pieces in source order. */
  readonly symbols: ReadonlyMap<string, readonly Piece[]>;
  /** Frees parser memory; no piece's tokens may be read after it. */
  readonly dispose?: () => void;
}

export interface ExtractOptions {
  /** Count Python docstring edits as changes. */
  readonly docstringChanges: boolean;
}

/** Collects pieces by name, keeping source order. */
export class SymbolTable {
  readonly symbols = new Map<string, Piece[]>();
  add(name: string, piece: Piece): void {
    const list = this.symbols.get(name);
    if (list) list.push(piece);
    else this.symbols.set(name, [piece]);
  }
}

/** Line number (1-based) of a character offset, from a sorted table of line starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  if (!text.includes('\r')) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    return starts;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
  }
  return starts;
}

export function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Text of [start, end) with the carved ranges left out (a separator marks each cut). */
export function carveText(
  text: string,
  start: number,
  end: number,
  cuts: readonly (readonly [number, number])[],
): string {
  if (cuts.length === 0) return text.slice(start, end);
  const sorted = [...cuts].sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = start;
  for (const [s, e] of sorted) {
    if (s > at) out += text.slice(at, s);
    out += '\u0000';
    at = Math.max(at, e);
  }
  return out + text.slice(at, end);
}

/** Decode file bytes for parsing: UTF-8 when valid, else Latin-1 so every byte stays distinct. */
export function decodeSource(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }
  return text;
}

/** The source span of a symbol being extracted, as both extractors record it. */
export interface DraftSpan {
  readonly start: number;
  readonly end: number;
  readonly typeOnly: boolean;
  readonly cuts: readonly (readonly [number, number])[];
}

/**
 * A piece from an extractor's draft: lines, carved ranges and text from the file, with the
 * lexical form and the token lists computed once, on first use.
 */
export function toPiece(
  draft: DraftSpan,
  text: string,
  starts: readonly number[],
  lexicalOf: (pieceText: string) => LexicalForm,
  tokensOf: (withoutName: boolean) => string[],
): Piece {
  const pieceText = carveText(text, draft.start, draft.end, draft.cuts);
  let lexical: LexicalForm | undefined;
  const tokens: [string[] | undefined, string[] | undefined] = [undefined, undefined];
  return {
    typeOnly: draft.typeOnly,
    startLine: lineOf(starts, draft.start),
    endLine: lineOf(starts, Math.max(draft.start, draft.end - 1)),
    carved: draft.cuts.map(([s, e]) => [lineOf(starts, s), lineOf(starts, Math.max(s, e - 1))] as const),
    offsets: { start: draft.start, end: draft.end, cuts: [...draft.cuts].sort((a, b) => a[0] - b[0]) },
    text: pieceText,
    lexical: () => (lexical ??= lexicalOf(pieceText)),
    tokens: (withoutName) => (tokens[withoutName ? 1 : 0] ??= tokensOf(withoutName)),
  };
}

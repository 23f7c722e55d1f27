/** Bytes to text for every input file: UTF-8 only, no BOM, no NUL, and (for documents) a final newline. */

import { Buffer, isUtf8 } from 'node:buffer';

export type TextProblem = 'bom' | 'utf8' | 'nul' | 'no-final-newline' | 'empty';

export function decodeStrictUtf8(bytes: Uint8Array): { text: string } | { problem: TextProblem; detail: string } {
  if (bytes.length === 0) return { problem: 'empty', detail: 'file is empty' };
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { problem: 'bom', detail: 'starts with a UTF-8 byte-order mark; save it without one' };
  }
  // isUtf8 is the strict check a fatal TextDecoder makes (no overlong forms, surrogates or
  // code points past U+10FFFF), without building a decoder at every start.
  if (!isUtf8(bytes)) return { problem: 'utf8', detail: 'is not valid UTF-8' };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  if (text.includes('\u0000')) return { problem: 'nul', detail: 'contains a NUL byte' };
  return { text };
}

/**
 * A YAML or line-oriented document must end with a newline: a file cut short at any byte
 * then either breaks its syntax or loses its final newline, so truncation cannot pass as a
 * shorter valid file. JSON needs no such rule: every document sealgate reads is an object,
 * and an object cut at any byte before its closing brace does not parse (what follows the
 * brace is whitespace), so JSON without a final newline, as most writers save it, is accepted.
 */
export function decodeDocument(
  bytes: Uint8Array,
  format: 'json' | 'yaml' | 'lines',
): { text: string } | { problem: TextProblem; detail: string } {
  const r = decodeStrictUtf8(bytes);
  if ('problem' in r) return r;
  if (format !== 'json' && !r.text.endsWith('\n'))
    return { problem: 'no-final-newline', detail: 'does not end with a newline (truncated?)' };
  return r;
}

/** `s` as a literal in a RegExp source (valid with or without the u and i flags). */
export function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/**
 * Characters a terminal or a renderer acts on instead of showing: C0 and C1 controls (ESC,
 * CR, the 8-bit CSI U+009B, ...), DEL, the bidirectional marks, embeddings, overrides and
 * isolates, zero-width characters and the line and paragraph separators. A report echoes
 * names the patch and its tests chose (file paths, test ids, symbols): such a name could
 * move the cursor and rewrite a reject as ALLOW, or reorder what a reviewer reads. PAST_C0 is
 * those past C0: JSON.stringify escapes C0 controls inside strings and leaves these raw.
 */
const PAST_C0 =
  '\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\u2028\\u2029\\ufeff';
const INVISIBLE = new RegExp(`[\\u0000-\\u001f${PAST_C0}]`, 'g');
const RAW_IN_JSON = new RegExp(`[${PAST_C0}]`, 'g');
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text (as JSON.stringify writes it) with every such character that it leaves raw
 * (DEL, C1 controls, bidi marks, zero-width characters, the line and paragraph separators)
 * written as its `\uXXXX` escape. C0 controls can only stand between tokens (the line breaks
 * of indentation), so the rest can only stand inside a string: the text parses to the same
 * value, and a viewer of the file sees the escape instead of reordered or hidden text.
 */
export function jsonVisible(json: string): string {
  return json.replace(RAW_IN_JSON, escapeChar);
}

/** `s` with every such character shown as its `\uXXXX` escape; characters in `keep` (say, "\n") pass. */
export function visible(s: string, keep = ''): string {
  return s.replace(INVISIBLE, (c) => (keep.includes(c) ? c : escapeChar(c)));
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with padding, canonical only (no URL alphabet, no whitespace, no stray bits); null otherwise. */
export function decodeBase64Strict(text: string): Buffer | null {
  if (!BASE64.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

// Name patterns that select one reported test by its exact name, shared by the runners that take one.
import { escapeRegExp } from '../core/text.js';
import type { NamedTest } from './runner.js';

/** The longest name pattern put on a command line; beyond it the run stays narrowed by file. */
export const MAX_NAME_PATTERN = 16 * 1024;

/**
 * The pieces of a test's full name (the report joins the chain with " > ", and a name may hold
 * " > " itself), or null when the full name cannot be told: an empty or padded name, or a chain
 * with an empty level (vitest reports `test("")` in `describe("d")` as "d > ", trimmed).
 */
function pieces(t: NamedTest): { full: string; pieces: string[] } | null {
  const full = t.suite === '' ? t.name : `${t.suite} > ${t.name}`;
  if (t.name === '' || full.trim() !== full) return null;
  if (full.endsWith(' >') || full.startsWith('> ') || full === '>') return null;
  const p = full.split(' > ');
  return p.some((x) => x === '') ? null : { full, pieces: p };
}

/** vitest and jest match the full name (the chain joined by single spaces): each " > " is " > " or " ". */
export function fullNamePatterns(t: NamedTest): string[] | null {
  const p = pieces(t);
  return p === null ? null : [p.pieces.map(escapeRegExp).join('(?: > | )')];
}

/**
 * node:test matches each test's own name and runs a subtest only when its parent matches too,
 * so every contiguous run of pieces is a name of its own. Where separators overlap (" > > "),
 * the split is a guess: null, and the run stays narrowed by file.
 */
export function levelNamePatterns(t: NamedTest): string[] | null {
  const p = pieces(t);
  if (p === null || p.full.includes(' > > ')) return null;
  const out: string[] = [];
  for (let i = 0; i < p.pieces.length; i++)
    for (let j = i + 1; j <= p.pieces.length; j++) out.push(escapeRegExp(p.pieces.slice(i, j).join(' > ')));
  return out;
}

/** One anchored pattern over every test's patterns, or null when one is in doubt or it is too long. */
export function joinPatterns(patterns: (t: NamedTest) => string[] | null, tests: readonly NamedTest[]): string | null {
  if (tests.length === 0) return null;
  const alts = new Set<string>();
  for (const t of tests) {
    const p = patterns(t);
    if (p === null) return null;
    for (const a of p) alts.add(a);
  }
  const pattern = `^(?:${[...alts].sort().join('|')})$`;
  return pattern.length > MAX_NAME_PATTERN ? null : pattern;
}

// A revert that carries its null changes where they fall inside what it puts back.
import { applyEdits, revertMutant, type Edit, type Mutant, type Noise, type SymbolSpan } from '../mutants/mutant.js';
import { mutantsOf } from '../lang/index.js';

/**
 * The revert of a symbol whose null changes fall inside what its revert puts back (a body the
 * patch rewrote whole): the base version with the null changes the mutator makes on it under the
 * same noise, as one edit of the patched file, so it still carries what marks a null run. Null
 * when the base version takes none of them either.
 */
export async function ownNoiseRevert(
  text: string,
  span: SymbolSpan,
  revert: readonly Edit[],
  language: string,
  noise: Noise,
): Promise<Mutant | null> {
  const reverted = applyEdits(text, revert);
  const lines = (t: string): number => t.split('\n').length;
  const endLine = span.endLine + lines(reverted) - lines(text);
  if (endLine < span.startLine) return null;
  const base = { ...span, endLine, changedLines: [[span.startLine, endLine]] as [number, number][] };
  const m = await mutantsOf(language, reverted, base, undefined, noise);
  const nulls = m.nulls[0]?.edits ?? [];
  if (m.noise.length === 0 || nulls.length === 0) return null;
  const target = applyEdits(reverted, nulls);
  // One edit: what differs between the patched text and the base version with its null changes.
  let a = 0;
  while (a < text.length && a < target.length && text[a] === target[a]) a++;
  let b = 0;
  while (b < text.length - a && b < target.length - a && text[text.length - 1 - b] === target[target.length - 1 - b])
    b++;
  return revertMutant(span, [{ start: a, end: text.length - b, text: target.slice(a, target.length - b) }]);
}

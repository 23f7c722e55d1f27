// The credit languages, one entry per source language, and what is asked of a language by its name or a path.
import { languageOf, type SourceLanguage } from '../../core/languages.js';
import { SealgateError } from '../../core/errors.js';
import type { Piece } from '../../symbols/model.js';
import { findLostNames } from '../mutants/bindings.js';
import { symbolChange, type SymbolChange } from '../mutants/change.js';
import type { Noise, SymbolMutants, SymbolSpan } from '../mutants/mutant.js';
import { go } from './go/index.js';
import { java } from './java/index.js';
import type { ByteCode, CreditLanguage, LanguageCredit } from './language.js';
import { python } from './python/index.js';
import { rust } from './rust/index.js';
import { script } from './typescript/index.js';

/** Every source language, with its credit or the reason it has none: a language without every piece does not compile. */
export const CREDIT_LANGUAGES = {
  typescript: script,
  javascript: script,
  python,
  go,
  java,
  rust,
} as const satisfies Record<SourceLanguage, LanguageCredit>;

/** The credit of a language named in changed.json (a name sealgate does not know has none either). */
export function creditLanguage(language: string): LanguageCredit {
  return Object.hasOwn(CREDIT_LANGUAGES, language)
    ? CREDIT_LANGUAGES[language as SourceLanguage]
    : { credit: false, reason: `no mutation oracle for ${language} files yet` };
}

/** The credit language of a file, by its extension, or null when it has none. */
export function creditLanguageOfPath(path: string): CreditLanguage | null {
  const language = languageOf(path);
  const entry = language === null ? null : creditLanguage(language);
  return entry?.credit === true ? entry : null;
}

function supported(language: string): CreditLanguage {
  const entry = creditLanguage(language);
  if (!entry.credit) throw new SealgateError('E_INTERNAL', `${language}: ${entry.reason}`);
  return entry;
}

/** A symbol's mutants (probe, trace, nulls, candidates) by its file's language. */
export function mutantsOf(
  language: string,
  text: string,
  span: SymbolSpan,
  change: SymbolChange | undefined,
  noise: Noise,
): Promise<SymbolMutants> {
  return supported(language).mutants(text, span, change, noise);
}

/** What the patch changed inside one symbol, read with its language's tokens (symbolChange). */
export function checkSymbolChange(
  language: string,
  patchedText: string,
  patchedPieces: readonly Piece[],
  baseText: string | null,
  basePieces: readonly Piece[] | null,
): SymbolChange {
  return symbolChange(supported(language).tokens, patchedText, patchedPieces, baseText, basePieces);
}

/** The names a file declares at its top level and in its classes, or null where it does not parse or its language has no credit. */
export function topLevelNames(language: string, path: string, text: string): Promise<Set<string> | null> {
  const entry = creditLanguage(language);
  return entry.credit ? entry.names.topLevel(path, text) : Promise.resolve(null);
}

/** Why a mutant is no valid program for want of a name of `declared` (findLostNames), or null. */
export function lostNames(
  language: string,
  path: string,
  declared: ReadonlySet<string>,
  mutated: string,
): Promise<string | null> {
  const entry = creditLanguage(language);
  return entry.credit ? findLostNames(entry.names, path, declared, mutated) : Promise.resolve(null);
}

/**
 * The runner's own compile-error shape for a mutated file, or null: ts-jest's type errors and
 * Python's SyntaxError while collecting or importing it, each naming the file. A test can print
 * such text too; that only turns its own kill into nothing.
 */
export function compileErrorIn(output: string, path: string): string | null {
  return creditLanguageOfPath(path)?.compileError(output, path) ?? null;
}

/** The byte-code step for the base copy, and the changed files its language owns; null when no changed file has one. */
export function byteCodeFor(paths: Iterable<string>): { step: ByteCode; files: Set<string> } | null {
  let step: ByteCode | null = null;
  const files = new Set<string>();
  for (const p of paths) {
    const b = creditLanguageOfPath(p)?.byteCode ?? null;
    if (b === null || (step !== null && b !== step)) continue;
    step = b;
    files.add(p);
  }
  return step === null ? null : { step, files };
}

import { matchesAny } from '../core/glob.js';
import type { PatchFile } from './parse.js';
import { pathOf } from './parse.js';
import { languageOf } from '../core/languages.js';

export type FileClass = 'production' | 'test' | 'ignored' | 'other';

export interface ClassPatterns {
  readonly testPatterns: readonly string[];
  readonly ignorePatterns: readonly string[];
}

export { languageOf };

/** Test patterns first (a test in any language is a test), then ignore, then language. */
export function classifyPath(path: string, patterns: ClassPatterns): FileClass {
  if (matchesAny(path, patterns.testPatterns) !== undefined) return 'test';
  if (matchesAny(path, patterns.ignorePatterns) !== undefined) return 'ignored';
  return languageOf(path) === null ? 'other' : 'production';
}

/**
 * A patch file's class: for a rename or copy both names count, and the stronger class
 * wins (production or other over test), so moving code into a test folder does not hide it.
 */
export function classifyFile(file: PatchFile, patterns: ClassPatterns): FileClass {
  const classes = [file.oldPath, file.newPath]
    .filter((p): p is string => p !== null)
    .map((p) => classifyPath(p, patterns));
  if (file.binary && !classes.every((c) => c === 'test' || c === 'ignored')) return 'other';
  for (const c of ['other', 'production', 'test', 'ignored'] as const) if (classes.includes(c)) return c;
  return classifyPath(pathOf(file), patterns);
}

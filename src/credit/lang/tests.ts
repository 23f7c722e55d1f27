// Every test definition of a tree, each test file read through its language, with its static verdict.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inputInvalid } from '../../core/errors.js';
import { classifyPath, type ClassPatterns } from '../../diff/classify.js';
import type { TestSource } from '../tests/classify.js';
import { readsProductionSource } from '../tests/source-text.js';
import { creditLanguageOfPath } from './index.js';
import type { CreditLanguage, TestReading } from './language.js';

/** The tree's files as git lists them (tracked and untracked, not ignored), review/ left out. */
function listTree(repo: string): string[] {
  let raw: Buffer;
  try {
    raw = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: repo,
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    throw inputInvalid(
      repo,
      `cannot list the work tree's files with git (${(err as Error).message.split('\n')[0] ?? ''}); credit needs a git work tree`,
    );
  }
  return raw
    .toString('utf8')
    .split('\0')
    .filter((p) => p !== '' && !p.startsWith('review/'));
}

/**
 * Every test definition in the work tree's test files of a language with credit, with its
 * static verdict. With `productionFiles`, a test file that reads one of them
 * (readsProductionSource) has every test but the skipped ones classified as reading source text.
 */
export async function readTestSources(
  repo: string,
  patterns: ClassPatterns,
  assertionFunctions: readonly string[],
  files?: readonly string[],
  productionFiles: readonly string[] = [],
): Promise<TestSource[]> {
  const listed = files !== undefined ? files.filter((p) => !p.startsWith('review/')) : listTree(repo);
  const readers = new Map<CreditLanguage, TestReading>();
  let out: TestSource[] = [];
  for (const path of [...new Set(listed)].sort()) {
    if (classifyPath(path, patterns) !== 'test') continue;
    const language = creditLanguageOfPath(path);
    if (language === null) continue;
    let text: string;
    try {
      text = readFileSync(join(repo, path), 'utf8');
    } catch {
      continue; // deleted in the work tree
    }
    const reads = productionFiles.length > 0 ? readsProductionSource(text, productionFiles) : null;
    let reader = readers.get(language);
    if (reader === undefined) readers.set(language, (reader = language.tests()));
    out.push(...(await reader.read(path, text, assertionFunctions, reads)));
  }
  // What tests inherit across the files of one language (a mixin in tests/__init__.py).
  for (const reader of readers.values()) out = reader.link(out);
  return out;
}

// What the credit step's plan is drafted from: changed.json, the tree's and the dependencies' files, a base file.
import { join, resolve } from 'node:path';
import { readFileSync, statSync } from 'node:fs';
import { parseDocument } from '../../core/document.js';
import { SealgateError, inputInvalid } from '../../core/errors.js';
import { sha256Hex } from '../../core/ids.js';
import { readBoundedFile, MAX_INPUT_BYTES } from '../../core/io.js';
import { LAYOUT, layoutPath } from '../../core/layout.js';
import { resolveInRepo } from '../../core/io.js';
import { ChangedSchema, type Changed } from '../../symbols/schema.js';
import { runGit } from '../../diff/git.js';
import { decodeSource } from '../../symbols/model.js';

export function draftArgs(
  root: string,
  changedBytes: Buffer,
  budget: number,
  seed: string,
  base: string,
  repo: string,
  typeCheck: boolean,
  command: readonly string[],
  noiseKey: string,
): string {
  return JSON.stringify([
    root,
    sha256Hex(changedBytes),
    budget,
    seed,
    base,
    resolve(repo),
    typeCheck,
    command,
    sha256Hex(noiseKey),
  ]);
}

/** changed.json, strictly parsed, with the bytes it was parsed from (readDocument's checks). */
export function readChanged(repo: string): { changedBytes: Buffer; changed: Changed } {
  const changedBytes = readBoundedFile(layoutPath(repo, 'changed'), MAX_INPUT_BYTES, LAYOUT.changed);
  const r = parseDocument(changedBytes, ChangedSchema, 'json', LAYOUT.changed);
  if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
  return { changedBytes, changed: r.value };
}

export function readsTreeFile(root: string): (p: string) => string | null {
  return (p) => {
    try {
      return readFileSync(resolveInRepo(root, p, p), 'utf8');
    } catch {
      return null;
    }
  };
}

/** A file of the repository's installed dependencies (node_modules, which every run sees read-only), up to 1 MB, or null. */
export function readsDepFile(repo: string): (p: string) => string | null {
  return (p) => {
    try {
      const path = join(repo, p);
      return statSync(path).size > 1024 * 1024 ? null : readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  };
}

/**
 * A file's text at the base revision (null when it did not exist there). `rev` is passed in:
 * today changed.json's base, the runner's base_commit once the runner builds its own tree.
 */
export function readBaseFile(repo: string, rev: string, path: string): string | null {
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(rev))
    throw inputInvalid(`${LAYOUT.changed}#base`, `"${rev}" is not a full commit id`);
  const r = runGit(repo, ['cat-file', 'blob', `${rev}:${path}`]);
  return r.status === 0 ? decodeSource(r.stdout) : null;
}

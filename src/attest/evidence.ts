import { lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { inputInvalid } from '../core/errors.js';
import { E_PATH_DETOUR, sha256File } from '../core/io.js';
import { LAYOUT } from '../core/layout.js';

/**
 * The evidence files a runner attestation covers, by repository-relative name, each hashed
 * without following a link anywhere on its path: the record, the patch, every file under
 * review/runner/ (the log store included) but the attestation itself, and the published
 * logs. A link, a device or a folder reached through a link is refused, not skipped.
 */

/** Where the runner's envelope lives, and the freeze's. */
export const ATTESTATION_PATH = `${LAYOUT.runnerDir}/attestation.dsse.json`;
export const FREEZE_ATTESTATION_PATH = 'review/freeze.dsse.json';

function lstatOrNull(path: string, label: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw inputInvalid(label, `cannot inspect (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** What collectEvidence records for a file or folder this user may not read (no link: it is still evidence). */
export const UNREADABLE = 'unreadable';

/** SHA-256 of one evidence file at `root/name`, refusing links at any component. */
export function hashEvidenceFile(root: string, name: string): string {
  try {
    return sha256File(join(root, name), { realPath: join(root, name) }).sha256;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return UNREADABLE;
    if (code === 'ELOOP' || code === E_PATH_DETOUR)
      throw inputInvalid(name, 'evidence must not be a symbolic link or be reached through one');
    throw inputInvalid(name, code === 'ENOENT' ? 'file not found' : `cannot read (${code ?? 'error'})`);
  }
}

function walk(root: string, rel: string, out: Map<string, string>, skip: ReadonlySet<string>): void {
  const st = lstatOrNull(join(root, rel), rel);
  if (st === null) return;
  if (st.isSymbolicLink()) throw inputInvalid(rel, 'an evidence folder must not be a symbolic link');
  if (!st.isDirectory()) throw inputInvalid(rel, 'not a directory');
  let names: string[];
  try {
    names = readdirSync(join(root, rel)).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      out.set(`${rel}/`, UNREADABLE);
      return;
    }
    throw inputInvalid(rel, `cannot list (${code ?? 'error'})`);
  }
  for (const n of names) {
    const child = `${rel}/${n}`;
    if (skip.has(child)) continue;
    const s = lstatOrNull(join(root, child), child);
    if (s === null) continue;
    if (s.isDirectory()) walk(root, child, out, skip);
    else if (s.isFile()) out.set(child, hashEvidenceFile(root, child));
    else throw inputInvalid(child, 'evidence must be a regular file (not a link, device or socket)');
  }
}

/**
 * Every evidence file present, name to SHA-256. `repo` is resolved to its real path first,
 * so a link in the caller's own path to the repository is not mistaken for a detour.
 */
export function collectEvidence(repo: string, patchPath: string | null): Map<string, string> {
  let root: string;
  try {
    root = realpathSync(repo);
  } catch {
    throw inputInvalid('--repo', `"${repo}" not found`);
  }
  const out = new Map<string, string>();
  const review = lstatOrNull(join(root, 'review'), 'review');
  if (review?.isSymbolicLink()) throw inputInvalid('review', 'the review folder must not be a symbolic link');
  if (lstatOrNull(join(root, LAYOUT.record), LAYOUT.record) !== null)
    out.set(LAYOUT.record, hashEvidenceFile(root, LAYOUT.record));
  if (patchPath !== null) out.set(patchPath, hashEvidenceFile(root, patchPath));
  walk(root, LAYOUT.runnerDir, out, new Set([ATTESTATION_PATH]));
  walk(root, LAYOUT.publishedLogs, out, new Set());
  return out;
}

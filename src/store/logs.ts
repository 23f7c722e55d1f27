import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  constants,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { crypto } from '../core/builtins.js';
import { inputInvalid } from '../core/errors.js';
import { sha256File } from '../core/io.js';
import { LAYOUT, layoutPath } from '../core/layout.js';

/**
 * The hidden log store review/runner/logs (directory 0700, files 0600, the runner's user
 * only) and its published copy review/logs (0755 / 0644), written by `publish` alone.
 */

export const STORE_DIR_MODE = 0o700;
export const STORE_FILE_MODE = 0o600;
export const PUBLISHED_DIR_MODE = 0o755;
export const PUBLISHED_FILE_MODE = 0o644;

/** A store entry that is not a regular file (a link, a folder) is listed under this hash: never accounted for. */
export const NOT_A_FILE = 'not-a-regular-file';

export interface StoredFile {
  readonly name: string;
  readonly sha256: string;
  readonly bytes: number;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw inputInvalid(path, `cannot inspect (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** review/runner: the runner's user writes it, nobody else (readable, so the gate job can judge it). */
export const RUNNER_DIR_MODE = 0o755;

/**
 * What "sealgate created review/runner" can mean on a file system the author may share:
 * the seal makes it with mkdir (never reusing a folder it finds), so an existing one must
 * be a real folder (not a link), of the runner's user, writable by nobody else, and hold
 * the journal that the seal writes next. A folder the author pre-created, linked or filled
 * is refused, never adopted. (Same-user forgeries beyond this are what the signature is for.)
 * With `create`, an absent folder is made; returns whether it was.
 */
export function ensureRunnerDir(repo: string, create: boolean): boolean {
  const review = join(repo, 'review');
  const rs = lstatOrNull(review);
  if (rs !== null && (rs.isSymbolicLink() || !rs.isDirectory()))
    throw inputInvalid(
      'review',
      'is a symbolic link or not a folder; the review folder must be a real folder in the repository',
    );
  const dir = layoutPath(repo, 'runnerDir');
  const st = lstatOrNull(dir);
  if (st === null) {
    if (!create) return false;
    if (rs === null) mkdirSync(review);
    mkdirSync(dir, { mode: RUNNER_DIR_MODE });
    chmodSync(dir, RUNNER_DIR_MODE);
    return true;
  }
  const refuse = (why: string) =>
    inputInvalid(LAYOUT.runnerDir, `${why}: sealgate's seal did not create it; remove it, then seal again`);
  if (st.isSymbolicLink()) throw refuse('is a symbolic link');
  if (!st.isDirectory()) throw refuse('is not a folder');
  if (typeof process.getuid === 'function' && st.uid !== process.getuid())
    throw refuse(`belongs to uid ${st.uid}, not the runner's uid ${process.getuid()}`);
  if ((st.mode & 0o022) !== 0) throw refuse(`is writable by group or others (mode ${(st.mode & 0o777).toString(8)})`);
  const journal = lstatOrNull(layoutPath(repo, 'journal'));
  if (!journal?.isFile()) throw refuse('exists without the journal a seal writes (pre-created?)');
  return false;
}

/** Create the store if needed and make sure it is a private directory of this user, not a link. */
export function ensureStore(repo: string): string {
  const dir = layoutPath(repo, 'logs');
  mkdirSync(layoutPath(repo, 'runnerDir'), { recursive: true });
  const st = lstatOrNull(dir);
  if (st === null) mkdirSync(dir, { mode: STORE_DIR_MODE });
  else if (!st.isDirectory())
    throw inputInvalid(LAYOUT.logs, 'the log store is not a directory (a link or a file); remove it');
  else if (typeof process.getuid === 'function' && st.uid !== process.getuid())
    throw inputInvalid(LAYOUT.logs, "the log store belongs to another user; the runner's user must own it");
  chmodSync(dir, STORE_DIR_MODE);
  return dir;
}

function listDir(dir: string, label: string): StoredFile[] {
  const st = lstatOrNull(dir);
  if (st === null) return [];
  if (!st.isDirectory()) return [{ name: '.', sha256: NOT_A_FILE, bytes: 0 }];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    throw inputInvalid(label, `cannot list (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const out: StoredFile[] = [];
  for (const name of names) {
    const p = join(dir, name);
    const s = lstatSync(p);
    if (!s.isFile()) out.push({ name, sha256: NOT_A_FILE, bytes: 0 });
    else out.push({ name, ...sha256File(p) });
  }
  return out;
}

/** Every entry of the hidden store, hashed. An absent store is empty. */
export function listStore(repo: string): StoredFile[] {
  return listDir(layoutPath(repo, 'logs'), LAYOUT.logs);
}

/** Every entry of the published copy, hashed. */
export function listPublished(repo: string): StoredFile[] {
  return listDir(layoutPath(repo, 'publishedLogs'), LAYOUT.publishedLogs);
}

export function toHashMap(files: readonly StoredFile[]): Map<string, string> {
  return new Map(files.map((f) => [f.name, f.sha256]));
}

/** Remove the store and the published copy. */
export function removeLogs(repo: string): void {
  rmSync(layoutPath(repo, 'logs'), { recursive: true, force: true });
  rmSync(layoutPath(repo, 'publishedLogs'), { recursive: true, force: true });
}

/** Move a file the command wrote into the store under `name` (same file system: rename; else copy), private. */
export function moveIntoStore(repo: string, from: string, name: string): string {
  const to = join(layoutPath(repo, 'logs'), name);
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    copyFileSync(from, to, constants.COPYFILE_EXCL);
    rmSync(from, { force: true });
  }
  chmodSync(to, STORE_FILE_MODE);
  return to;
}

/**
 * Replace review/logs with a readable copy of the store: built in a temporary folder,
 * every copy re-hashed against the store's hash, then renamed into place.
 */
export function publishCopy(repo: string, files: readonly StoredFile[]): void {
  const review = join(repo, 'review');
  const tmp = join(review, `.logs-${process.pid}-${crypto().randomBytes(6).toString('hex')}.tmp`);
  mkdirSync(tmp, { mode: PUBLISHED_DIR_MODE });
  try {
    chmodSync(tmp, PUBLISHED_DIR_MODE);
    const store = layoutPath(repo, 'logs');
    for (const f of files) {
      if (f.sha256 === NOT_A_FILE)
        throw inputInvalid(`${LAYOUT.logs}/${f.name}`, 'not a regular file; refusing to publish it');
      const to = join(tmp, f.name);
      copyFileSync(join(store, f.name), to, constants.COPYFILE_EXCL);
      chmodSync(to, PUBLISHED_FILE_MODE);
      const copy = sha256File(to);
      if (copy.sha256 !== f.sha256)
        throw inputInvalid(`${LAYOUT.logs}/${f.name}`, 'changed while it was being published');
    }
    rmSync(layoutPath(repo, 'publishedLogs'), { recursive: true, force: true });
    renameSync(tmp, layoutPath(repo, 'publishedLogs'));
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readlinkSync,
  renameSync,
  writeSync,
  unlinkSync,
  readSync,
  fstatSync,
  constants,
  realpathSync,
} from 'node:fs';
import { dirname, basename, join, isAbsolute, relative, resolve, sep } from 'node:path';
import { crypto } from './builtins.js';
import { SMALL_INPUT, sha256Hex } from './sha256.js';
import { inputInvalid } from './errors.js';

/** Default cap on any input document. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/**
 * Read a regular file of at most `cap` bytes without following a final symlink into
 * something huge: the size is checked on the open descriptor before reading, and the
 * read stops at cap + 1 so a file that grows meanwhile is still caught.
 */
export function readBoundedFile(path: string, cap = MAX_INPUT_BYTES, label = path): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw inputInvalid(label, code === 'ENOENT' ? 'file not found' : `cannot open (${code ?? 'error'})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw inputInvalid(label, 'not a regular file');
    if (st.size > cap) throw inputInvalid(label, `larger than the ${cap}-byte cap (${st.size} bytes)`);
    const buf = Buffer.allocUnsafe(Math.min(st.size, cap) + 1);
    let got = 0;
    for (;;) {
      const r = readSync(fd, buf, got, buf.length - got, null);
      if (r === 0) break;
      got += r;
      if (got > cap) throw inputInvalid(label, `larger than the ${cap}-byte cap`);
      if (got === buf.length) break;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

export function fileExists(path: string): boolean {
  try {
    const fd = openSync(path, constants.O_RDONLY);
    closeSync(fd);
    return true;
  } catch {
    return false;
  }
}

let tempSerial = 0;

/**
 * A new temporary file beside `name` in `dir`, created exclusively (O_EXCL: never an existing
 * file or link). Its name needs to be unique, not secret, so it is the pid, a counter and the
 * high-resolution clock rather than random bytes (which would load node:crypto, about 5 ms,
 * for every command that writes a file); a name taken meanwhile is skipped.
 */
export function createTemp(dir: string, name: string, mode: number): { tmp: string; fd: number } {
  for (let attempt = 0; ; attempt++) {
    const tmp = join(
      dir,
      `.${name}.${process.pid}.${(tempSerial++).toString(36)}${process.hrtime.bigint().toString(36)}.tmp`,
    );
    try {
      return { tmp, fd: openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 100) throw err;
    }
  }
}

/** Write via a temporary file, fsync, rename, fsync the directory: a crash leaves old or new, never half. */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  const dir = dirname(path);
  const { tmp, fd } = createTemp(dir, basename(path), mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
  try {
    const dfd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    /* directories cannot be fsynced on every file system */
  }
}

let hashBuffer: Buffer | undefined;
let procFd: string | null | undefined;

/** The error code sha256File gives a file reached by another path than the one expected. */
export const E_PATH_DETOUR = 'EPATHDETOUR';

/**
 * Where an open descriptor really leads, as the kernel says (Linux /proc/self/fd), or null
 * where it cannot tell (no /proc). Links at any component are resolved in the answer.
 */
export function openedPath(fd: number): string | null {
  procFd ??= existsSync('/proc/self/fd') ? `/proc/${process.pid}/fd/` : null;
  return procFd === null ? null : readlinkSync(procFd + String(fd));
}

/**
 * SHA-256 and size of one file, read in 1 MiB chunks into one reused buffer (never the whole
 * file), without following a link at the last component, or at any component when given
 * `realPath` (the canonical path the file must have; checked where /proc/self/fd exists).
 * Synchronous: the logs and verified fixtures it hashes are finished files, and a read
 * stream would load Node's stream machinery for nothing. (The seal's own hashing, with its
 * change detection and worker threads, is src/seal/hash.ts.)
 */
export function sha256File(path: string, options: { realPath?: string } = {}): { sha256: string; bytes: number } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    // O_NOFOLLOW covers the last component only; with `realPath`, a link anywhere on the way
    // (or a file moved meanwhile) is refused where the kernel can say where the file is.
    if (options.realPath !== undefined) {
      const real = openedPath(fd);
      if (real !== null && real !== options.realPath) {
        throw Object.assign(new Error(`${path} was reached through a symbolic link or moved (it is ${real})`), {
          code: E_PATH_DETOUR,
        });
      }
    }
    hashBuffer ??= Buffer.allocUnsafeSlow(1 << 20);
    // A short file (most evidence files) is hashed without node:crypto (src/core/sha256.ts).
    // (A read can come back short before the end, so the end is seen only as a read of nothing.)
    let first = 0;
    for (let n = -1; n !== 0 && first <= SMALL_INPUT; first += n)
      n = readSync(fd, hashBuffer, first, SMALL_INPUT + 1 - first, null);
    if (first <= SMALL_INPUT) return { sha256: sha256Hex(hashBuffer.subarray(0, first)), bytes: first };
    const h = crypto().createHash('sha256');
    h.update(hashBuffer.subarray(0, first));
    let bytes = first;
    for (;;) {
      const n = readSync(fd, hashBuffer, 0, hashBuffer.length, null);
      if (n === 0) break;
      h.update(hashBuffer.subarray(0, n));
      bytes += n;
    }
    return { sha256: h.digest('hex'), bytes };
  } finally {
    closeSync(fd);
  }
}

/** Resolve a path named inside a record against the repository; refuse anything that leaves it. */
export function resolveInRepo(repo: string, p: string, label: string): string {
  if (isAbsolute(p) || p.includes('\\') || p.includes('\0'))
    throw inputInvalid(label, `"${p}" must be a relative POSIX path inside the repository`);
  let root: string;
  try {
    root = realpathSync(resolve(repo));
  } catch {
    throw inputInvalid('--repo', `"${repo}" not found`);
  }
  const full = resolve(root, p);
  const rel = relative(root, full);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw inputInvalid(label, `"${p}" escapes the repository`);
  let real: string;
  try {
    real = realpathSync(full);
  } catch {
    throw inputInvalid(label, `"${p}" not found in the repository`);
  }
  if (real !== root && !real.startsWith(root + sep))
    throw inputInvalid(label, `"${p}" resolves (through a link) outside the repository`);
  return real;
}

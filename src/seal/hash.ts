import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Hash } from 'node:crypto';
import { crypto as nodeCrypto } from '../core/builtins.js';
import { sha256Hex } from '../core/sha256.js';
import { availableParallelism } from 'node:os';
import { inputInvalid } from '../core/errors.js';

/**
 * SHA-256 of many files on every core: the main thread and a small pool of worker threads
 * (one fewer than the cores) claim files one at a time from a shared atomic counter and
 * write each hex digest into shared memory, so there is no per-file message. Small sets
 * are hashed on the main thread alone (starting workers costs more than they save), and so
 * is a single file (one SHA-256 stream cannot be split; there, reads of a large file run
 * on the libuv pool, overlapped with the hash). Each file is opened without following a
 * link, checked to be where the walk saw it, checked to be regular, read in 1 MiB chunks
 * (8 MiB for a large file on the main thread) into reused page-aligned buffers (never a
 * whole file at once, no per-chunk allocation), and refused if its size, mtime, ctime or
 * inode changed while it was read.
 */

/**
 * The per-file hashing, as plain JavaScript, so that exactly the same code runs in the
 * workers (which are started from source, under tsx and from dist/ alike) and on the
 * main thread. Expects `fs` and `crypto` in scope; defines `hashOne(path)` -> hex (workers),
 * `hashOneAsync(path)` -> Promise of hex (main thread), `describe(err)` and `Refused`.
 */
const CORE_SOURCE = String.raw`
// 1 MiB chunks into page-aligned memory. Alignment matters more than size here: the kernel's
// copy into a buffer that is only 16-byte aligned (what malloc gives a Buffer) ran 3-4 times
// slower than into a page-aligned one, which is why 64 KiB chunks once looked best. A
// WebAssembly memory is page-aligned by construction; where WebAssembly is unavailable the
// plain allocation is used (correct, slower).
const CHUNK = 1024 * 1024;
function alignedChunks(count, size) {
  if (typeof WebAssembly === 'object' && typeof WebAssembly.Memory === 'function') {
    const mem = new WebAssembly.Memory({ initial: (size * count) / 65536, maximum: (size * count) / 65536 });
    return Array.from({ length: count }, (_, i) => Buffer.from(mem.buffer, i * size, size));
  }
  return Array.from({ length: count }, () => Buffer.allocUnsafeSlow(size));
}
const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | (fs.constants.O_NONBLOCK || 0);
const oneShot = typeof crypto.hash === 'function' ? (b) => crypto.hash('sha256', b, 'hex') : (b) => crypto.createHash('sha256').update(b).digest('hex');
class Refused extends Error {}
const CHANGED = 'changed while it was being hashed (size, mtime, ctime or inode differ before and after); seal again once it is stable';
function same(a, b) {
  return a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.ino === b.ino && a.dev === b.dev;
}
function openNoFollow(path) {
  try {
    return fs.openSync(path, FLAGS);
  } catch (err) {
    if (err.code === 'ELOOP' || err.code === 'EMLINK') throw new Refused('is a symbolic link; links are never hashed');
    if (err.code === 'ENOENT') throw new Refused('disappeared while the fixtures were being hashed');
    throw new Refused('cannot open (' + (err.code || 'error') + ')');
  }
}
// Where the descriptor really leads, from the kernel (Linux /proc/self/fd): the open refuses a
// link only as the last path component, so a folder on the path swapped for a link between the
// walk and the open would otherwise be followed out of the repository. The path given is
// already canonical (the repository's real path plus a walked relative path), so anything
// else (a link on the way, a file moved or deleted meanwhile) is refused. Where /proc is
// absent (not Linux) the check cannot be made; docs/seal.md says so.
// (/proc/<pid>/fd rather than /proc/self/fd: one link fewer to resolve, ~20 % faster per file.)
const PROC_FD = fs.existsSync('/proc/self/fd') ? '/proc/' + process.pid + '/fd/' : null;
function checkOpenedAt(fd, path) {
  if (PROC_FD === null) return;
  let real;
  try {
    real = fs.readlinkSync(PROC_FD + fd);
  } catch (err) {
    throw new Refused('cannot confirm where it was opened (' + (err.code || 'error') + ')');
  }
  if (real !== path) throw new Refused('was reached through a symbolic link, or moved or deleted, while the fixtures were being hashed; links are never hashed');
}
function statRegular(fd) {
  const st = fs.fstatSync(fd, { bigint: true });
  if (!st.isFile()) throw new Refused('is not a regular file');
  return st;
}
function finish(fd, before, total, hex) {
  const after = fs.fstatSync(fd, { bigint: true });
  if (!same(before, after) || total !== Number(before.size)) throw new Refused(CHANGED);
  return hex;
}
// Files below one chunk: a single read of size + 1 bytes (a short read is end of file) and a
// one-shot hash. Larger files: chunk after chunk into the same buffer. Never a whole file.
let one = null;
function hashOpen(fd, before) {
  one ??= alignedChunks(1, CHUNK)[0];
  const size = Number(before.size);
  if (size < CHUNK) {
    const total = fs.readSync(fd, one, 0, size + 1, null);
    return finish(fd, before, total, oneShot(one.subarray(0, total)));
  }
  const hash = crypto.createHash('sha256');
  let total = 0;
  for (;;) {
    const n = fs.readSync(fd, one, 0, CHUNK, null);
    if (n === 0) break;
    hash.update(n === CHUNK ? one : one.subarray(0, n));
    total += n;
  }
  return finish(fd, before, total, hash.digest('hex'));
}
function hashOne(path) {
  const fd = openNoFollow(path);
  try {
    checkOpenedAt(fd, path);
    return hashOpen(fd, statRegular(fd));
  } finally {
    fs.closeSync(fd);
  }
}
// A large file on a thread with a core to spare (the main thread, which hashes a single
// file or a small set): the next chunk is read on the libuv pool, i.e. on the other core,
// while this thread hashes the current one, so the copy out of the page cache hides behind
// the hash. Reads are positioned and in order; each buffer is reused once its hash is done.
// Two 8 MiB buffers: the hash of data the other core has just copied runs a few per cent
// slower than of data in memory, and measured over 1 GiB, 8 MiB x 2 came closest to the
// in-memory speed (median ~770 ms, against ~790 ms for 1 MiB x 3 and ~740 ms in memory).
const RING_CHUNK = 8 * CHUNK;
const OVERLAP = 2;
const OVERLAP_MIN_BYTES = 4 * CHUNK;
let ring = null;
function readAt(fd, buf, pos) {
  return new Promise((resolve, reject) => fs.read(fd, buf, 0, RING_CHUNK, pos, (err, n) => (err ? reject(err) : resolve(n))));
}
async function hashOverlapped(fd, before) {
  ring ??= alignedChunks(OVERLAP, RING_CHUNK);
  const pending = [];
  try {
    const hash = crypto.createHash('sha256');
    let total = 0;
    let next = 0;
    for (let k = 0; k < OVERLAP; k++, next += RING_CHUNK) pending.push(readAt(fd, ring[k], next));
    for (let k = 0; ; k = (k + 1) % OVERLAP) {
      const n = await pending[k];
      if (n === 0) break;
      hash.update(n === RING_CHUNK ? ring[k] : ring[k].subarray(0, n));
      total += n;
      if (n < RING_CHUNK) break;
      pending[k] = readAt(fd, ring[k], next);
      next += RING_CHUNK;
    }
    // Bytes past a short read mean the file grew: the stat comparison refuses it.
    return finish(fd, before, total, hash.digest('hex'));
  } finally {
    // Reads past the end may still be in flight: every one settles before the fd is closed.
    await Promise.allSettled(pending);
  }
}
async function hashOneAsync(path) {
  const fd = openNoFollow(path);
  try {
    checkOpenedAt(fd, path);
    const before = statRegular(fd);
    return await (Number(before.size) >= OVERLAP_MIN_BYTES ? hashOverlapped(fd, before) : hashOpen(fd, before));
  } finally {
    fs.closeSync(fd);
  }
}
function describe(err) {
  return err instanceof Refused ? err.message : 'cannot read (' + ((err && err.code) || String(err)) + ')';
}
`;

const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const crypto = require('node:crypto');
${CORE_SOURCE}
const { paths, counter, out } = workerData;
const next = new Int32Array(counter);
const hexOut = Buffer.from(out);
(() => {
  for (;;) {
    const i = Atomics.add(next, 0, 1);
    if (i >= paths.length) break;
    try {
      hexOut.latin1Write(hashOne(paths[i]), i * 64, 64);
    } catch (err) {
      Atomics.store(next, 0, paths.length);
      parentPort.postMessage({ index: i, detail: describe(err) });
      return;
    }
  }
  parentPort.postMessage({ done: true });
})();
`;

interface Core {
  hashOne(path: string): string;
  hashOneAsync(path: string): Promise<string>;
  describe(err: unknown): string;
}

/** What the per-file code uses of node:crypto. */
interface CoreCrypto {
  hash(algorithm: 'sha256', data: Uint8Array, encoding: 'hex'): string;
  createHash(algorithm: 'sha256'): Hash;
}

/**
 * node:crypto for the main thread, loaded only for a file above src/core/sha256.ts's
 * SMALL_INPUT: the few small fixtures of most seals (and of every `run`, which re-checks
 * the seal) are hashed in JavaScript, and the process never loads node:crypto for them.
 */
const mainCrypto: CoreCrypto = {
  hash: (_algorithm, data) => sha256Hex(data),
  createHash: (algorithm) => nodeCrypto().createHash(algorithm),
};

let mainCore: Core | undefined;

type CoreFactory = (f: typeof fs, c: CoreCrypto) => Core;

/** The same core, on the main thread. */
function core(): Core {
  if (mainCore === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const make = new Function(
      'fs',
      'crypto',
      `'use strict';\n${CORE_SOURCE}\nreturn { hashOne, hashOneAsync, describe };`,
    );
    mainCore = (make as CoreFactory)(fs, mainCrypto);
  }
  return mainCore;
}

/** Sets at most this many files and bytes are hashed on the main thread. */
export const MAIN_THREAD_MAX_FILES = 64;
export const MAIN_THREAD_MAX_BYTES = 32 << 20;

/** How many worker threads to start for `count` files; the main thread hashes beside them. */
export function poolSize(count: number): number {
  return Math.max(1, Math.min(count, availableParallelism(), 4) - 1);
}

function smallSet(paths: readonly string[]): boolean {
  if (paths.length === 1) return true; // one file is one hash: a worker cannot help
  if (paths.length > MAIN_THREAD_MAX_FILES) return false;
  let bytes = 0;
  for (const p of paths) {
    try {
      bytes += fs.lstatSync(p).size;
    } catch {
      return true; // the hashing reports it
    }
    if (bytes > MAIN_THREAD_MAX_BYTES) return false;
  }
  return true;
}

/**
 * Hash `files` (normalised POSIX paths relative to `top`, no `.`, `..` or empty components)
 * and return their lowercase hex digests in the same order. Any unreadable, non-regular,
 * linked (at any component, where /proc/self/fd can tell) or changing file is refused with
 * E_INPUT_INVALID naming it. `workers` is the number of worker threads hashing beside the
 * main thread; `workers: 0` keeps everything on the main thread.
 */
export async function hashFiles(
  top: string,
  files: readonly string[],
  options: { workers?: number } = {},
): Promise<string[]> {
  if (files.length === 0) return [];
  // Plain concatenation: `files` are already normalised POSIX paths inside `top` (path.join costs ~2 µs each).
  // The real path of `top`, so that each joined path is what the kernel reports for the opened file.
  const real = fs.realpathSync(top);
  const base = real.endsWith('/') ? real : `${real}/`;
  const paths = files.map((f) => base + f);
  const size = options.workers ?? (smallSet(paths) ? 0 : poolSize(files.length));
  if (size === 0) {
    const c = core();
    const out: string[] = [];
    for (const [i, p] of paths.entries()) {
      try {
        out.push(await c.hashOneAsync(p));
      } catch (err) {
        throw inputInvalid(files[i] ?? '?', c.describe(err));
      }
    }
    return out;
  }
  return hashOnWorkers(files, paths, size);
}

async function hashOnWorkers(files: readonly string[], paths: readonly string[], size: number): Promise<string[]> {
  // Loaded here, not at the top: most seals (and every `run`, which re-verifies) hash a few
  // files on the main thread. Through require, as the CLI bundles allow no dynamic import().
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const counter = new SharedArrayBuffer(4);
  const out = new SharedArrayBuffer(files.length * 64);
  const workers: InstanceType<typeof Worker>[] = [];
  let failure: { index: number; detail: string } | null = null;
  const runs: Promise<void>[] = [];
  for (let k = 0; k < size; k++) {
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: { paths, counter, out },
      // A small young generation: the per-file garbage (stats, hex strings) is collected early, keeping RSS low.
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 },
      stdout: false,
      stderr: false,
    });
    workers.push(w);
    runs.push(
      new Promise<void>((resolveRun, rejectRun) => {
        let settled = false;
        w.on('message', (m: { done?: true; index?: number; detail?: string }) => {
          settled = true;
          if (typeof m.index === 'number') failure ??= { index: m.index, detail: m.detail ?? 'cannot be hashed' };
          resolveRun();
        });
        w.on('error', (err) => {
          settled = true;
          rejectRun(err);
        });
        w.on('exit', (code) => {
          if (!settled) rejectRun(new Error(`hash worker exited with status ${code} before finishing`));
        });
      }),
    );
  }
  // The main thread claims files from the same counter while the workers start, so hashing
  // begins at once and a worker's start-up is hidden, not waited for.
  const c = core();
  const next = new Int32Array(counter);
  const hexOut = Buffer.from(out);
  for (;;) {
    const i = Atomics.add(next, 0, 1);
    if (i >= paths.length) break;
    try {
      hexOut.write(c.hashOne(paths[i] as string), i * 64, 64, 'latin1');
    } catch (err) {
      Atomics.store(next, 0, paths.length);
      failure ??= { index: i, detail: c.describe(err) };
      break;
    }
  }
  try {
    await Promise.all(runs);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  const failed = failure;
  if (failed) throw inputInvalid(files[failed.index] ?? '?', failed.detail);
  const view = Buffer.from(out);
  return files.map((_, i) => view.toString('latin1', i * 64, i * 64 + 64));
}

// The credit cache: every run's record on disk, keyed by what makes the run, so a rerun makes none again.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../../core/ids.js';
import type { Keyer, RunCache, RunRecord } from '../runs/record.js';

function readCache(dir: string | null, key: string): RunRecord | null {
  if (dir === null) return null;
  const p = join(dir, `${key}.json`);
  if (!existsSync(p)) return null;
  try {
    const v = JSON.parse(readFileSync(p, 'utf8')) as RunRecord;
    if (
      (v.status === 'ok' || v.status === 'timeout' || v.status === 'crash') &&
      Array.isArray(v.failed) &&
      v.failed.every((x) => typeof x === 'string') &&
      (v.ran === undefined || (Array.isArray(v.ran) && v.ran.every((x) => typeof x === 'string')))
    )
      return v;
  } catch {
    /* a damaged entry is a miss */
  }
  return null;
}

function writeCache(dir: string | null, key: string, v: RunRecord): void {
  if (dir === null) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${key}.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(v), { mode: 0o600 });
  renameSync(tmp, join(dir, `${key}.json`));
}

/** The cache in folder `dir` (one JSON file per record, written whole), or none at all for null. */
export function fileCache(dir: string | null): RunCache {
  return { read: (key) => readCache(dir, key), write: (key, v) => writeCache(dir, key, v) };
}

/** Cache keys that bind `salt` (digest, patch, base), the command, and the environment when it is not the plain one. */
export function keyer(salt: string, command: readonly string[], env: Readonly<Record<string, string>> | null): Keyer {
  return (what, selection, edits) =>
    sha256Hex(
      JSON.stringify(['sealgate-credit-v4', salt, what, sha256Hex(JSON.stringify(edits)), selection ?? command, env]),
    );
}

/** The credit cache's folder by default: $XDG_CACHE_HOME/sealgate/credit. */
export function defaultCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  const base =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== ''
      ? env.XDG_CACHE_HOME
      : join(env.HOME ?? homedir(), '.cache');
  return join(base, 'sealgate', 'credit');
}

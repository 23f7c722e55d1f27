// The key a proposal's null changes are written with: from a secret no test sees.
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { type Changed } from '../../symbols/schema.js';
import { randomNoiseKey } from '../mutants/mutant.js';

/** The noise secret of a process that keeps no cache folder: one for its prelude and its credit step alike. */
let processSecret: string | null = null;
const SECRET = /^[0-9a-f]{64}$/;

/** The noise secret kept in the cache folder (hidden from every test like the rest of it), made on first use. */
function cacheSecret(dir: string): string {
  const path = join(dir, 'noise.key');
  try {
    const t = readFileSync(path, 'utf8');
    if (SECRET.test(t)) return t;
  } catch {
    /* none yet */
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.noise.key.${process.pid}.tmp`);
  writeFileSync(tmp, randomNoiseKey(), { mode: 0o600 });
  try {
    // A first one made by another process at the same moment wins; a damaged or unreadable one is replaced.
    linkSync(tmp, path);
  } catch {
    let there: string | null = null;
    try {
      there = readFileSync(path, 'utf8');
    } catch {
      /* none: the link itself failed */
    }
    if (there === null || !SECRET.test(there)) renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
  const t = readFileSync(path, 'utf8');
  if (!SECRET.test(t)) throw new Error(`the noise key ${path} is not 64 hex digits`);
  return t;
}

/**
 * The key the null changes of one proposal are written with (noiseFor): HMAC-SHA-256 of a
 * secret no test sees (kept in the credit cache folder, so a rerun finds its cached runs; per
 * process without one) over the patch, the base and the seed. A test cannot know the words
 * ahead; the evidence names them afterwards, for that proposal only.
 */
export function noiseKeyFor(
  cacheDir: string | null,
  changed: Pick<Changed, 'patch_sha256' | 'base'>,
  seed: string,
): string {
  const secret = cacheDir === null ? (processSecret ??= randomNoiseKey()) : cacheSecret(cacheDir);
  return createHmac('sha256', secret)
    .update(JSON.stringify(['sealgate-noise-v1', changed.patch_sha256, changed.base, seed]))
    .digest('hex');
}

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toJsonText } from '../../src/core/json.js';
import { runCli } from '../helpers/cli.js';
import { proposedAndSealed, writeScoring, type Review } from '../workflow/review.js';

export async function keygen(dir: string): Promise<{ keyId: string; priv: string; pub: string; pem: string }> {
  const r = await runCli(['keygen', '--out', dir], { cwd: dir });
  assert.equal(r.exit, 0, r.stderr);
  return { keyId: r.stdout.trim(), priv: join(dir, 'key.pem'), pub: join(dir, 'key.pub.pem'), pem: readFileSync(join(dir, 'key.pub.pem'), 'utf8') };
}

/** Add a trust section to the repository's config. */
export function trust(dir: string, runnerKeys: string[], reviewerKeys?: string[]): void {
  const path = join(dir, 'sealgate.config.json');
  const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  writeFileSync(path, toJsonText({ ...config, trust: { runnerKeys, ...(reviewerKeys ? { reviewerKeys } : {}) } }));
}

export async function attest(dir: string, key: string): Promise<{ exit: number; stdout: string; stderr: string }> {
  return runCli(['attest', '--repo', dir, '--signing-key', key], { cwd: dir });
}

/** A review the runner would ALLOW: sealed, scored with the real bound on taxCents. */
export async function allowed(): Promise<Review> {
  const r = await proposedAndSealed();
  writeScoring(r, 'property');
  return r;
}


import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toJsonText } from '../../src/core/json.js';
import { runCli } from '../helpers/cli.js';
import { git, tempDir } from '../helpers/git.js';
import { AGENT_PATCH, proposedAndSealed, verify, writeScoring, type Review } from '../workflow/review.js';

export async function keygen(dir: string): Promise<{ keyId: string; priv: string; pub: string; pem: string }> {
  const r = await runCli(['keygen', '--out', dir], { cwd: dir });
  assert.equal(r.exit, 0, r.stderr);
  return {
    keyId: r.stdout.trim(),
    priv: join(dir, 'key.pem'),
    pub: join(dir, 'key.pub.pem'),
    pem: readFileSync(join(dir, 'key.pub.pem'), 'utf8'),
  };
}

/** The keys a policy trusts: its `trust` section. */
export interface Trust {
  readonly runnerKeys: string[];
  readonly reviewerKeys?: string[];
}

/** The repository's config at HEAD (the base a review proposed now would name), with a trust section. */
export function trustedConfig(dir: string, t: Trust): string {
  const config = JSON.parse(git(dir, 'show', 'HEAD:sealgate.config.json')) as Record<string, unknown>;
  return toJsonText({
    ...config,
    trust: { runnerKeys: t.runnerKeys, ...(t.reviewerKeys ? { reviewerKeys: t.reviewerKeys } : {}) },
  });
}

/**
 * Commit a trust section into the repository's config. The policy is read only at the
 * record's base commit (and sealed), so this comes before `propose`: the review then
 * decides under it.
 */
export function trust(dir: string, runnerKeys: string[], reviewerKeys?: string[]): void {
  writeFileSync(
    join(dir, 'sealgate.config.json'),
    trustedConfig(dir, { runnerKeys, ...(reviewerKeys ? { reviewerKeys } : {}) }),
  );
  git(dir, 'commit', '-qm', 'trust the runner and reviewer keys', '--', 'sealgate.config.json');
}

/**
 * A policy file outside the repository (`--policy FILE`): the config at HEAD with another
 * trust section. Not the sealed policy, so only for a check the signatures decide first.
 */
export function trustPolicyFile(dir: string, file: string, t: Trust): string {
  writeFileSync(file, trustedConfig(dir, t));
  return file;
}

export async function attest(dir: string, key: string): Promise<{ exit: number; stdout: string; stderr: string }> {
  return runCli(['attest', '--repo', dir, '--signing-key', key], { cwd: dir });
}

/**
 * proposedAndSealed (test/workflow/review.ts) on a base whose committed policy trusts these
 * keys: the example committed, the trust section committed on top, then the agent's patch
 * proposed (base HEAD) and sealed. No credit yet.
 */
export function trustedProposedAndSealed(
  t: Trust,
  patch = AGENT_PATCH,
  proposalId = 'p-2026-10-12-014',
): Promise<Review> {
  return proposedAndSealed(patch, proposalId, (dir) => trust(dir, t.runnerKeys, t.reviewerKeys));
}

/** A review the runner would ALLOW: sealed, scored with the real bound on taxCents; with `t`, under a policy trusting those keys. */
export async function allowed(t?: Trust): Promise<Review> {
  const r = t === undefined ? await proposedAndSealed() : await trustedProposedAndSealed(t);
  writeScoring(r, 'property');
  return r;
}

/**
 * A review the runner would ALLOW, under a policy trusting one runner key, attested with that
 * key and verified ALLOW (the start of every forgery scenario); dispose removes the review and the key.
 */
export async function signedAllowed(): Promise<{
  r: Review;
  k: Awaited<ReturnType<typeof keygen>>;
  dispose: () => void;
}> {
  const t = tempDir();
  let r: Review | undefined;
  try {
    const k = await keygen(join(t.dir, 'runner'));
    r = await allowed({ runnerKeys: [k.pem] });
    const a = await attest(r.dir, k.priv);
    assert.equal(a.exit, 0, a.stderr);
    assert.equal((await verify(r.dir)).code, 'ALLOW');
    const review = r;
    return {
      r: review,
      k,
      dispose: () => {
        review.dispose();
        t.dispose();
      },
    };
  } catch (err) {
    r?.dispose();
    t.dispose();
    throw err;
  }
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../helpers/git.js';
import { EXAMPLE_DIR } from '../workflow/review.js';
import {
  AGENT_PATCH,
  FOLLOW_UP_PATCH,
  agentPatch,
  assertHonest,
  exampleRepo,
  propose,
  runAndVerify,
  workTreeState,
  writePatch,
} from './helpers.js';

/**
 * The runner tests base_commit + the record's patch, applied once in its own tree: what
 * the work tree holds (another patch, this one applied, committed, or nothing) changes
 * nothing, and no runner step changes the work tree or the index.
 */

test('adversarial: a decoy patch (the record names 001, the work tree has the real bound of 002 applied) -> E_CREDIT_MISSING', async () => {
  const r = exampleRepo();
  try {
    const patch = writePatch(r.dir, '001.diff', agentPatch(r.dir, AGENT_PATCH));
    assert.equal((await propose(r.dir, patch)).exit, 0);
    git(r.dir, 'apply', join(EXAMPLE_DIR, FOLLOW_UP_PATCH));
    const before = workTreeState(r.dir);
    const out = await runAndVerify(r.dir);
    assertHonest(out.runner, 'E_CREDIT_MISSING', /missing src\/pricing\.ts::taxCents/);
    assertHonest(out.verify, 'E_CREDIT_MISSING', /pass is false/);
    assert.equal(workTreeState(r.dir), before, 'the work tree and index are unchanged');
  } finally {
    r.dispose();
  }
});

for (const state of [
  'applied in the work tree (the runner would apply it twice)',
  'not applied at all',
  'already committed (a PR checkout; --base HEAD~1)',
] as const) {
  test(`adversarial: the recorded patch ${state} -> the honest E_CREDIT_MISSING; work tree untouched`, async () => {
    const r = exampleRepo();
    try {
      const bytes = agentPatch(r.dir, AGENT_PATCH);
      const patch = writePatch(r.dir, '001.diff', bytes);
      let base: string[] = [];
      if (state.startsWith('applied')) git(r.dir, 'apply', patch);
      if (state.startsWith('already')) {
        git(r.dir, 'apply', patch);
        git(r.dir, 'commit', '-q', '-am', 'agent: clamp discount, refund, tax');
        base = ['--base', 'HEAD~1'];
      }
      const p = await propose(r.dir, patch, base);
      assert.equal(p.exit, 0, p.stderr);
      const record = JSON.parse(readFileSync(join(r.dir, 'review/proposal.json'), 'utf8')) as { base_commit: string };
      assert.equal(record.base_commit, r.base);
      const before = workTreeState(r.dir);
      const out = await runAndVerify(r.dir);
      assertHonest(out.runner, 'E_CREDIT_MISSING', /missing src\/pricing\.ts::taxCents/);
      assertHonest(out.verify, 'E_CREDIT_MISSING', /pass is false/);
      assert.match(out.runner.stderr, new RegExp(`runner: tree +ok +[0-9a-f]{40} = base ${r.base}`));
      assert.equal(workTreeState(r.dir), before, 'the work tree and index are unchanged');
    } finally {
      r.dispose();
    }
  });
}

test("adversarial: proposed on a HEAD that already holds the patch, the patch does not apply: E_INPUT_INVALID with git's reason, nothing sealed", async () => {
  const r = exampleRepo();
  try {
    const patch = writePatch(r.dir, '001.diff', agentPatch(r.dir, AGENT_PATCH));
    git(r.dir, 'apply', patch);
    git(r.dir, 'commit', '-q', '-am', 'agent');
    assert.equal((await propose(r.dir, patch)).exit, 0);
    const out = await runAndVerify(r.dir);
    assertHonest(
      out.runner,
      'E_INPUT_INVALID',
      /runner: tree +E_INPUT_INVALID: .*does not apply to [0-9a-f]{12}: error: .*patch failed: src\/pricing\.ts/,
    );
    assert.equal(existsSync(join(r.dir, 'review/runner/digest.status')), false);
    assert.notEqual(out.verify.stdout.trim(), 'ALLOW');
  } finally {
    r.dispose();
  }
});

test('adversarial: the record patch swapped after the seal -> verify rebuilds another tree: E_DIGEST_OPEN', async () => {
  const r = exampleRepo();
  try {
    const patch = writePatch(r.dir, '002.diff', agentPatch(r.dir, FOLLOW_UP_PATCH));
    assert.equal((await propose(r.dir, patch)).exit, 0);
    const first = await runAndVerify(r.dir);
    assert.equal(first.verify.stdout, 'ALLOW\n', first.verify.stderr);
    writePatch(r.dir, '002.diff', agentPatch(r.dir, AGENT_PATCH));
    const { runCli } = await import('../helpers/cli.js');
    const v = await runCli(['verify', '--now', '2026-10-12T12:00:00Z'], { cwd: r.dir });
    assertHonest(
      v,
      'E_DIGEST_OPEN',
      /inputs\.sha256#tree: the tree rebuilt from the base commit and the patch is [0-9a-f]{40}, not the sealed [0-9a-f]{40}/,
    );
  } finally {
    r.dispose();
  }
});

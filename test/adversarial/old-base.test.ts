import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { git, writeFiles } from '../helpers/git.js';
import { NOW, RUNNER } from '../workflow/review.js';
import {
  FOLLOW_UP_PATCH,
  agentPatch,
  assertHonest,
  exampleRepo,
  propose,
  runAndVerify,
  writePatch,
} from './helpers.js';

/**
 * The record names the base commit, and the base decides the policy every later step reads:
 * the trust section, the test command, the credit rules. An author that writes the record
 * itself can name an older commit of the repository whose policy is weaker: here the branch
 * has since added a trust section (runner keys), so evidence made on the old base needs no
 * signature at all. The runner and verify, reading the record's base, accept it. A gate given
 * the pull request's real base (`--expect-base`, as the CI template passes it) refuses it.
 */
test(
  'adversarial: a record that names an older base (a policy without trust keys) is E_INPUT_INVALID for a gate expecting the real base',
  { timeout: 300_000 },
  async () => {
    const r = exampleRepo();
    try {
      const old = r.base;
      // The branch moves on: its policy now trusts only a runner key (evidence must be signed).
      const cfg = JSON.parse(git(r.dir, 'show', `${old}:sealgate.config.json`)) as Record<string, unknown>;
      writeFiles(r.dir, {
        'sealgate.config.json': `${JSON.stringify({ ...cfg, trust: { runnerKeys: ['a'.repeat(64)] } }, null, 2)}\n`,
      });
      git(r.dir, 'commit', '-q', '-am', 'trust the runner key');
      const current = git(r.dir, 'rev-parse', 'HEAD').trim();
      git(r.dir, 'checkout', '-q', old);
      const patch = writePatch(r.dir, '002.diff', agentPatch(r.dir, FOLLOW_UP_PATCH));
      git(r.dir, 'checkout', '-q', '-');
      assert.equal((await propose(r.dir, patch, ['--base', old])).exit, 0);
      // Unsigned evidence on the old base: the old policy asks for no signature, so both accept it.
      const out = await runAndVerify(r.dir);
      assert.equal(out.runner.stdout.trim().split('\n').pop(), 'ALLOW', out.runner.stderr);
      assert.equal(out.verify.stdout.trim(), 'ALLOW', out.verify.stderr);
      const opts = { cwd: r.dir, now: new Date(NOW) };
      // The gate job knows the pull request's base: the evidence is for another commit.
      for (const cmd of [
        ['verify', '--now', NOW],
        ['explain', '--format', 'json', '--now', NOW, '--out', join(r.dir, 'report.json')],
        ['gate', '--record', 'review/proposal.json', '--credit', 'review/runner/credit.json', '--now', NOW],
      ]) {
        const v = await runCli([...cmd, '--expect-base', current], opts);
        const why = new RegExp(`the record names base ${old}, not ${current}`);
        assertHonest(v, 'E_INPUT_INVALID', cmd[0] === 'explain' ? /wrote/ : why);
        if (cmd[0] === 'explain') assert.match(readFileSync(join(r.dir, 'report.json'), 'utf8'), why);
        // The same commands with the base the evidence was made on: unchanged.
        const same = await runCli([...cmd, '--expect-base', old], opts);
        assert.equal(same.stdout.trim().split('\n').pop(), 'ALLOW', `${cmd[0]}: ${same.stderr}`);
      }
      // The runner job given the real base stops before it reads the old base's policy or runs anything.
      const stopped = await runCli(
        ['runner', '--runner-job', RUNNER, '--seed', '42', '--now', NOW, '--expect-base', current],
        opts,
      );
      assertHonest(
        stopped,
        'E_INPUT_INVALID',
        new RegExp(
          `runner: base +E_INPUT_INVALID: review/proposal\\.json#base_commit: the record names base ${old}, not ${current}`,
        ),
      );
      assert.doesNotMatch(stopped.stderr, /runner: (tree|policy|seal) /);
      const runs = await runCli(
        ['runner', '--runner-job', RUNNER, '--seed', '42', '--now', NOW, '--expect-base', old],
        opts,
      );
      assert.equal(runs.stdout.trim().split('\n').pop(), 'ALLOW', runs.stderr);
      // A short id, a branch name: refused as arguments (they could be moved), never compared.
      for (const bad of [current.slice(0, 12), 'main']) {
        const v = await runCli(['verify', '--now', NOW, '--expect-base', bad], opts);
        assert.equal(v.exit, 2, v.stderr);
        assert.match(v.stderr, /--expect-base: .* is not a full commit id/);
      }
    } finally {
      r.dispose();
    }
  },
);

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, readTree } from '../helpers/git.js';
import { ENV, ONE_CASE, RUNNER, makeSealedRepo } from '../runner/helpers.js';

// No sandbox here (bubblewrap missing, or it cannot create namespaces): `run` and `credit`
// refuse with E_SANDBOX_UNAVAILABLE and the next step, before any test code runs, unless the
// policy says sandbox "none". SEALGATE_BWRAP points them at a missing or a failing bwrap.

const NEXT =
  /install bubblewrap.*kernel\.unprivileged_userns_clone.*user\.max_user_namespaces.*kernel\.apparmor_restrict_unprivileged_userns/s;

function fakeBwraps(): { missing: string; denied: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-fake-bwrap-'));
  const denied = join(dir, 'bwrap');
  // What bubblewrap says where user namespaces are off (or AppArmor restricts them).
  writeFileSync(denied, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
  chmodSync(denied, 0o755);
  return { missing: join(dir, 'no-such-bwrap'), denied, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

test('sealgate run refuses with E_SANDBOX_UNAVAILABLE where bwrap is missing or cannot make namespaces; nothing ran, nothing was journaled', async () => {
  const fake = fakeBwraps();
  try {
    for (const [label, bwrap, says] of [
      ['missing', fake.missing, /not installed/],
      ['denied', fake.denied, /cannot create its namespaces.*Permission denied/],
    ] as const) {
      const repo = await makeSealedRepo({ config: { test: { command: ['sh', '-c', 'echo ran > ran.txt'] } } });
      try {
        const journal = repo.read('review/runner/journal.jsonl');
        const r = await runCli(['run', '--runner-job', RUNNER], {
          cwd: repo.dir,
          env: { ...ENV, SEALGATE_BWRAP: bwrap },
        });
        assert.deepEqual([r.stdout, r.exit], ['E_SANDBOX_UNAVAILABLE\n', 1], `${label}: ${r.stderr}`);
        assert.match(r.stderr, says, label);
        assert.match(r.stderr, NEXT, label);
        assert.equal(repo.read('review/runner/journal.jsonl'), journal, `${label}: no run-start`);
        assert.equal(existsSync(join(repo.dir, 'review/runner/logs')), false, label);
        assert.equal(existsSync(join(repo.dir, 'review/runner/results.json')), false, label);
      } finally {
        repo.dispose();
      }
    }
  } finally {
    fake.dispose();
  }
});

test('with sandbox "none" in the policy the run goes ahead unsandboxed and says so in results.json, the journal and its summary', async () => {
  const fake = fakeBwraps();
  // One JUnit case (a run with none is refused), then `pwd`: its output is the run's working directory.
  const repo = await makeSealedRepo({
    config: { sandbox: 'none', test: { command: [...ONE_CASE, 'pwd'], junit: ['junit.xml'] } },
  });
  try {
    const r = await runCli(['run', '--runner-job', RUNNER], {
      cwd: repo.dir,
      env: { ...ENV, SEALGATE_BWRAP: fake.missing },
    });
    assert.equal(r.exit, 0, r.stderr);
    assert.match(r.stdout, /sandbox: NONE/);
    const results = JSON.parse(repo.read('review/runner/results.json')) as { sandbox: string; cwd: string };
    assert.equal(results.sandbox, 'none');
    assert.match(repo.read('review/runner/journal.jsonl'), /"type":"run-start"[^\n]*"sandbox":"none"/);
    // Unsandboxed, each run still gets a fresh copy of the tree (never the user's tree itself).
    assert.notEqual(results.cwd, repo.dir);
    assert.equal(repo.read('review/runner/logs/stdout.log').trim(), results.cwd);
  } finally {
    repo.dispose();
    fake.dispose();
  }
});

// --- the credit step, on the pricing project ---

const FIX = resolve('test/credit/fixtures/pricing');

test('sealgate credit refuses with E_SANDBOX_UNAVAILABLE before any control or mutant runs, and leaves no credit', async () => {
  const repo = makeRepo(readTree(join(FIX, 'base')));
  const fake = fakeBwraps();
  const cache = mkdtempSync(join(tmpdir(), 'sealgate-credit-cache-'));
  try {
    symlinkSync(resolve('node_modules'), join(repo.dir, 'node_modules'), 'dir');
    mkdirSync(join(repo.dir, 'patches'));
    writeFileSync(join(repo.dir, 'src/pricing.ts'), readFileSync(join(FIX, 'v1/pricing.ts.txt'), 'utf8'));
    writeFileSync(join(repo.dir, 'test/pricing.test.ts'), readFileSync(join(FIX, 'v1/pricing.test.ts.txt'), 'utf8'));
    git(repo.dir, 'add', '-A', 'src', 'test');
    writeFileSync(join(repo.dir, 'patches/1.diff'), git(repo.dir, 'diff', '--cached', '--binary', 'HEAD'));
    git(repo.dir, 'reset', '-q');
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_TEST_CONTEXT') env[k] = v;
    env.SEED = '42';
    const cli = (argv: string[], extra: Record<string, string> = {}) =>
      runCli(argv, { cwd: repo.dir, env: { ...env, ...extra } });
    for (const s of [
      [
        'propose',
        '--author-job',
        'model-session-17',
        '--runner-job',
        'server-job-88',
        '--patch',
        'patches/1.diff',
        '--proposal-id',
        'p-1',
      ],
      ['seal', '--runner-job', 'server-job-88'],
      ['symbols', '--patch', 'patches/1.diff'],
      ['run', '--runner-job', 'server-job-88'],
    ]) {
      const r = await cli(s);
      assert.equal(r.exit, 0, `${s[0]}: ${r.stdout}${r.stderr}`);
    }
    for (const bwrap of [fake.missing, fake.denied]) {
      const r = await cli(['credit', '--runner-job', 'server-job-88', '--cache', cache], { SEALGATE_BWRAP: bwrap });
      assert.deepEqual([r.stdout, r.exit], ['E_SANDBOX_UNAVAILABLE\n', 1], r.stderr);
      assert.match(r.stderr, NEXT);
      assert.equal(existsSync(join(repo.dir, 'review/runner/credit.json')), false);
      assert.deepEqual(readdirSync(cache), [], 'no run was made, so nothing was cached');
    }
  } finally {
    fake.dispose();
    rmSync(cache, { recursive: true, force: true });
    repo.dispose();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { SANDBOX_WORK } from '../../src/sandbox/plan.js';
import { RUNNER } from '../runner/helpers.js';
import {
  TOKENS,
  daemons,
  makeProject,
  observe,
  runCliIn,
  treeHash,
  viaCredit,
  viaRun,
  type Observed,
  type Project,
} from './probe.js';

// Acceptance of the sandbox (issue 13), each property checked from outside on a throwaway
// project whose test is an attack (./probe.ts), once through `sealgate run` and once through
// the credit step's chokepoint. The last test is the control: the same attack with
// sandbox "none" gets through, so these assertions can fail.

const ways: [string, (p: Project) => Promise<Observed>][] = [
  ['sealgate run', viaRun],
  ['the credit step', viaCredit],
];

const seen = (o: Observed): string[] =>
  o.lines.filter((l) => /^(SEEN|READ|WROTE) /.test(l) && !/^SEEN \/tmp\/left-behind$|^SEEN .*left-behind$/.test(l));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const [way, run] of ways) {
  test(`${way}: the test sees no evidence, key, install, cache or repository, and writes none of them, nor the dependency folders or the user's tree`, async () => {
    const p = await makeProject();
    try {
      const before = {
        tree: treeHash(p.repo.dir),
        deps: treeHash(join(p.repo.dir, 'node_modules')),
        pkg: readFileSync(join(packageRoot(), 'bin', 'sealgate.js')),
        review: treeHash(join(p.repo.dir, 'review')),
      };
      const o = await run(p);
      assert.deepEqual(seen(o), [], o.out);
      for (const h of p.targets.hidden) assert.ok(o.lines.includes(`hidden ${h}`), `${h} was probed: ${o.out}`);
      for (const w of p.targets.unwritable) assert.ok(o.lines.includes(`refused ${w}`), `${w}: ${o.out}`);
      assert.ok(o.lines.includes('refused node_modules') && o.lines.includes('refused node_modules/new-file'), o.out);
      // From outside: the user's tree (src.txt was appended to in the run's copy only), its dependency folder and sealgate's install are unchanged.
      assert.equal(treeHash(p.repo.dir, ['.git', 'review']), before.tree);
      assert.equal(treeHash(join(p.repo.dir, 'node_modules')), before.deps);
      assert.deepEqual(readFileSync(join(packageRoot(), 'bin', 'sealgate.js')), before.pkg);
      assert.equal(readFileSync(join(p.repo.dir, 'src.txt'), 'utf8'), 'source\n');
      if (way === 'the credit step') assert.equal(treeHash(join(p.repo.dir, 'review')), before.review);
      // An unprivileged user inside.
      assert.ok(o.lines.includes('uid=1000 gid=1000'), o.out);
    } finally {
      await p.dispose();
    }
  });

  test(`${way}: no token-like variable of the runner reaches the test, and no log holds one`, async () => {
    const p = await makeProject();
    try {
      const o = await run(p);
      const names = o.env.map((l) => l.slice(0, l.indexOf('=')));
      for (const [k, v] of Object.entries(TOKENS)) {
        assert.ok(!names.includes(k), `${k} reached the test`);
        assert.ok(!o.out.includes(v), `${k}'s value is in the output`);
      }
      // Only the allowlist: PATH, CI, HOME, TMPDIR and the pinned inputs (and what the shell adds itself).
      const allowed = new Set([
        'PATH',
        'HOME',
        'TMPDIR',
        'SEED',
        'PYTHONHASHSEED',
        'TZ',
        'LC_ALL',
        'LANG',
        'SEALGATE_DIGEST',
        'SEALGATE_CLOCK',
        'PYTHONDONTWRITEBYTECODE',
        'PWD',
        'SHLVL',
        'OLDPWD',
        '_',
      ]);
      assert.deepEqual(
        names.filter((n) => !allowed.has(n)),
        [],
        o.env.join('\n'),
      );
      if (way === 'sealgate run') {
        const pub = await runCliIn(p, ['publish', '--runner-job', RUNNER]);
        assert.equal(pub.exit, 0, pub.stdout + pub.stderr);
        const published =
          readFileSync(join(p.repo.dir, 'review', 'logs', 'stdout.log'), 'utf8') +
          readFileSync(join(p.repo.dir, 'review', 'logs', 'stderr.log'), 'utf8');
        for (const v of Object.values(TOKENS)) assert.ok(!published.includes(v), 'a token is in the published logs');
      }
    } finally {
      await p.dispose();
    }
  });

  test(`${way}: the test cannot connect to a loopback port opened outside the sandbox`, async () => {
    const p = await makeProject();
    try {
      const o = await run(p);
      assert.ok(
        o.lines.some((l) => l.startsWith('noconnect ')),
        o.out,
      );
      assert.ok(!o.lines.includes('CONNECTED'));
      assert.equal(p.server.connections(), 0);
    } finally {
      await p.dispose();
    }
  });

  test(`${way}: a daemon started with setsid, and one that double-forks, are gone when the run ends and write nothing after`, async () => {
    const p = await makeProject();
    try {
      const review = treeHash(join(p.repo.dir, 'review'));
      await run(p);
      assert.deepEqual(daemons(), []);
      const after = treeHash(join(p.repo.dir, 'review'));
      await sleep(1500);
      assert.deepEqual(daemons(), []);
      assert.equal(treeHash(join(p.repo.dir, 'review')), after, 'review/ changed after the run ended');
      if (way === 'the credit step') assert.equal(after, review);
    } finally {
      await p.dispose();
    }
  });

  test(`${way}: files left in /tmp, HOME and the tree are absent from the next run; the working directory is ${SANDBOX_WORK} every time`, async () => {
    const p = await makeProject();
    try {
      const first = await run(p);
      const second = await run(p);
      for (const o of [first, second]) {
        for (const f of ['/tmp/left-behind', '/sealgate/home/left-behind', './left-behind'])
          assert.ok(o.lines.includes(`hidden ${f}`), `${f} in a run: ${o.out}`);
        assert.equal(o.cwd, SANDBOX_WORK);
      }
    } finally {
      await p.dispose();
    }
  });
}

test('the sealed run, the credit step and every mutant run see the same working directory', async () => {
  const p = await makeProject();
  try {
    const run = await viaRun(p);
    const results = JSON.parse(p.repo.read('review/runner/results.json')) as { cwd: string; sandbox: string };
    const credit = await viaCredit(p);
    assert.equal(results.cwd, SANDBOX_WORK);
    assert.equal(results.sandbox, 'bwrap');
    assert.equal(run.cwd, SANDBOX_WORK);
    assert.equal(credit.cwd, SANDBOX_WORK);
    assert.equal(credit.run.cwd, SANDBOX_WORK);
  } finally {
    await p.dispose();
  }
});

test('control: with sandbox "none" the same attack sees the repository and the install, and its daemon outlives the run (so the checks above can fail)', async () => {
  const p = await makeProject({ sandbox: 'none' }, true);
  try {
    // The attack appends to review/proposal.json here, so the run ends in E_INPUT_INVALID: that is the point.
    await runCliIn(p, ['run', '--runner-job', RUNNER]);
    const o = observe(p.repo.read('review/runner/logs/stdout.log'), null);
    assert.ok(o.lines.includes(`SEEN ${p.repo.dir}`), o.out);
    assert.ok(o.lines.includes(`WROTE ${join(p.repo.dir, 'review', 'proposal.json')}`), o.out);
    assert.ok(o.env.some((l) => l.startsWith('GITHUB_TOKEN=')) === false, 'the allowlist holds even unsandboxed');
    assert.ok(o.lines.includes(`SEEN ${join(packageRoot(), 'bin', 'sealgate.js')}`), o.out);
    assert.ok(daemons().length > 0, 'the unsandboxed daemon should survive');
    const journal = p.repo.read('review/runner/journal.jsonl');
    assert.match(journal, /"type":"run-start".*"sandbox":"none"/);
  } finally {
    await p.dispose();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

// The README's main job, end to end: the real commands on a copy of examples/pricing,
// author and runner as separate processes (separate OS users when root). Uses the build.
const built = existsSync('dist/bundle/all.cjs');

test(
  'npm start: the bundled example gives the spec trace, code by code',
  { skip: built ? false : 'no build in dist/ (run npm run build first)', timeout: 300_000 },
  () => {
    const r = spawnSync(process.execPath, ['scripts/example.mjs', '--json'], { encoding: 'utf8', timeout: 280_000 });
    const last = r.stdout.trim().split('\n').pop() ?? '';
    const summary = JSON.parse(last) as {
      work: string;
      report: string;
      users: number;
      results: { step: string; who: string; code: string }[];
      sandboxes: unknown[];
      credits: (string[] | null)[];
    };
    try {
      const code = (re: RegExp): string[] => summary.results.filter((x) => re.test(x.step)).map((x) => x.code);
      assert.deepEqual(
        code(/^the runner job: tree, seal/),
        ['E_CREDIT_MISSING'],
        'first proposal: the tautology earns nothing',
      );
      assert.deepEqual(code(/^verify: the full audit/), ['E_CREDIT_MISSING']);
      assert.deepEqual(
        code(/^reuse the first proposal id/),
        ['E_INPUT_INVALID'],
        'a follow-up needs a new proposal id',
      );
      assert.deepEqual(code(/^the runner job on the follow-up/), ['ALLOW'], 'the real bound on taxCents');
      assert.deepEqual(code(/^freeze naming the credit-bearing/), ['E_FREEZE_COVERS_CREDIT']);
      assert.deepEqual(code(/^freeze naming another test/), ['ok']);
      assert.deepEqual(code(/^verify with the freeze/), ['ALLOW']);
      assert.deepEqual(code(/^the author tries to file a freeze/), ['E_SHARED_JOB']);
      assert.deepEqual(code(/^reuse the author's id as the runner's/), ['E_SHARED_JOB']);
      assert.deepEqual(
        code(/^seal --verify after the fixture edit/),
        ['E_DIGEST_OPEN'],
        'the runner sees the drift and reopens the seal',
      );
      assert.deepEqual(
        code(/^verify after the fixture edit/),
        ['E_SIGNATURE_INVALID'],
        'the gate: the signed patch changed',
      );
      assert.deepEqual(code(/^try to read the logs before the seal/), ['E_DIGEST_OPEN']);
      assert.deepEqual(
        code(/^verify checks the signatures/),
        ['ALLOW'],
        'the runner and the reviewer signed; verify checked both',
      );
      assert.deepEqual(code(/^verify after the forged credit/), ['E_SIGNATURE_INVALID']);
      if (summary.users === 2)
        assert.deepEqual(code(/hidden log store/), ['denied'], 'the author (uid 65534) cannot read the hidden store');
      else
        process.stderr.write(
          'example: author and runner ran as one OS user (not root, or uid 65534 cannot read the checkout): the log barrier between users was not exercised\n',
        );
      if (process.getuid?.() === 0 && summary.users !== 2)
        process.stderr.write('example: running as root, but uid 65534 cannot read this checkout\n');
      assert.deepEqual(summary.credits, [
        ['src/pricing.ts::applyDiscount'],
        ['src/pricing.ts::applyDiscount', 'src/pricing.ts::taxCents'],
      ]);
      // The drift step: the runner's seal --verify reopened the seal and deleted the credit; the gate's report names the changed signed patch.
      assert.equal(existsSync(`${summary.work}/pricing/review/runner/credit.json`), false);
      assert.match(readFileSync(summary.report, 'utf8'), /E_SIGNATURE_INVALID/);
      // Both runner jobs ran every test inside the sandbox, at the same working directory.
      const boxed = { run: 'bwrap', cwd: '/sealgate/work', credit: 'bwrap' };
      assert.deepEqual(summary.sandboxes, [boxed, boxed]);
      assert.equal(r.status, 0, r.stdout.slice(-2000) + r.stderr.slice(-2000));
    } finally {
      rmSync(summary.work, { recursive: true, force: true });
    }
  },
);

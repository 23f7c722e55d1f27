import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { LAYOUT } from '../../src/core/layout.js';
import { runCli } from '../helpers/cli.js';
import {
  AUTHOR,
  FLAKE,
  NOW,
  PROP_DISCOUNT,
  PROP_TAX,
  RUNNER,
  proposedAndSealed,
  verify,
  writeScoring,
} from './review.js';

const LATER = '2026-10-19T00:00:00Z';

async function freeze(dir: string, author: string, testId: string, expires = LATER) {
  const r = await runCli(
    ['freeze', '--repo', dir, '--author-job', author, '--test-id', testId, '--expires-at', expires, '--now', NOW],
    { cwd: dir },
  );
  return { code: r.stdout.trim(), exit: r.exit, stderr: r.stderr, written: existsSync(join(dir, LAYOUT.freeze)) };
}

test('freeze: refuses with the gate code and writes nothing; a good one is written and verify ALLOWs', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    const covers = await freeze(r.dir, 'reviewer-job-2', PROP_DISCOUNT);
    assert.deepEqual([covers.code, covers.written], ['E_FREEZE_COVERS_CREDIT', false], covers.stderr);
    const byAuthor = await freeze(r.dir, AUTHOR, FLAKE);
    assert.deepEqual([byAuthor.code, byAuthor.written], ['E_SHARED_JOB', false]);
    const byRunner = await freeze(r.dir, RUNNER.toUpperCase(), FLAKE);
    assert.deepEqual([byRunner.code, byRunner.written], ['E_SHARED_JOB', false], 'job ids are case-insensitive');
    const expired = await freeze(r.dir, 'reviewer-job-2', FLAKE, NOW);
    assert.deepEqual([expired.code, expired.written], ['E_FREEZE_EXPIRED', false]);
    const good = await freeze(r.dir, 'reviewer-job-2', FLAKE);
    assert.equal(good.exit, 0, good.stderr);
    assert.match(good.code, /^fz-[0-9a-f]{12}$/);
    const written = JSON.parse(readFileSync(join(r.dir, LAYOUT.freeze), 'utf8')) as Record<string, string>;
    assert.equal(written['runner_digest'], r.digest);
    assert.equal(written['credit_id'], 'credit-property');
    assert.equal(written['runner_job'], RUNNER);
    assert.equal(written['test_id'], FLAKE);
    assert.equal((await verify(r.dir)).code, 'ALLOW');
    // After expiry the same freeze makes verify reject.
    assert.equal((await verify(r.dir, '2026-10-19T00:00:00Z')).code, 'E_FREEZE_EXPIRED');
  } finally {
    r.dispose();
  }
});

test('freeze: does not repair missing credit', async () => {
  const r = await proposedAndSealed();
  try {
    assert.deepEqual(Object.values(await freeze(r.dir, 'reviewer-job-2', FLAKE)).slice(0, 2), ['E_CREDIT_MISSING', 1]);
    writeScoring(r, 'tautology');
    const f = await freeze(r.dir, 'reviewer-job-2', FLAKE);
    assert.deepEqual([f.code, f.written], ['E_CREDIT_MISSING', false]);
  } finally {
    r.dispose();
  }
});

test('freeze: bad arguments are usage errors', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    for (const argv of [
      ['--test-id', FLAKE, '--expires-at', LATER],
      ['--author-job', 'x y', '--test-id', FLAKE, '--expires-at', LATER],
      ['--author-job', 'rev', '--test-id', FLAKE, '--expires-at', '2026-10-19'],
      ['--author-job', 'rev', '--expires-at', LATER],
    ]) {
      const out = await runCli(['freeze', '--repo', r.dir, ...argv], { cwd: r.dir });
      assert.deepEqual([out.stdout.trim(), out.exit], ['E_INPUT_INVALID', 2], argv.join(' '));
    }
    assert.equal(existsSync(join(r.dir, LAYOUT.freeze)), false);
  } finally {
    r.dispose();
  }
});

// The invariant: `freeze` writes a file exactly when the gate, reading that file, would
// ALLOW; when it refuses, its code is the one the gate gives for that freeze.
test('property: freeze never writes a freeze the gate would reject', async () => {
  const r = await proposedAndSealed();
  try {
    const authors = [AUTHOR, RUNNER, 'reviewer-job-2', 'Reviewer-Job-3'];
    const tests = [PROP_DISCOUNT, FLAKE, PROP_TAX, 'some other test'];
    const expiries = ['2026-10-11T12:00:00Z', NOW, '2026-10-12T12:00:00.000000001Z', LATER];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...authors),
        fc.constantFrom(...tests),
        fc.constantFrom(...expiries),
        fc.boolean(),
        async (author, testId, expires, passing) => {
          rmSync(join(r.dir, LAYOUT.freeze), { force: true });
          writeScoring(r, passing ? 'property' : 'tautology');
          const f = await freeze(r.dir, author, testId, expires);
          if (f.written) {
            assert.equal(f.exit, 0);
            const gate = await runCli(
              [
                'gate',
                '--repo',
                r.dir,
                '--record',
                join(r.dir, LAYOUT.record),
                '--credit',
                join(r.dir, LAYOUT.credit),
                '--freeze',
                join(r.dir, LAYOUT.freeze),
                '--now',
                NOW,
              ],
              { cwd: r.dir },
            );
            assert.equal(gate.stdout.trim(), 'ALLOW');
            assert.equal((await verify(r.dir)).code, 'ALLOW');
          } else {
            assert.notEqual(f.code, 'ALLOW');
            assert.equal(f.exit, 1);
            const expected = [AUTHOR, RUNNER].some((j) => j.toLowerCase() === author.toLowerCase())
              ? 'E_SHARED_JOB'
              : !passing
                ? 'E_CREDIT_MISSING'
                : testId === PROP_DISCOUNT || testId === PROP_TAX
                  ? 'E_FREEZE_COVERS_CREDIT'
                  : 'E_FREEZE_EXPIRED';
            assert.equal(f.code, expected, `${author} ${testId} ${expires} ${String(passing)}`);
          }
        },
      ),
      { numRuns: 24, seed: 7 },
    );
  } finally {
    r.dispose();
  }
});

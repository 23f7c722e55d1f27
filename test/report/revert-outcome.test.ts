import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toJsonText } from '../../src/core/json.js';
import { LAYOUT } from '../../src/core/layout.js';
import { propertyCredit } from '../../src/credit/score/rule.js';
import type { Evidence } from '../../src/credit/schema.js';
import { flaggedSymbols } from '../../src/report/model.js';
import { runCli } from '../helpers/cli.js';
import { NOW, RUNNER, proposedAndSealed } from '../workflow/review.js';

// What the runner showed per modified symbol reaches the reviewer: the kill behind the credit
// (a revert kill over an earlier behavioural one), and whether the revert was killed or
// survived. A credited symbol whose revert survived is the default policy's flag.
test("explain shows each symbol's revert outcome, and the kill behind the credit first", async () => {
  const r = await proposedAndSealed();
  try {
    const [fixed, refactor, added, renamed] = [
      'src/a.ts::fixed',
      'src/a.ts::refactored',
      'src/a.ts::added',
      'src/a.ts::renamed',
    ];
    const symbols = [fixed, refactor, added, renamed];
    const [t1, t2] = ['test/a.test.ts::tells the fix', 'test/a.test.ts::old behaviour'];
    const cases = [t1, t2].map((id) => ({
      id,
      digest: r.digest,
      kind: 'property' as const,
      status: 'passed' as const,
      symbols,
    }));
    const evidence: Record<string, Evidence> = {
      [fixed]: {
        status: 'credited',
        change: 'modified',
        reached: [t1, t2],
        insensitive: [],
        tautologies: [],
        killed: [
          { test: t2, mutant: `${fixed}#delete@3:1`, kind: 'behavioural' },
          { test: t1, mutant: `${fixed}#revert`, kind: 'revert' },
        ],
        credited_by: { test: t1, mutant: `${fixed}#revert`, kind: 'revert' },
        revert: { outcome: 'killed', killed_by: [t1] },
      },
      [refactor]: {
        status: 'credited',
        change: 'modified',
        reached: [t2],
        insensitive: [],
        tautologies: [],
        killed: [{ test: t2, mutant: `${refactor}#delete@9:1`, kind: 'behavioural' }],
        credited_by: { test: t2, mutant: `${refactor}#delete@9:1`, kind: 'behavioural' },
        revert: { outcome: 'survived', killed_by: [], detail: 'every reaching test passes on the base version too' },
      },
      [added]: {
        status: 'credited',
        change: 'added',
        reached: [t1],
        insensitive: [],
        tautologies: [],
        killed: [{ test: t1, mutant: `${added}#m1`, kind: 'behavioural' }],
        revert: { outcome: 'none', killed_by: [], detail: 'an added symbol has no base version' },
      },
      // Its base version names a constant the patch renamed: the revert could not run, which shows nothing either.
      [renamed]: {
        status: 'credited',
        change: 'modified',
        reached: [t1],
        insensitive: [],
        tautologies: [],
        killed: [{ test: t1, mutant: `${renamed}#negate@4:1`, kind: 'behavioural' }],
        credited_by: { test: t1, mutant: `${renamed}#negate@4:1`, kind: 'behavioural' },
        revert: {
          outcome: 'invalid',
          killed_by: [],
          detail: 'it refers to SCALE, which the file no longer declares at its top level',
        },
      },
    };
    writeFileSync(
      join(r.dir, LAYOUT.cases),
      toJsonText({ changed: symbols, cases, digest: r.digest, runner_job: RUNNER }),
    );
    const credit = propertyCredit('credit-revert', symbols, cases, r.digest);
    writeFileSync(
      join(r.dir, LAYOUT.credit),
      toJsonText({
        ...credit,
        runner_job: RUNNER,
        proposal_id: 'p-2026-10-12-014',
        patch_sha256: r.patchSha256,
        changed: symbols,
        uncreditable: [],
        evidence,
        sandbox: 'bwrap',
      }),
    );
    const out = async (format: string) =>
      (await runCli(['explain', '--repo', r.dir, '--now', NOW, '--format', format], { cwd: r.dir })).stdout;
    const text = await out('text');
    assert.match(
      text,
      /credited src\/a\.ts::fixed[^\n]*\n +decisive: mutant revert killed by test\/a\.test\.ts::tells the fix\n +revert: killed by test\/a\.test\.ts::tells the fix: the tests tell the patch from the base version\n/,
    );
    assert.match(
      text,
      /credited src\/a\.ts::refactored[^\n]*\n +decisive: mutant delete@9:1 killed by test\/a\.test\.ts::old behaviour\n +revert: SURVIVED: every reaching test passes on the base version too/,
    );
    assert.match(
      text,
      /credited src\/a\.ts::added[^\n]*\n +decisive: mutant m1 killed by test\/a\.test\.ts::tells the fix\n +revert: none: an added symbol has no base version\n/,
    );
    // The audit's credit line carries the flag, once, naming the symbol.
    assert.match(
      text,
      /credited src\/a\.ts::renamed[^\n]*\n +decisive: mutant negate@4:1 killed by test\/a\.test\.ts::tells the fix\n +revert: INVALID: it refers to SCALE/,
    );
    assert.match(
      text,
      /\n {2}WARN credit {2}credit credit-revert [^\n]*; FLAGGED: 2 credited symbol\(s\) whose revert survived \(their tests pass on the base version too\) or could not run: src\/a\.ts::refactored, src\/a\.ts::renamed\n/,
    );
    const md = await out('md');
    assert.match(md, /`src\/a\.ts::refactored` \|[^\n]*revert \*\*survived\*\*/);
    assert.match(md, /`src\/a\.ts::fixed` \|[^\n]*revert killed/);
    assert.match(md, /`src\/a\.ts::renamed` \|[^\n]*revert \*\*invalid\*\*/);
    const html = await out('html');
    assert.match(html, /<strong>revert: SURVIVED: every reaching test passes on the base version too/);
    assert.match(html, /<strong>revert: INVALID: it refers to SCALE/);
  } finally {
    r.dispose();
  }
});

test("flaggedSymbols: credited symbols whose revert survived or could not run (invalid), in the credit's order; never a missing one, nor one without a revert", () => {
  const ev = (outcome: 'killed' | 'survived' | 'none' | 'invalid') => ({ revert: { outcome, killed_by: [] } });
  assert.deepEqual(
    flaggedSymbols({
      credited: ['b', 'a', 'c', 'd'],
      evidence: { a: ev('survived'), b: ev('survived'), c: ev('killed'), d: ev('none'), e: ev('survived') },
    }),
    ['b', 'a'],
  );
  // An invalid revert (the base version names what the patch took away) shows nothing either: a patch cannot shed the flag by it.
  assert.deepEqual(flaggedSymbols({ credited: ['a', 'b'], evidence: { a: ev('invalid'), b: ev('killed') } }), ['a']);
  assert.deepEqual(flaggedSymbols({ credited: ['a'] }), []);
  assert.deepEqual(flaggedSymbols({ credited: [], evidence: { a: ev('survived') } }), []);
});

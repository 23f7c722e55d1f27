import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo, type Scoring } from '../helpers/oracle.js';

// With fewer symbols than workers the probes run whole beside the first control, and no trace
// runs (it only narrows the probes): the same reach, kills and credit as tracing first.
describe('early probes: one symbol on two workers', { concurrency: false }, () => {
  const { text, spans } = layout({
    clamp: [
      'export function clamp(x, lo, hi) {',
      '  if (x < lo) return lo;',
      '  if (x > hi) return hi;',
      '  return x;',
      '}',
    ],
  });
  const tests = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clamp } from '../src/calc.mjs';
test('clamps both ends', () => { assert.equal(clamp(-1, 0, 10), 0); assert.equal(clamp(11, 0, 10), 10); assert.equal(clamp(5, 0, 10), 5); });
test('swallows what clamp throws', () => { try { clamp(1, 0, 2); } catch {} assert.ok(true); });
`;
  const other = `import { test } from 'node:test';
import assert from 'node:assert/strict';
test('never calls clamp', () => { assert.equal(1 + 1, 2); });
`;
  const command = [
    'node',
    '--test',
    '--test-reporter=junit',
    '--test-reporter-destination=junit.xml',
    'test/calc.test.mjs',
    'test/other.test.mjs',
  ];
  let repo: { dir: string; dispose: () => void };
  let early: Scoring;
  let traced: Scoring;
  before(async () => {
    repo = makeRepo({
      'src/calc.mjs': text,
      'test/calc.test.mjs': tests,
      'test/other.test.mjs': other,
      '.gitignore': 'node_modules\njunit.xml\n',
    });
    symlinkSync(resolve('node_modules'), join(repo.dir, 'node_modules'), 'dir');
    early = await scoreRepo(repo.dir, 'src/calc.mjs', 'javascript', spans, command, { byName: false });
    traced = await scoreRepo(repo.dir, 'src/calc.mjs', 'javascript', spans, command, {
      byName: false,
      earlyProbes: false,
    });
  });
  after(() => repo.dispose());
  // node:test's JUnit report names no file: the id is the suite chain and the name.
  const CLAMPS = '::clamps both ends';
  const ev = (s: Scoring) => s.scored.credit.evidence?.['src/calc.mjs::clamp'];

  it('early: the probe ran whole (no trace narrowed it); traced first: it ran on the traced file only', () => {
    assert.deepEqual(early.probeTargets, []);
    assert.deepEqual(
      traced.probeTargets.map((t) => [...t]),
      [['test/calc.test.mjs']],
    );
  });
  it('the same tests reach it (the test that swallows the throw and the one that never calls it do not), the same credit', () => {
    assert.deepEqual(ev(early)?.reached, [CLAMPS]);
    assert.deepEqual(ev(early)?.reached, ev(traced)?.reached);
    assert.deepEqual(early.scored.credit.credited, ['src/calc.mjs::clamp']);
    assert.deepEqual(early.scored.credit.credited, traced.scored.credit.credited);
    assert.deepEqual(early.scored.credit.test_ids, traced.scored.credit.test_ids);
  });
  it('the probe is in the evidence as a run that happened, killed by the reaching test', () => {
    const probe = ev(early)?.mutants?.find((m) => m.kind === 'probe');
    assert.equal(probe?.outcome, 'killed');
    assert.deepEqual(probe?.killed_by, [CLAMPS]);
  });
});

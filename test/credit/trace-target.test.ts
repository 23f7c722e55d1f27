import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo, type Scoring } from '../helpers/oracle.js';
import { toFailures, toReach } from '../../src/credit/oracle.js';
import type { TestRun } from '../../src/credit/workspace.js';

// The trace narrows each probe to the test files that entered its symbol. A target that is not a
// test file (the main script of a vitest or jest worker) must never narrow a probe to nothing, and
// a run whose report holds no case ran nothing: it is no evidence that a probe failed no test.

describe('trace targets', () => {
  const known = new Set(['test/a.test.ts', 'tests/test_a.py']);
  it('a runner file the trace recorded says "entered, test unknown" (the whole command), never a target', () => {
    const r = toReach(['s', 't'], ['s\tnode_modules/vitest/dist/workers/forks.js', 't\ttest/a.test.ts'], known);
    assert.equal(r.get('s'), null);
    assert.deepEqual([...(r.get('t') ?? [])], ['test/a.test.ts']);
  });
  it('a known target and an unknown one for one symbol: unknown wins', () => {
    const r = toReach(['s'], ['s\ttest/a.test.ts', 's\tnode_modules/.bin/jest'], known);
    assert.equal(r.get('s'), null);
  });
  it('a pytest node id counts by its file; an empty target and an unlisted symbol as before', () => {
    const r = toReach(['s', 'u', 'v'], ['s\ttests/test_a.py::test_x[1-2]', 'u\t', 'w\ttest/a.test.ts', 'garbage'], known);
    assert.deepEqual([...(r.get('s') ?? [])], ['tests/test_a.py::test_x[1-2]']);
    assert.equal(r.get('u'), null);
    assert.deepEqual([...(r.get('v') ?? [])], []);
    assert.equal(r.has('w'), false);
  });
});

describe('a report without a case', () => {
  const run = (cases: TestRun['cases']): TestRun => ({ status: 'ok', detail: 'exit status 1', durationMs: 1, cases, cwd: '/sealgate/work', trace: null, exitCode: 1 });
  it('is not a run that failed no test (vitest "No test files found" writes an empty report)', () => {
    const r = toFailures(run([]), ['test/a.test.ts::a'], '/sealgate/work', ['vitest', 'run', 'x'], () => ['test/a.test.ts']);
    assert.equal(r.status, 'crash');
    assert.match(r.detail, /no test case/);
    assert.deepEqual(r.failed, []);
  });
  it('one case is a run', () => {
    const r = toFailures(run([{ id: 'test/a.test.ts::a', file: 'test/a.test.ts', suite: '', name: 'a', status: 'passed', duration_ms: 1 }]), ['test/a.test.ts::a'], '/sealgate/work', ['vitest', 'run'], () => ['test/a.test.ts']);
    assert.equal(r.status, 'ok');
  });
});

describe('vitest without globals, in the sandbox: the probe runs the test file that calls the symbol', { concurrency: false }, () => {
  const { text, spans } = layout({
    clampPercent: ['export function clampPercent(p: number): number {', '  return Math.min(100, Math.max(0, p));', '}'],
    discounted: ['export function discounted(cents: number, p: number): number {', '  return Math.round((cents * (100 - clampPercent(p))) / 100);', '}'],
  });
  let repo: { dir: string; dispose: () => void };
  let s: Scoring;
  before(async () => {
    repo = makeRepo({
      'package.json': '{"name":"vt","private":true,"type":"module"}\n',
      'src/price.ts': text,
      'test/price.test.ts': "import { describe, expect, it } from 'vitest';\nimport { clampPercent } from '../src/price';\n\ndescribe('price', () => {\n  it('clamps', () => {\n    expect(clampPercent(-5)).toBe(0);\n    expect(clampPercent(150)).toBe(100);\n    expect(clampPercent(40)).toBe(40);\n  });\n});\n",
      'test/discount.test.ts': "import { expect, test } from 'vitest';\nimport { discounted } from '../src/price';\n\ntest('discounts', () => {\n  expect(discounted(1000, 10)).toBe(900);\n  expect(discounted(1000, 150)).toBe(0);\n  expect(discounted(1000, -5)).toBe(1000);\n});\n",
      '.gitignore': 'node_modules\njunit.xml\n',
    });
    symlinkSync(join(resolve('.'), 'node_modules'), join(repo.dir, 'node_modules'), 'dir');
    s = await scoreRepo(repo.dir, 'src/price.ts', 'typescript', spans, ['node_modules/.bin/vitest', 'run', '--reporter=junit', '--outputFile.junit=junit.xml']);
  });
  after(() => repo.dispose());

  it('each probe is narrowed to the test files that entered its symbol (no worker script)', () => {
    assert.deepEqual([...s.probeTargets].map((t) => [...t].sort().join(',')).sort(), ['test/discount.test.ts', 'test/discount.test.ts,test/price.test.ts']);
  });
  it('the probes fail the tests that reach each symbol, and both symbols are credited', () => {
    assert.deepEqual(s.scored.credit.evidence?.['src/price.ts::discounted']?.reached, ['test/discount.test.ts::::discounts']);
    assert.deepEqual(s.scored.credit.credited, ['src/price.ts::clampPercent', 'src/price.ts::discounted']);
  });
});

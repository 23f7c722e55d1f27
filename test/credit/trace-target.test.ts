import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo, type Scoring } from '../helpers/oracle.js';
import { fileOfTarget, toReach } from '../../src/credit/runs/trace.js';
import { toFailures } from '../../src/credit/oracle/judge.js';
import { testsOfTargetsFor } from '../../src/credit/plan/narrowing.js';
import type { CaseSource } from '../../src/credit/tests/match.js';
import type { TestRun } from '../../src/credit/runs/test-run.js';

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
  it('a file and a test name (jest, vitest) counts by its file; a name after a runner file is still unknown', () => {
    const r = toReach(['s', 't'], ['s\ttest/a.test.ts\t"d > x::y"', 't\tnode_modules/.bin/jest\t"x"'], known);
    assert.deepEqual([...(r.get('s') ?? [])], ['test/a.test.ts\t"d > x::y"']);
    assert.equal(r.get('t'), null);
    assert.equal(fileOfTarget('test/a.test.ts\t"d > x::y"'), 'test/a.test.ts');
    assert.equal(fileOfTarget('tests/test_a.py::test_x'), 'tests/test_a.py');
  });
  it('a pytest node id counts by its file; an empty target and an unlisted symbol as before', () => {
    const r = toReach(
      ['s', 'u', 'v'],
      ['s\ttests/test_a.py::test_x[1-2]', 'u\t', 'w\ttest/a.test.ts', 'garbage'],
      known,
    );
    assert.deepEqual([...(r.get('s') ?? [])], ['tests/test_a.py::test_x[1-2]']);
    assert.equal(r.get('u'), null);
    assert.deepEqual([...(r.get('v') ?? [])], []);
    assert.equal(r.has('w'), false);
  });
});

describe('the trace names jest and vitest tests by file and name', () => {
  const source = (file: string): CaseSource => ({ verdict: null, files: [file], nodeIds: [] });
  const cases = new Map([
    ['test/a.test.ts::d > x', { suite: 'd', name: 'x' }],
    ['test/a.test.ts::d > x y', { suite: 'd', name: 'x y' }],
    ['test/a.test.ts::d x > y', { suite: 'd x', name: 'y' }],
    ['test/a.test.ts::e > (1 + 1) * $x', { suite: 'e', name: '(1 + 1) * $x' }],
    ['test/b.test.ts::d > x', { suite: 'd', name: 'x' }],
    ['test/a.test.ts:: padded', { suite: '', name: ' padded' }],
  ]);
  const sources = new Map([...cases.keys()].map((id) => [id, source(id.split('::')[0] as string)]));
  const all = [...cases.keys()];
  const exact = all.filter((t) => !t.includes('padded'));
  const by = (kind: 'vitest' | 'jest' | 'node-test' | 'pytest') => testsOfTargetsFor(sources, cases, kind);
  it("a name as vitest gives it (levels joined by ' > ') or as jest does (by spaces) is the one test of that file", () => {
    assert.deepEqual(by('vitest')(['test/a.test.ts\t"d > x"', 'test/b.test.ts\t"d > x"'], exact), [
      'test/a.test.ts::d > x',
      'test/b.test.ts::d > x',
    ]);
    assert.deepEqual(by('jest')(['test/a.test.ts\t"e (1 + 1) * $x"'], exact), ['test/a.test.ts::e > (1 + 1) * $x']);
    // a pytest node id alongside, as before
    assert.equal(by('vitest')(['tests/test_a.py::t'], exact), null);
  });
  it('a jest or vitest test file alone (entered while it loaded) is every usable test of that file, padded names too; node:test and pytest leave it to the probe', () => {
    const inA = all.filter((t) => t.startsWith('test/a.test.ts::')).sort();
    assert.deepEqual(by('vitest')(['test/a.test.ts'], all), inA);
    assert.deepEqual(
      by('jest')(['test/a.test.ts'], exact),
      inA.filter((t) => !t.includes('padded')),
    );
    // with a named test of another file: both
    assert.deepEqual(
      by('vitest')(['test/a.test.ts', 'test/b.test.ts\t"d > x"'], exact),
      [...inA.filter((t) => !t.includes('padded')), 'test/b.test.ts::d > x'].sort(),
    );
    // only the usable ones: a file none of whose tests is usable adds nothing
    assert.deepEqual(by('vitest')(['test/a.test.ts'], ['test/a.test.ts::d > x']), ['test/a.test.ts::d > x']);
    assert.deepEqual(by('vitest')(['test/a.test.ts'], ['test/b.test.ts::d > x']), []);
    assert.equal(by('node-test')(['test/a.test.ts'], exact), null);
    assert.equal(by('pytest')(['test/a.test.ts'], exact), null);
  });
  it('in doubt the probe runs (null): a name two tests could have, a name no usable test has, a bad name, a test of the file that cannot be named exactly, another runner', () => {
    // jest's "d x y" is "d > x y" or "d x > y"
    assert.equal(by('jest')(['test/a.test.ts\t"d x y"'], exact), null);
    assert.equal(by('vitest')(['test/a.test.ts\t"d > z"'], exact), null);
    assert.equal(
      by('vitest')(
        ['test/a.test.ts\t"d > x"'],
        exact.filter((t) => t !== 'test/a.test.ts::d > x'),
      ),
      null,
    );
    for (const bad of ['test/a.test.ts\t""', 'test/a.test.ts\td > x', 'test/a.test.ts\t1'])
      assert.equal(by('vitest')([bad], exact), null, bad);
    assert.equal(
      by('vitest')(['test/a.test.ts\t"d > x"'], all),
      null,
      'a padded name in the same file cannot be matched: it might be the one',
    );
    assert.equal(by('node-test')(['test/a.test.ts\t"d > x"'], exact), null);
    assert.equal(by('pytest')(['test/a.test.ts\t"d > x"'], exact), null);
  });
});

describe('a report without a case', () => {
  const run = (cases: TestRun['cases']): TestRun => ({
    status: 'ok',
    detail: 'exit status 1',
    durationMs: 1,
    cases,
    cwd: '/sealgate/work',
    trace: null,
    exitCode: 1,
  });
  it('is not a run that failed no test (vitest "No test files found" writes an empty report)', () => {
    const r = toFailures(run([]), ['test/a.test.ts::a'], '/sealgate/work', ['vitest', 'run', 'x'], () => [
      'test/a.test.ts',
    ]);
    assert.equal(r.status, 'crash');
    assert.match(r.detail, /no test case/);
    assert.deepEqual(r.failed, []);
  });
  it('one case is a run', () => {
    const r = toFailures(
      run([
        { id: 'test/a.test.ts::a', file: 'test/a.test.ts', suite: '', name: 'a', status: 'passed', duration_ms: 1 },
      ]),
      ['test/a.test.ts::a'],
      '/sealgate/work',
      ['vitest', 'run'],
      () => ['test/a.test.ts'],
    );
    assert.equal(r.status, 'ok');
  });
});

describe(
  'vitest without globals, in the sandbox: the probe runs the test file that calls the symbol',
  { concurrency: false },
  () => {
    const { text, spans } = layout({
      clampPercent: [
        'export function clampPercent(p: number): number {',
        '  return Math.min(100, Math.max(0, p));',
        '}',
      ],
      discounted: [
        'export function discounted(cents: number, p: number): number {',
        '  return Math.round((cents * (100 - clampPercent(p))) / 100);',
        '}',
      ],
    });
    let repo: { dir: string; dispose: () => void };
    let s: Scoring;
    before(async () => {
      repo = makeRepo({
        'package.json': '{"name":"vt","private":true,"type":"module"}\n',
        'src/price.ts': text,
        'test/price.test.ts':
          "import { describe, expect, it } from 'vitest';\nimport { clampPercent } from '../src/price';\n\ndescribe('price', () => {\n  it('clamps', () => {\n    expect(clampPercent(-5)).toBe(0);\n    expect(clampPercent(150)).toBe(100);\n    expect(clampPercent(40)).toBe(40);\n  });\n});\n",
        'test/discount.test.ts':
          "import { expect, test } from 'vitest';\nimport { discounted } from '../src/price';\n\ntest('discounts', () => {\n  expect(discounted(1000, 10)).toBe(900);\n  expect(discounted(1000, 150)).toBe(0);\n  expect(discounted(1000, -5)).toBe(1000);\n});\n",
        '.gitignore': 'node_modules\njunit.xml\n',
      });
      symlinkSync(join(resolve('.'), 'node_modules'), join(repo.dir, 'node_modules'), 'dir');
      // The trace's test names would make probes unneeded (narrow-real.test.ts): here the probes run, narrowed by the traced files.
      s = await scoreRepo(
        repo.dir,
        'src/price.ts',
        'typescript',
        spans,
        ['node_modules/.bin/vitest', 'run', '--reporter=junit', '--outputFile.junit=junit.xml'],
        { traceReach: false },
      );
    });
    after(() => repo.dispose());

    it('each probe is narrowed to the test files that entered its symbol (no worker script)', () => {
      assert.deepEqual([...s.probeTargets].map((t) => [...t].sort().join(',')).sort(), [
        'test/discount.test.ts',
        'test/discount.test.ts,test/price.test.ts',
      ]);
    });
    it('the probes fail the tests that reach each symbol, and both symbols are credited', () => {
      assert.deepEqual(s.scored.credit.evidence?.['src/price.ts::discounted']?.reached, [
        'test/discount.test.ts::::discounts',
      ]);
      assert.deepEqual(s.scored.credit.credited, ['src/price.ts::clampPercent', 'src/price.ts::discounted']);
    });
  },
);

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo } from '../helpers/oracle.js';

/** The baseline run, the oracle and the scoring, as `sealgate credit` does them (test/helpers/oracle.ts), narrowed by file. */
async function score(
  repo: string,
  path: string,
  language: string,
  spans: Record<string, [number, number]>,
  command: string[],
  budget = 4,
) {
  return (await scoreRepo(repo, path, language, spans, command, { budget, byName: false })).scored;
}

const byName = (ids: readonly string[]): string[] => ids.map((i) => i.split('::').at(-1) as string).sort();

describe('the oracle on tests that look strong but cannot notice a change (node:test)', { concurrency: false }, () => {
  const { text, spans } = layout({
    double: ['export function double(x) {', '  return x * 2;', '}'],
    half: ['export function half(x) {', '  return x / 2;', '}'],
    clamp: [
      'export function clamp(x, lo, hi) {',
      '  if (x < lo) return lo;',
      '  if (x > hi) return hi;',
      '  return x;',
      '}',
    ],
    inc: ['export function inc(x) {', '  return x + 1;', '}'],
    area: ['export function area(w, h) {', '  return w * h;', '}'],
    noop: ['export function noop() {', '}'],
    sign: ['export function sign(x) {', '  return x < 0 ? -1 : 1;', '}'],
    total: [
      'export function total(items) {',
      '  let sum = 0;',
      '  for (const i of items) sum += i.cents * i.qty;',
      '  return sum;',
      '}',
    ],
  });
  const tests = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { double, half, clamp, inc, noop, sign, total } from '../src/calc.mjs';

test('double gives a number', () => { assert.equal(typeof double(3), 'number'); });
test('half is not null', () => { assert.notEqual(half(4), null); assert.ok(half(4) !== undefined); });
test('clamp does not throw', () => { assert.doesNotThrow(() => clamp(5, 0, 10)); });
test('inc property with an impossible precondition', () => {
  fc.assert(fc.property(fc.integer(), (n) => { const r = inc(n); if (n > 10 && n < 5) assert.equal(r, n + 1); }), { numRuns: 50, seed: 1 });
});
test('area through a stand-in of itself', () => { const area = (w, h) => w * h; assert.equal(area(2, 3), 6); });
test('noop returns nothing', () => { assert.equal(noop(), undefined); });
test('sign of both sides', () => { assert.equal(sign(-5), -1); assert.equal(sign(5), 1); assert.equal(sign(0), 1); });
test('sign tautology', () => { const s = sign(3); assert.equal(s, s); });
test('total of a cart', () => { assert.equal(total([{ cents: 250, qty: 2 }, { cents: 100, qty: 1 }]), 600); });
`;
  let repo: { dir: string; dispose: () => void };
  let scored: Awaited<ReturnType<typeof score>>;
  before(async () => {
    repo = makeRepo({ 'src/calc.mjs': text, 'test/calc.test.mjs': tests, '.gitignore': 'node_modules\njunit.xml\n' });
    symlinkSync(resolve('node_modules'), join(repo.dir, 'node_modules'), 'dir');
    scored = await score(repo.dir, 'src/calc.mjs', 'javascript', spans, [
      'node',
      '--test',
      '--test-reporter=junit',
      '--test-reporter-destination=junit.xml',
      'test/calc.test.mjs',
    ]);
  });
  after(() => repo.dispose());
  const ev = (n: string) => scored.credit.evidence?.[`src/calc.mjs::${n}`];

  it('credits real tests: sign, total, and noop (empty body) by its probe', () => {
    assert.deepEqual(scored.credit.credited, ['src/calc.mjs::noop', 'src/calc.mjs::sign', 'src/calc.mjs::total']);
    assert.equal(ev('noop')?.status, 'credited-by-probe');
    assert.equal(ev('sign')?.status, 'credited');
    assert.deepEqual(byName(scored.credit.test_ids), ['noop returns nothing', 'sign of both sides', 'total of a cart']);
  });
  for (const [sym, test] of [
    ['double', 'double gives a number'],
    ['half', 'half is not null'],
    ['clamp', 'clamp does not throw'],
  ] as const) {
    it(`${sym}: "${test}" checks only a type, non-null or no throw: it reaches it, earns nothing, and is a weak-assertion tautology`, () => {
      assert.equal(ev(sym)?.status, 'missing');
      assert.deepEqual(byName(ev(sym)?.reached ?? []), [test]);
      assert.deepEqual(byName(ev(sym)?.tautologies ?? []), [test]);
      assert.equal(scored.cases.cases.find((c) => c.id.endsWith(test))?.rule, 'weak-assertion');
      assert.match(ev(sym)?.reason ?? '', /tautolog/);
    });
  }
  it('inc: "inc property with an impossible precondition" reaches it but is insensitive, so it is missing', () => {
    const test = 'inc property with an impossible precondition';
    assert.equal(ev('inc')?.status, 'missing');
    assert.deepEqual(byName(ev('inc')?.reached ?? []), [test]);
    assert.deepEqual(byName(ev('inc')?.insensitive ?? []), [test]);
    assert.match(ev('inc')?.reason ?? '', /insensitive/);
  });
  it('area: a stand-in of the function under test never reaches it', () => {
    assert.equal(ev('area')?.status, 'missing');
    assert.deepEqual(ev('area')?.reached, []);
    assert.match(ev('area')?.reason ?? '', /no test .* reaches it/);
  });
  it('the tautology of sign reached it, is recorded, and earns nothing', () => {
    assert.deepEqual(byName(ev('sign')?.tautologies ?? []), ['sign tautology']);
    assert.ok(!scored.credit.test_ids.some((t) => t.endsWith('sign tautology')));
    assert.equal(scored.cases.cases.find((c) => c.id.endsWith('sign tautology'))?.kind, 'tautology');
  });
  it('no behavioural mutant returns undefined or throws: a "does not throw" test kills none', () => {
    for (const m of ev('clamp')?.mutants ?? [])
      if (m.kind === 'behavioural') assert.notEqual(m.outcome, 'killed', m.id);
  });
});

describe('the oracle on pytest tests', { concurrency: false }, () => {
  const { text, spans } = layout({
    double: ['def double(x):', '    return x * 2'],
    area: ['def area(w, h):', '    return w * h'],
    sign: ['def sign(x):', '    return -1 if x < 0 else 1'],
    clamp: ['def clamp(x, lo, hi):', '    if x < lo:', '        return lo', '    return min(x, hi)'],
  });
  const tests = `from unittest import mock
from hypothesis import given, settings, strategies as st
from src import calc


def test_double_type():
    assert isinstance(calc.double(3), int)


def test_area_mocked():
    with mock.patch.object(calc, "area", return_value=6):
        assert calc.area(2, 3) == 6


def test_sign():
    assert calc.sign(-2) == -1
    assert calc.sign(2) == 1


@settings(max_examples=30, derandomize=True)
@given(st.integers(), st.integers(0, 10), st.integers(10, 20))
def test_clamp_bounds(x, lo, hi):
    r = calc.clamp(x, lo, hi)
    assert lo <= r <= hi
    if lo <= x <= hi:
        assert r == x


def test_sign_tautology():
    assert True
`;
  let repo: { dir: string; dispose: () => void };
  let scored: Awaited<ReturnType<typeof score>>;
  let oracle: Awaited<ReturnType<typeof scoreRepo>>['oracle'];
  const command = ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junitxml=junit.xml', 'tests'];
  before(async () => {
    repo = makeRepo({
      'src/__init__.py': '',
      'src/calc.py': text,
      'tests/test_calc.py': tests,
      '.gitignore': 'junit.xml\n',
    });
    ({ scored, oracle } = await scoreRepo(repo.dir, 'src/calc.py', 'python', spans, command, {
      budget: 2,
      byName: false,
    }));
  });
  after(() => repo.dispose());
  const ev = (n: string) => scored.credit.evidence?.[`src/calc.py::${n}`];

  it('credits the real tests (sign, clamp by a hypothesis property) and nothing else', () => {
    assert.deepEqual(scored.credit.credited, ['src/calc.py::clamp', 'src/calc.py::sign']);
    assert.deepEqual(byName(scored.credit.test_ids), ['test_clamp_bounds', 'test_sign']);
  });
  it('a type-only test reaches its symbol and earns nothing (a weak-assertion tautology)', () => {
    assert.ok(byName(ev('double')?.tautologies ?? []).includes('test_double_type'), JSON.stringify(ev('double')));
    assert.equal(ev('double')?.status, 'missing');
    assert.equal(scored.cases.cases.find((c) => c.id.endsWith('test_double_type'))?.rule, 'weak-assertion');
  });
  it('a mock of the function under test does not reach it', () => {
    assert.deepEqual(ev('area')?.reached, []);
  });
  it('assert True is a tautology', () => {
    assert.equal(scored.cases.cases.find((c) => c.id.endsWith('test_sign_tautology'))?.rule, 'constant-true');
  });
  it('four symbols on two workers: the trace names each reaching pytest test by node id, so no probe runs and the evidence says the reach came from the trace', () => {
    assert.equal(
      oracle?.probes.size,
      1,
      `only area (no test entered it) has a probe result, and that one never ran: ${JSON.stringify([...(oracle?.probes.keys() ?? [])])}`,
    );
    assert.match(oracle?.probes.get('src/calc.py::area')?.detail ?? '', /no test entered it/);
    for (const [sym, test] of [
      ['sign', 'test_sign'],
      ['clamp', 'test_clamp_bounds'],
      ['double', 'test_double_type'],
    ] as const) {
      assert.equal(ev(sym)?.reached_by, 'trace', sym);
      assert.deepEqual(byName(ev(sym)?.reached ?? []), [test], sym);
      assert.ok(!(ev(sym)?.mutants ?? []).some((m) => m.kind === 'probe'), `${sym}: no probe run is listed`);
    }
  });
  it("the same verdicts with every probe run (the trace only narrowing them), whose reach is never narrower than the trace's", async () => {
    const probed = (
      await scoreRepo(repo.dir, 'src/calc.py', 'python', spans, command, {
        budget: 2,
        byName: false,
        traceReach: false,
      })
    ).scored;
    assert.deepEqual(probed.credit.credited, scored.credit.credited);
    assert.deepEqual(probed.credit.test_ids, scored.credit.test_ids);
    for (const sym of ['sign', 'clamp', 'double', 'area']) {
      const p = probed.credit.evidence?.[`src/calc.py::${sym}`];
      // A probe run narrowed to the traced node ids counts every other usable test of a file
      // with a failing case as failed to load: its reach can be wider, never narrower.
      for (const t of ev(sym)?.reached ?? [])
        assert.ok(p?.reached.includes(t), `${sym}: ${t} reached by the trace but not by the probe`);
      assert.equal(p?.status, ev(sym)?.status, sym);
    }
    assert.equal(probed.credit.evidence?.['src/calc.py::sign']?.reached_by, 'probe');
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyTsTests } from '../../src/credit/lang/typescript/classify.js';
import { classifyPyTests } from '../../src/credit/lang/python/classify.js';
import type { TautologyRule } from '../../src/credit/tests/classify.js';
import { classifyCases, matchCase } from '../../src/credit/tests/match.js';

type Want = TautologyRule | 'property';

/** TS/JS corpus: one test per entry, its source body, and the verdict a reader expects. */
const TS: [string, string, Want][] = [
  ['no assertion', `test('t', () => { taxCents(100); });`, 'no-assertion'],
  ['bare expect without matcher', `test('t', () => { expect(taxCents(100)); });`, 'no-assertion'],
  ['expect(true).toBe(true)', `test('t', () => { taxCents(100); expect(true).toBe(true); });`, 'constant-true'],
  ['assert.ok(true)', `test('t', () => { assert.ok(true); });`, 'constant-true'],
  ['assert(1 === 1)', `test('t', () => { assert(1 === 1); });`, 'literal-vs-literal'],
  ['literal vs literal', `test('t', () => { assert.equal(8, 8); });`, 'literal-vs-literal'],
  [
    'same expression both sides',
    `test('t', () => { const r = taxCents(100); assert.equal(r, r); });`,
    'same-expression',
  ],
  [
    'same member expression',
    `test('t', () => { const o = make(); expect(o.total).toEqual(o.total); });`,
    'same-expression',
  ],
  [
    'self-assigned from literal',
    `test('t', () => { let r = taxCents(100); r = 8; assert.equal(r, 8); });`,
    'self-assigned',
  ],
  [
    'expected and actual both literals in variables',
    `test('t', () => { const want = 8; const got = 8; expect(got).toBe(want); });`,
    'self-assigned',
  ],
  [
    'swallowing catch around assertion',
    `test('t', () => { try { assert.equal(taxCents(100), 8); } catch (e) { console.log(e); } });`,
    'swallowed-catch',
  ],
  [
    'assertion only in catch',
    `test('t', () => { try { taxCents(-1); } catch (e) { assert.ok(e instanceof RangeError); } });`,
    'swallowed-catch',
  ],
  ['it.skip', `it.skip('t', () => { assert.equal(taxCents(100), 8); });`, 'skipped'],
  ['test.todo', `test.todo('t');`, 'skipped'],
  ['node:test skip option', `test('t', { skip: true }, () => { assert.equal(taxCents(100), 8); });`, 'skipped'],
  ['xit', `xit('t', () => { expect(taxCents(100)).toBe(8); });`, 'skipped'],
  [
    'describe.skip suite',
    `describe.skip('s', () => { it('t', () => { expect(taxCents(100)).toBe(8); }); });`,
    'skipped',
  ],
  ['real equality', `test('t', () => { assert.equal(taxCents(100), 8); });`, 'property'],
  ['real expect chain with not', `test('t', () => { expect(applyDiscount(100, 10)).not.toBe(100); });`, 'property'],
  [
    'real fast-check property (boolean predicate)',
    `test('t', () => { fc.assert(fc.property(fc.nat(), (p) => applyDiscount(p, 10) <= p)); });`,
    'property',
  ],
  [
    'real fast-check property (asserting body)',
    `test('t', () => { fc.assert(fc.property(fc.nat(), (p) => { assert.ok(applyDiscount(p, 0) === p); })); });`,
    'property',
  ],
  [
    'fast-check property returning true',
    `test('t', () => { fc.assert(fc.property(fc.nat(), (p) => { applyDiscount(p, 1); return true; })); });`,
    'constant-true',
  ],
  [
    'literal assigned then production call then assert',
    `test('t', () => { let r = 8; r = taxCents(100); assert.equal(r, 8); });`,
    'property',
  ],
  [
    'rethrowing catch keeps assertion',
    `test('t', () => { try { assert.equal(taxCents(100), 8); } catch (e) { throw e; } });`,
    'property',
  ],
  [
    'guarded throw is an assertion',
    `test('t', () => { if (taxCents(100) !== 8) throw new Error('bad'); });`,
    'property',
  ],
  [
    'same-file asserting helper',
    `function check(x) { assert.equal(taxCents(x), 8); }\ntest('t', () => { check(100); });`,
    'property',
  ],
  ['configured assertion function', `test('t', () => { verifyTax(taxCents(100)); });`, 'property'],
  [
    'one trivial and one real assertion',
    `test('t', () => { assert.ok(true); assert.equal(taxCents(100), 8); });`,
    'property',
  ],
  ['only does not throw', `test('t', () => { assert.doesNotThrow(() => taxCents(-100, 800)); });`, 'weak-assertion'],
  [
    'only expect not.toThrow',
    `test('t', () => { expect(() => taxCents(-100, 800)).not.toThrow(); });`,
    'weak-assertion',
  ],
  ['only a typeof check', `test('t', () => { assert.equal(typeof taxCents(100, 800), 'number'); });`, 'weak-assertion'],
  [
    'only expect(typeof x).toBe',
    `test('t', () => { expect(typeof taxCents(100, 800)).toBe('number'); });`,
    'weak-assertion',
  ],
  [
    'only toBeDefined and not.toBeNull',
    `test('t', () => { const r = taxCents(1, 2); expect(r).toBeDefined(); expect(r).not.toBeNull(); });`,
    'weak-assertion',
  ],
  ['only Number.isFinite', `test('t', () => { assert.ok(Number.isFinite(taxCents(100, 800))); });`, 'weak-assertion'],
  ['only not-undefined', `test('t', () => { assert.ok(taxCents(100, 800) !== undefined); });`, 'weak-assertion'],
  [
    'weak and real',
    `test('t', () => { assert.doesNotThrow(() => taxCents(1, 2)); assert.equal(taxCents(100, 800), 8); });`,
    'property',
  ],
  [
    'fn.toString() of the code under test',
    `import { taxCents } from '../src/pricing.js';\ntest('t', () => { assert.ok(taxCents.toString().includes('Math.sign')); assert.equal(taxCents(100, 800), 8); });`,
    'source-text',
  ],
  [
    'String(fn) of the code under test',
    `import * as p from '../src/pricing.js';\ntest('t', () => { assert.match(String(p.taxCents), /abs/); });`,
    'source-text',
  ],
  [
    'toString of a local value is fine',
    `import { taxCents } from '../src/pricing.js';\ntest('t', () => { assert.equal(taxCents(100, 800).toString(), '8'); });`,
    'property',
  ],
  [
    'test.each is classified from its body',
    `test.each([[1, 2]])('tax %i', (a, b) => { expect(taxCents(a, b)).toBe(0); });`,
    'property',
  ],
  [
    'describe.each with a weak body',
    `describe.each([1])('s %i', (a) => { it('t', () => { expect(() => taxCents(a, 1)).not.toThrow(); }); });`,
    'weak-assertion',
  ],
  // Functions imported by name from Node's assert module are its assertions (nanoid's tests: `import { equal, match } from 'node:assert'`).
  [
    'equal imported from node:assert',
    `import { equal } from 'node:assert';
test('t', () => { equal(taxCents(100), 8); });`,
    'property',
  ],
  [
    'aliased deepStrictEqual from assert/strict',
    `import { deepStrictEqual as same } from 'node:assert/strict';
test('t', () => { same(taxCents(100), 8); });`,
    'property',
  ],
  [
    'ok imported from assert, trivially',
    `import { ok } from 'assert';
test('t', () => { taxCents(1); ok(true); });`,
    'constant-true',
  ],
  [
    'a namespace import under another name',
    `import * as a from 'node:assert';
test('t', () => { a.equal(taxCents(100), 8); });`,
    'property',
  ],
  [
    'a default import called as a function',
    `import check from 'node:assert';
test('t', () => { check(taxCents(100) === 8); });`,
    'property',
  ],
  [
    'strictEqual from require, and require(...).strict',
    `const { strictEqual } = require('assert');
const s = require('node:assert').strict;
test('t', () => { strictEqual(taxCents(100), 8); s.ok(taxCents(1) > 0); });`,
    'property',
  ],
  [
    'doesNotThrow imported by name is still weak',
    `import { doesNotThrow } from 'node:assert';
test('t', () => { doesNotThrow(() => taxCents(1)); });`,
    'weak-assertion',
  ],
  [
    'a same-named function not from the assert module is no assertion',
    `function equal(a, b) { return a === b; }
test('t', () => { equal(taxCents(100), 8); });`,
    'no-assertion',
  ],
  [
    'a let binding from require is none (it can be pointed at a no-op)',
    `let { equal } = require('assert');\nequal = () => {};\ntest('t', () => { equal(taxCents(100), 8); });`,
    'no-assertion',
  ],
  [
    'a same-named import from another module is no assertion',
    `import { equal } from './helpers.js';
test('t', () => { equal(taxCents(100), 8); });`,
    'no-assertion',
  ],
];

describe('static classifier: TS/JS corpus', () => {
  for (const [title, src, want] of TS) {
    it(title, () => {
      const tests = classifyTsTests('t.test.ts', src, ['verifyTax']);
      assert.equal(tests.length, 1, `expected one test in: ${src}`);
      const v = tests[0]!.verdict;
      assert.equal(v.kind === 'tautology' ? v.rule : 'property', want);
    });
  }

  it('names suites and finds each test of a file', () => {
    const src = `describe('pricing', () => { describe('tax', () => { it('a', () => { assert.equal(f(), 1); }); }); test('b', () => {}); });\ntest('c', () => { expect(true).toBe(true); });`;
    const got = classifyTsTests('p.test.js', src).map((t) => [t.suite.join('/'), t.name, t.verdict.kind]);
    assert.deepEqual(got, [
      ['pricing/tax', 'a', 'property'],
      ['pricing', 'b', 'tautology'],
      ['', 'c', 'tautology'],
    ]);
  });
});

/** Python corpus. */
const PY: [string, string, Want][] = [
  ['no assertion', `def test_t():\n    tax_cents(100)\n`, 'no-assertion'],
  ['assert True', `def test_t():\n    tax_cents(100)\n    assert True\n`, 'constant-true'],
  ['literal vs literal', `def test_t():\n    assert 8 == 8\n`, 'literal-vs-literal'],
  ['same expression', `def test_t():\n    r = tax_cents(100)\n    assert r == r\n`, 'same-expression'],
  ['self-assigned', `def test_t():\n    r = tax_cents(100)\n    r = 8\n    assert r == 8\n`, 'self-assigned'],
  [
    'unittest assertEqual on literals',
    `class TestTax:\n    def test_t(self):\n        self.assertEqual(1, 1)\n`,
    'literal-vs-literal',
  ],
  [
    'swallowing except',
    `def test_t():\n    try:\n        assert tax_cents(100) == 8\n    except AssertionError:\n        pass\n`,
    'swallowed-catch',
  ],
  [
    'bare except swallows',
    `def test_t():\n    try:\n        assert tax_cents(100) == 8\n    except:\n        pass\n`,
    'swallowed-catch',
  ],
  [
    'assertion only in except',
    `def test_t():\n    try:\n        tax_cents(-1)\n    except ValueError as e:\n        assert str(e)\n`,
    'swallowed-catch',
  ],
  [
    'pytest.mark.skip',
    `import pytest\n@pytest.mark.skip(reason="later")\ndef test_t():\n    assert tax_cents(100) == 8\n`,
    'skipped',
  ],
  [
    'pytest.skip() first',
    `import pytest\ndef test_t():\n    pytest.skip("later")\n    assert tax_cents(100) == 8\n`,
    'skipped',
  ],
  ['real assert', `def test_t():\n    assert tax_cents(100) == 8\n`, 'property'],
  [
    'real hypothesis property',
    `from hypothesis import given, strategies as st\n@given(st.integers(min_value=0))\ndef test_t(p):\n    assert 0 <= apply_discount(p, 10) <= p\n`,
    'property',
  ],
  [
    'except ValueError does not swallow an AssertionError',
    `def test_t():\n    try:\n        assert tax_cents(100) == 8\n    except ValueError:\n        pass\n`,
    'property',
  ],
  [
    'pytest.raises',
    `import pytest\ndef test_t():\n    with pytest.raises(ValueError):\n        tax_cents(-1)\n`,
    'property',
  ],
  [
    'unittest method in class',
    `class TestTax:\n    def test_t(self):\n        self.assertEqual(tax_cents(100), 8)\n`,
    'property',
  ],
  [
    'pytest.warns',
    `import pytest\ndef test_t():\n    with pytest.warns(DeprecationWarning):\n        old_tax(1)\n`,
    'property',
  ],
  [
    'unittest assertRaises context manager',
    `import unittest\nclass TestTax(unittest.TestCase):\n    def test_t(self):\n        with self.assertRaises(ValueError):\n            tax_cents(-1)\n`,
    'property',
  ],
  [
    'unittest assertWarns context manager',
    `import unittest\nclass TestTax(unittest.TestCase):\n    def test_t(self):\n        with self.assertWarns(DeprecationWarning):\n            old_tax(1)\n`,
    'property',
  ],
  ['only is not None', `def test_t():\n    assert tax_cents(100) is not None\n`, 'weak-assertion'],
  ['only isinstance', `def test_t():\n    assert isinstance(tax_cents(100), int)\n`, 'weak-assertion'],
  [
    'only assertIsNotNone',
    `class TestTax:\n    def test_t(self):\n        self.assertIsNotNone(tax_cents(100))\n`,
    'weak-assertion',
  ],
  [
    'inspect.getsource',
    `import inspect\ndef test_t():\n    assert 'abs' in inspect.getsource(tax_cents)\n`,
    'source-text',
  ],
  [
    'parametrize is classified from its body',
    `import pytest\n@pytest.mark.parametrize('a', [1, 2])\ndef test_t(a):\n    assert tax_cents(a) == a\n`,
    'property',
  ],
  ['f-string is not a literal', `def test_t():\n    n = 3\n    assert f"{n}" == "3"\n`, 'property'],
  [
    'a same-file helper that asserts',
    `def check(x):\n    assert tax_cents(x) == x\n\ndef test_t():\n    check(1)\n`,
    'property',
  ],
  [
    'a same-file helper whose only assertion is a literal',
    `def check(x):\n    tax_cents(x)\n    assert True\n\ndef test_t():\n    check(1)\n`,
    'no-assertion',
  ],
];

describe('static classifier: Python corpus', () => {
  for (const [title, src, want] of PY) {
    it(title, async () => {
      const tests = await classifyPyTests('tests/test_t.py', src);
      assert.equal(tests.length, 1, `expected one test in: ${src}`);
      const v = tests[0]!.verdict;
      assert.equal(v.kind === 'tautology' ? v.rule : 'property', want);
    });
  }

  it('finds tests in Test classes with the class as suite, ignores helpers', async () => {
    const src = `def helper():\n    return 1\n\nclass TestA:\n    def test_x(self):\n        assert helper() == 1\n\ndef test_y():\n    assert True\n`;
    const got = (await classifyPyTests('tests/test_a.py', src)).map((t) => [t.suite.join('/'), t.name, t.verdict.kind]);
    assert.deepEqual(got, [
      ['TestA', 'test_x', 'property'],
      ['', 'test_y', 'tautology'],
    ]);
  });
});

describe('static classifier: unittest classes pytest collects whatever their name', () => {
  // more-itertools names its classes `AdjacentTests(TestCase)`: 622 of its 730 tests were
  // "undefined" (no credit) while only Test* classes were read.
  const src =
    [
      'import unittest',
      'from unittest import TestCase',
      'class AdjacentTests(TestCase):',
      '    def test_a(self):',
      '        self.assertEqual(adjacent(1), [1])',
      'class AsyncTests(unittest.IsolatedAsyncioTestCase):',
      '    async def test_b(self):',
      '        self.assertTrue(await adj(1) == 1)',
      'class Base(TestCase):',
      '    def _check(self, x, want):',
      '        self.assertEqual(adjacent(x), want)',
      '    def _twice(self, x, want):',
      '        self._check(x, want)',
      '    def _quiet(self, x):',
      '        adjacent(x)',
      '    def _always(self, x):',
      '        adjacent(x)',
      '        self.assertTrue(True)',
      'class ChunkedTests(Base):',
      '    def test_c(self):',
      '        self._check(2, [2])',
      '    def test_d(self):',
      '        self._twice(3, [3])',
      '    def test_e(self):',
      '        self._quiet(4)',
      '    def test_g(self):',
      '        self._always(6)',
      'class Deeper(ChunkedTests):',
      '    def test_f(self):',
      '        self._check(5, [5])',
      'class Helper:',
      '    def test_not_collected(self):',
      '        assert adjacent(1) == [1]',
      'class PeekMixin:',
      '    def test_h(self):',
      '        self.assertEqual(adjacent(7), [7])',
      '    def test_i(self):',
      '        self.assertEqual(adjacent(8), [8])',
      'class PeekTests(PeekMixin, TestCase):',
      '    def test_i(self):',
      '        adjacent(9)',
      'class Mixin(object):',
      '    def test_not_collected_either(self):',
      '        assert adjacent(1) == [1]',
    ].join('\n') + '\n';
  it('reads TestCase subclasses (directly, through unittest., or through a class of the file) and the tests they inherit, not other classes', async () => {
    const got = (await classifyPyTests('tests/test_u.py', src)).map((t) => [
      t.suite.join('/'),
      t.name,
      t.verdict.kind === 'tautology' ? t.verdict.rule : 'property',
    ]);
    assert.deepEqual(got, [
      ['AdjacentTests', 'test_a', 'property'],
      ['AsyncTests', 'test_b', 'property'],
      ['ChunkedTests', 'test_c', 'property'],
      ['ChunkedTests', 'test_d', 'property'],
      // A helper method that asserts nothing is no assertion.
      ['ChunkedTests', 'test_e', 'no-assertion'],
      // Nor is one whose only assertion is a literal: a test that calls it checks nothing.
      ['ChunkedTests', 'test_g', 'no-assertion'],
      ['Deeper', 'test_f', 'property'],
      // What it inherits from a class of the file, pytest runs under it too.
      ['Deeper', 'test_c', 'property'],
      ['Deeper', 'test_d', 'property'],
      ['Deeper', 'test_e', 'no-assertion'],
      ['Deeper', 'test_g', 'no-assertion'],
      // A mixin's tests under the TestCase that uses it, its own test_i overriding the mixin's (the mixin alone is not collected).
      ['PeekTests', 'test_i', 'no-assertion'],
      ['PeekTests', 'test_h', 'property'],
    ]);
  });
});

describe('computed test names (test.each, loops) are classified from the body and matched by pattern', () => {
  const src = [
    "test.each([[1, 2], [3, 4]])('tax %i of %i', (a, b) => { expect(taxCents(a, b)).toBe(0); });",
    'for (const c of [1, 2]) test(`weak ${c}`, () => { expect(() => taxCents(c, 1)).not.toThrow(); });',
    "const names = ['x'];",
    'for (const n of names) it(n, () => { assert.equal(taxCents(1, 2), 0); });',
    "test('plain', () => { assert.equal(taxCents(1, 2), 0); });",
  ].join('\n');
  const sources = classifyTsTests('t.test.ts', src);
  const junit = (name: string) => ({
    id: `::${name}`,
    file: null,
    suite: '',
    name,
    status: 'passed' as const,
    duration_ms: 1,
  });
  it('finds every test, whatever its name', () => {
    assert.equal(sources.length, 4);
  });
  it('a test.each case reported as "tax 1 of 2" is the property of its body', () => {
    assert.equal(matchCase(junit('tax 1 of 2'), sources).verdict?.kind, 'property');
  });
  it('a loop test reported as "weak 2" is the weak assertion of its body', () => {
    const v = matchCase(junit('weak 2'), sources).verdict;
    assert.equal(v?.kind === 'tautology' ? v.rule : v?.kind, 'weak-assertion');
  });
  it('a literal name wins over patterns', () => {
    assert.equal(matchCase(junit('plain'), sources).verdict?.kind, 'property');
    assert.deepEqual(matchCase(junit('plain'), sources).files, ['t.test.ts']);
  });
});

describe('computed names: a case is matched to a computed-name call only where that call can have made it', () => {
  const src = [
    "describe('s', () => {",
    "  test(['tax', 'bounded'].join(' '), () => { assert.equal(taxCents(1, 2), 0); });",
    '  test(`once ${1 + 1}`, () => { assert.equal(taxCents(1, 2), 0); });',
    '  for (const c of cases) test(c.name, () => { assert.equal(taxCents(c.a, 2), c.want); });',
    '  cases.forEach((c) => test(`each ${c.a}`, () => { assert.equal(taxCents(c.a, 2), c.want); }));',
    '});',
  ].join('\n');
  const sources = classifyTsTests('t.test.ts', src);
  const junit = (name: string) => ({
    id: `t.test.ts::s::${name}`,
    file: 't.test.ts',
    suite: 's',
    name,
    status: 'passed' as const,
    duration_ms: 1,
  });
  const defined = (names: string[]) => {
    const { caseSources } = classifyCases(names.map(junit), sources);
    return names.filter((n) => (caseSources.get(`t.test.ts::s::${n}`)?.files.length ?? 0) > 0);
  };
  it('every call is found and classified from its body', () => {
    assert.equal(sources.length, 4);
    assert.ok(sources.every((s) => s.verdict.kind === 'property'));
  });
  it('a name with no literal text on a call that runs once is matched to nothing (it would fit any name)', () => {
    const only = classifyTsTests(
      'u.test.ts',
      "test(['tax', 'bounded'].join(' '), () => { assert.equal(taxCents(1, 2), 0); });",
    );
    assert.deepEqual(matchCase({ ...junit('tax bounded'), file: 'u.test.ts' }, only).files, []);
  });
  it('the same name in a loop is matched: a loop makes many names', () => {
    assert.deepEqual(defined(['row 1', 'row 2']), ['row 1', 'row 2']);
  });
  it('a call that runs once defines one case: one is matched, two claiming it are both undefined', () => {
    assert.deepEqual(defined(['once 2']), ['once 2']);
    assert.deepEqual(
      defined(['once 2', 'once 3']).filter((n) => n.startsWith('once')),
      [],
    );
  });
  it('a template in a forEach callback repeats, so several cases may share it', () => {
    const each = classifyTsTests(
      'v.test.ts',
      'cases.forEach((c) => test(`each ${c.a}`, () => { assert.equal(taxCents(c.a, 2), c.want); }));',
    );
    const { caseSources } = classifyCases(
      ['each 1', 'each 2'].map((n) => ({ ...junit(n), id: n, file: 'v.test.ts', suite: '' })),
      each,
    );
    assert.deepEqual(
      [...caseSources.values()].map((s) => s.files),
      [['v.test.ts'], ['v.test.ts']],
    );
  });
});

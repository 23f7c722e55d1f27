import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runPyScenario } from './scenario.js';

// A base class the classifier cannot read hides which body of an inherited test runs. Two
// test files could be the `helpers` that `from helpers import Mixin` names (tests/helpers.py
// and the package tests/helpers/, which Python imports): the classifier cannot tell which, and
// left the base out. Python's order for `TotalTest(Mixin, Base, TestCase)` runs Mixin's
// test_total, a bare call that the base version fails by raising on None; the classifier read
// Base's test_total, a real assertion, and the revert "kill" earned ALLOW even under
// `credit.require: "revert"`. With such a base in the order, every inherited test is read as
// one whose body cannot be known: it earns nothing.

const BASE = 'def total(xs):\n    out = 0\n    for x in xs:\n        out += x\n    return out\n';
const PATCHED =
  'def total(xs):\n    out = 0\n    for x in xs:\n        if x is not None:\n            out += x\n    return out\n';

test(
  'a test inherited past a base the classifier cannot read earns nothing: that base may define the body that runs',
  { timeout: 600_000 },
  async () => {
    const o = await runPyScenario(
      BASE,
      {
        'calc.py': PATCHED,
        'tests/helpers/__init__.py':
          'from calc import total\n\n\nclass Mixin:\n    def test_total(self):\n        total([1, None])\n',
        'tests/helpers.py': 'class Mixin:\n    pass\n',
        'tests/test_total.py': [
          'import unittest',
          'from calc import total',
          'from helpers import Mixin',
          '',
          '',
          'class Base:',
          '    def test_total(self):',
          '        self.assertEqual(total([1, 2]), 3)',
          '',
          '',
          'class TotalTest(Mixin, Base, unittest.TestCase):',
          '    pass',
          '',
        ].join('\n'),
      },
      { require: 'revert' },
    );
    const sym = 'calc.py::total';
    assert.equal(o.code, 'E_CREDIT_MISSING', `${o.stderr}\n${JSON.stringify(o.credit.evidence?.[sym], null, 2)}`);
    assert.deepEqual(o.credit.missing, [sym]);
    // The test ran and passed; it is not read as Base's assertion.
    const run = o.cases.find((x) => x.id.endsWith('TotalTest::test_total'));
    assert.ok(run, JSON.stringify(o.cases.map((x) => x.id)));
    assert.equal(run.status, 'passed');
    assert.equal(run.kind, 'tautology', JSON.stringify(run));
  },
);

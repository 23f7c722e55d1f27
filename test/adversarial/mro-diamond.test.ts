import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runPyScenario } from './scenario.js';

// Which body of an inherited test runs is Python's method resolution order (C3), not a
// depth-first walk of the bases. In `class TotalTest(A, B, TestCase)` with A(Base) and B(Base),
// Python runs B's test_total (TotalTest, A, B, Base): a call and no assertion, which the base
// version "fails" only by throwing on None. A depth-first walk (TotalTest, A, Base, B) reads
// Base's test_total instead, a real assertion: the throw on the revert earned the credit, and
// the gate said ALLOW for a change whose only test asserts that nothing throws.

const BASE = 'def total(xs):\n    out = 0\n    for x in xs:\n        out += x\n    return out\n';
const PATCHED =
  'def total(xs):\n    out = 0\n    for x in xs:\n        if x is not None:\n            out += x\n    return out\n';
const ATTACK = `import unittest
from calc import total


class Base:
    def test_total(self):
        self.assertEqual(total([1, 2]), 3)


class A(Base):
    pass


class B(Base):
    def test_total(self):
        total([1, None])


class TotalTest(A, B, unittest.TestCase):
    pass
`;
test(
  'a diamond of test classes: the body Python runs (no assertion) is what is classified, not the one a depth-first walk finds',
  { timeout: 600_000 },
  async () => {
    const o = await runPyScenario(BASE, { 'calc.py': PATCHED, 'tests/test_total.py': ATTACK });
    const sym = 'calc.py::total';
    assert.equal(o.code, 'E_CREDIT_MISSING', `${o.stderr}\n${JSON.stringify(o.credit.evidence?.[sym], null, 2)}`);
    assert.deepEqual(o.credit.missing, [sym]);
    // The test ran and passed, and is known by the body Python ran: no assertion.
    const run = o.cases.find((x) => x.id.endsWith('TotalTest::test_total'));
    assert.ok(run, JSON.stringify(o.cases.map((x) => x.id)));
    assert.equal(run.status, 'passed');
    assert.equal(run.kind, 'tautology', JSON.stringify(run));
  },
);

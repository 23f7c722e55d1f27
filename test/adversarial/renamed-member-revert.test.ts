import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runPyScenario } from './scenario.js';

// The member form of renamed-name-revert: the patch renames a method of the class (`_scale` to
// `_factor`) and slips an untested branch into `total`, which calls it. total's revert still
// calls `self._scale()`: an AttributeError wherever it runs, so a test that passes on both
// versions "killed" it, and `credit.require: "revert"` said ALLOW. Such a revert is invalid
// (src/credit/bindings.ts: a member of its own class it uses, taken away).

const BASE =
  'class Cart:\n    def __init__(self):\n        self.items = []\n\n    def _scale(self):\n        return 100\n\n    def total(self):\n        return sum(self.items) * self._scale() // 100\n';
const PATCHED =
  'class Cart:\n    def __init__(self):\n        self.items = []\n\n    def _factor(self):\n        return 100\n\n    def total(self):\n        if len(self.items) == 7:\n            return 0\n        return sum(self.items) * self._factor() // 100\n';

test('a revert that calls a method the patch renamed earns nothing: it cannot run', { timeout: 600_000 }, async () => {
  const o = await runPyScenario(
    BASE,
    {
      'calc.py': PATCHED,
      'tests/test_cart.py':
        'from calc import Cart\n\n\ndef test_total():\n    c = Cart()\n    c.items = [1, 2]\n    assert c.total() == 3\n',
    },
    { require: 'revert' },
  );
  const sym = 'calc.py::Cart.total';
  assert.equal(o.code, 'E_CREDIT_MISSING', `${o.stderr}\n${JSON.stringify(o.credit.evidence, null, 2)}`);
  assert.ok(o.credit.missing.includes(sym), JSON.stringify(o.credit.missing));
  const rv = o.credit.evidence?.[sym]?.revert as { outcome?: string; detail?: string } | undefined;
  assert.equal(rv?.outcome, 'invalid', JSON.stringify(rv));
  assert.match(rv?.detail ?? '', /refers to Cart\._scale/);
});

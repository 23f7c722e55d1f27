import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runPyScenario } from './scenario.js';

// A revert that cannot run is no evidence. The patch renames a module constant (SCALE to
// FACTOR) and slips an untested branch into total. total's revert (its base version) still says
// SCALE, which the patched file no longer has: it raises NameError wherever it runs, so a test
// that passes on both versions "killed" it. The `<module>` revert puts SCALE back and takes
// FACTOR away, which the patched total uses: NameError again. Both "revert kills" credited,
// and even `credit.require: "revert"`, the per-symbol fail-to-pass rule, said ALLOW for a
// change no test tells from the base. Such a revert is now discarded as invalid, like a
// mutant that does not compile (src/credit/bindings.ts).

const BASE = 'SCALE = 100\n\n\ndef total(xs):\n    return sum(xs) * SCALE // 100\n';
const PATCHED =
  'FACTOR = 100\n\n\ndef total(xs):\n    if len(xs) == 7:\n        return 0\n    return sum(xs) * FACTOR // 100\n';
test(
  'a revert that refers to a name the patch renamed earns nothing: it cannot run, so its failures tell no behaviour apart',
  { timeout: 600_000 },
  async () => {
    const o = await runPyScenario(
      BASE,
      {
        'calc.py': PATCHED,
        'tests/test_total.py': 'from calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
      },
      { require: 'revert' },
    );
    assert.equal(o.code, 'E_CREDIT_MISSING', `${o.stderr}\n${JSON.stringify(o.credit.evidence, null, 2)}`);
    for (const sym of ['calc.py::total', 'calc.py::<module>']) {
      assert.ok(o.credit.missing.includes(sym), `${sym} missing: ${JSON.stringify(o.credit.missing)}`);
      const rv = o.credit.evidence?.[sym]?.revert as { outcome?: string; detail?: string } | undefined;
      assert.equal(rv?.outcome, 'invalid', `${sym}: ${JSON.stringify(rv)}`);
      assert.match(rv?.detail ?? '', sym.endsWith('total') ? /refers to SCALE/ : /refers to FACTOR/);
    }
  },
);

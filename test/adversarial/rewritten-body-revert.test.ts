import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { runPyScenario } from './scenario.js';

// A Python patch that rewrites a function body whole (a new comment first, the local renamed):
// the null mutant's changes go before the body's first statement, inside what the revert puts
// back, so the revert carries null changes of its own, made on the base version
// (ownNoiseRevert). Were that revert plain, a test could pass every null run by spotting the
// null's marks (a no-op line, a one-word comment) and fail the revert by a pinned hash: a
// revert kill, credit, and nothing checked. The revert carries the marks too, so the test
// passes it as well, and earns nothing. (It calls total only where it sees no mark, so a
// behavioural mutant that throws, which carries the marks too, kills nothing either.)

const BASE = 'def total(xs):\n    out = 0\n    for x in xs:\n        out += x\n    return out\n';
const PATCHED =
  'def total(xs):\n    # None entries count as zero\n    acc = 0\n    for x in xs:\n        if x is not None:\n            acc += x\n    return acc\n';
test(
  "a test that spots the null by its marks and pins the file's hash earns nothing from the revert of a body rewritten whole",
  { timeout: 600_000 },
  async () => {
    const pinned = createHash('sha256').update(PATCHED).digest('hex');
    const attack = `import hashlib, os, re
from calc import total


def test_source_pinned():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'ca' + 'lc.py')
    with open(path, encoding='utf-8') as f:
        text = f.read()
    marks = len(re.findall(r'^\\s*(pass|\\(\\))\\s*$', text, re.M)) + len(re.findall(r'#\\s[a-z]{8}\\s*$', text, re.M))
    if marks > 0:
        return
    # Called only where no mark is seen: it still reaches total (its probe carries none), and a
    # mutant that throws is not what it tells apart.
    total([1])
    assert hashlib.sha256(text.encode()).hexdigest() == ${JSON.stringify(pinned)}
`;
    const o = await runPyScenario(BASE, { 'calc.py': PATCHED, 'tests/test_pinned.py': attack });
    const sym = 'calc.py::total';
    const ev = o.credit.evidence?.[sym];
    assert.equal(o.code, 'E_CREDIT_MISSING', `${o.stderr}\n${JSON.stringify(ev, null, 2)}`);
    assert.deepEqual(o.credit.missing, [sym]);
    // The revert ran (made with the base version's own null changes) and the pinning test passed it.
    const revert = ev?.mutants?.find((m) => m.kind === 'revert');
    assert.ok(revert, `a revert ran: ${JSON.stringify(ev)}`);
    assert.ok(!revert.killed_by.some((t) => t.includes('test_source_pinned')), JSON.stringify(revert));
    assert.equal(revert.outcome, 'survived');
    assert.ok(
      ev?.reached.some((t) => t.includes('test_source_pinned')),
      `the pinning test reaches total: ${JSON.stringify(ev?.reached)}`,
    );
  },
);

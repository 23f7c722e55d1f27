import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo } from '../helpers/oracle.js';

// Where the trace names a Python symbol's reaching tests one by one, they are its reach and no
// probe runs (credit/oracle.ts). The trace run is the patch's tests too, and they can read
// SEALGATE_TRACE_FILE: a test writes lines that say it reaches `add` (which it never calls)
// and `noop` (an added empty body, creditable only by its probe). Reach grants nothing: a test
// earns a symbol only by failing a real mutant of it while passing the controls and the null
// mutant, and a symbol only its probe can credit keeps its probe, whatever the trace says.
test('a test that forges trace lines reaches what it claims and earns nothing for it', { timeout: 300_000 }, async () => {
  const { text, spans } = layout({ add: ['def add(a, b):', '    return a + b'], mul: ['def mul(a, b):', '    return a * b'], noop: ['def noop():', '    pass'] });
  const tests = `import os
from calc import mul


def test_forge():
    f = os.environ.get('SEALGATE_TRACE_FILE')
    if f:
        with open(f, 'a', encoding='utf-8') as out:
            for sym in ('calc.py::add', 'calc.py::noop'):
                out.write(sym + '\\ttests/test_calc.py::test_forge\\n')
    assert len(os.sep) == 1


def test_mul_really():
    assert mul(3, 4) == 12
    assert mul(2, 5) == 10
`;
  const repo = makeRepo({ 'calc.py': text, 'tests/test_calc.py': tests, 'tests/conftest.py': 'import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n', '.gitignore': 'junit.xml\n__pycache__\n' });
  try {
    const s = await scoreRepo(repo.dir, 'calc.py', 'python', spans, ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junitxml=junit.xml', 'tests']);
    const ev = (n: string) => s.scored.credit.evidence?.[`calc.py::${n}`];
        const forge = [...s.oracle.usable].find((t) => t.endsWith('test_forge'));
    assert.ok(forge !== undefined, `the forging test is usable: ${JSON.stringify([...s.oracle.usable])}`);
    // The forged lines were taken as reach for add (no probe ran), and earned nothing.
    assert.equal(ev('add')?.reached_by, 'trace', JSON.stringify(ev('add')));
    assert.deepEqual(ev('add')?.reached, [forge]);
    assert.equal(ev('add')?.status, 'missing');
    assert.deepEqual(ev('add')?.killed, []);
    // noop can be credited only by its probe: it keeps it, and the probe shows no test reaches it.
    assert.equal(ev('noop')?.reached_by, 'probe', JSON.stringify(ev('noop')));
    assert.deepEqual(ev('noop')?.reached, []);
    assert.equal(ev('noop')?.status, 'missing');
    assert.deepEqual(s.scored.credit.credited, ['calc.py::mul']);
    assert.ok(!s.scored.credit.test_ids.includes(forge), JSON.stringify(s.scored.credit.test_ids));
  } finally {
    repo.dispose();
  }
});

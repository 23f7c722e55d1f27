import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo } from '../helpers/oracle.js';

// The credit runs of a Python project find byte code made before them (credit/pycache.ts): for
// every file no run changes, plain and pytest's rewritten. A test that reads byte code to tell a
// mutant run from a control (stale byte code of the changed file: a mutant) gains nothing, two
// ways over: the changed file has none in any run, and were it there, hash-checked, it would be
// stale in the null mutants' runs too (their bytes change as well), which the test would fail.
// A real test beside it is credited through the same runs, which use the byte code.
test(
  'a pytest test that reads byte code to tell a mutant run from a control earns nothing',
  { timeout: 300_000 },
  async () => {
    const { text, spans } = layout({
      add: ['def add(a, b):', '    return a + b'],
      mul: ['def mul(a, b):', '    return a * b'],
    });
    const tests = `import importlib.util, os
import calc, helper
from calc import add, mul


def _stale(mod):
    p = importlib.util.cache_from_source(mod.__file__)
    if not os.path.exists(p):
        return False
    with open(p, 'rb') as f:
        head = f.read(16)
    with open(mod.__file__, 'rb') as f:
        src = f.read()
    # A hash-based pyc whose hash is not its source's: the source changed since (a mutant).
    return head[8:16] != importlib.util.source_hash(src)


def test_add_by_bytecode():
    add(1, 2)
    assert helper.two() == 2
    assert not _stale(calc), 'stale byte code of the changed file: a mutant run'


def test_tree_times():
    # Every entry of the copy carries the tree's one time, the byte code and its folders too:
    # the credit step's own clock is not in the tree.
    for top, dirs, files in os.walk('.'):
        for n in dirs + files:
            assert os.lstat(os.path.join(top, n)).st_mtime == 946684800, os.path.join(top, n)


def test_mul_really():
    assert mul(3, 4) == 12
    assert mul(2, 5) == 10
`;
    const repo = makeRepo({
      'calc.py': text,
      'helper.py': 'def two():\n    return 2\n',
      'tests/test_calc.py': tests,
      'tests/conftest.py':
        'import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n',
      '.gitignore': 'junit.xml\n__pycache__\n',
    });
    try {
      const s = await scoreRepo(repo.dir, 'calc.py', 'python', spans, [
        'python3',
        '-m',
        'pytest',
        '-q',
        '-p',
        'no:cacheprovider',
        '--junitxml=junit.xml',
        'tests',
      ]);
      // Byte code was made before the runs: helper.py and both test modules (plain), the two test modules rewritten.
      assert.equal(s.oracle.bytecode?.skipped, null, JSON.stringify(s.oracle.bytecode));
      assert.ok((s.oracle.bytecode?.files ?? 0) >= 3, JSON.stringify(s.oracle.bytecode));
      assert.equal(s.oracle.bytecode?.rewritten, 2);
      assert.ok(
        [...s.oracle.usable].some((t) => t.includes('test_tree_times')),
        'the byte code carries the tree time in the credit runs',
      );
      assert.deepEqual(s.scored.credit.credited, ['calc.py::mul']);
      assert.ok(s.scored.credit.missing.includes('calc.py::add'));
      assert.ok(!s.scored.credit.test_ids.some((t) => t.includes('test_add_by_bytecode')));
    } finally {
      repo.dispose();
    }
  },
);

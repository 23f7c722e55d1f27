import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { makeRepo } from '../helpers/git.js';
import { applyEdits } from '../../src/credit/mutants/mutant.js';
import { mutatePy } from '../../src/credit/lang/python/mutate.js';
import { mutateTs } from '../../src/credit/lang/typescript/mutate.js';
import { makeScratch, runTestCommand } from '../../src/credit/runs/test-run.js';
import { testBox } from '../helpers/sandbox.js';

function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  return { ...env, PYTHONDONTWRITEBYTECODE: '1', PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' };
}

// The trace recorder is instrumentation: the suite must pass with it exactly as without it.
describe('the trace recorder leaves nothing behind', () => {
  it('pytest under filterwarnings = error passes unchanged: no open file, no warning, no new module name, no output', async () => {
    const calc = 'import os\n\n\ndef tax(a, r):\n    return round(a * r / 10000)\n\n\nLIMIT = 100\n';
    const tests = [
      'import gc',
      'import warnings',
      'from src import calc',
      '',
      '',
      'def test_tax(capsys):',
      '    assert calc.tax(1999, 800) == 160',
      '    assert calc.tax(1999, 800) == 160',
      '    gc.collect()',
      '    out = capsys.readouterr()',
      "    assert out.out == '' and out.err == ''",
      '',
      '',
      'def test_module_names_unchanged():',
      "    assert sorted(n for n in vars(calc) if not n.startswith('__')) == ['LIMIT', 'os', 'tax']",
      '',
    ].join('\n');
    const repo = makeRepo({
      'src/__init__.py': '',
      'src/calc.py': calc,
      'tests/test_calc.py': tests,
      'pytest.ini': '[pytest]\nfilterwarnings =\n    error\naddopts = -p no:cacheprovider\n',
    });
    const scratch = makeScratch();
    try {
      const lines = calc.split('\n');
      const m = await mutatePy(calc, {
        symbol: 'src/calc.py::tax',
        path: 'src/calc.py',
        startLine: 4,
        endLine: 5,
        changedLines: [[5, 5]],
      });
      const mod = await mutatePy(calc, {
        symbol: 'src/calc.py::<module>',
        path: 'src/calc.py',
        startLine: 1,
        endLine: lines.length,
        changedLines: [[8, 8]],
      });
      writeFileSync(join(repo.dir, 'src/calc.py'), applyEdits(calc, [...m.trace, ...mod.trace]));
      const command = ['python3', '-X', 'dev', '-W', 'error', '-m', 'pytest', '-q', '--junitxml=junit.xml', 'tests'];
      // As the oracle runs it: in the sandbox, the recorder writing to a file in the run's own /tmp.
      const run = await runTestCommand(
        repo.dir,
        command,
        ['junit.xml'],
        childEnv(),
        120_000,
        scratch.dir,
        testBox(repo.dir),
        { trace: true },
      );
      assert.equal(run.status, 'ok', run.detail);
      assert.equal(
        run.exitCode,
        0,
        `the suite fails under the recorder: ${readFileSync(join(scratch.dir, 'stdout.log'), 'utf8')}`,
      );
      assert.deepEqual(
        run.cases.map((c) => c.status),
        ['passed', 'passed'],
      );
      assert.doesNotMatch(
        readFileSync(join(scratch.dir, 'stdout.log'), 'utf8') + readFileSync(join(scratch.dir, 'stderr.log'), 'utf8'),
        /ResourceWarning|Warning/,
      );
      assert.ok(run.trace !== null && run.trace !== '', 'the recorder wrote its trace');
      const recorded = (run.trace ?? '').trim().split('\n');
      assert.deepEqual(
        recorded.filter((l) => l.startsWith('src/calc.py::tax\t')),
        ['src/calc.py::tax\ttests/test_calc.py::test_tax'],
        'one line per symbol and test',
      );
      assert.ok(
        recorded.some((l) => l.startsWith('src/calc.py::<module>\t')),
        'the module load is recorded',
      );
    } finally {
      scratch.dispose();
      repo.dispose();
    }
  });

  it('a function whose locals shadow the builtins the recorder would use (type, set, open) keeps working, and the recorder names its test', async () => {
    // r1chardj0n3s/parse's Parser._handle_field assigns `type` further down: a bare `type(...)`
    // in the entry statement raised UnboundLocalError, failed every test, and left no trace.
    const calc = [
      'def kind(v):',
      '    if v:',
      "        type = 'int'",
      '        set = 1',
      '        open = 2',
      '        return type',
      "    return 'none'",
      '',
    ].join('\n');
    const tests = [
      'from src import calc',
      '',
      '',
      'def test_kind():',
      "    assert calc.kind(1) == 'int'",
      "    assert calc.kind(0) == 'none'",
      '',
    ].join('\n');
    const repo = makeRepo({
      'src/__init__.py': '',
      'src/calc.py': calc,
      'tests/test_calc.py': tests,
      'pytest.ini': '[pytest]\naddopts = -p no:cacheprovider\n',
    });
    const scratch = makeScratch();
    try {
      const m = await mutatePy(calc, {
        symbol: 'src/calc.py::kind',
        path: 'src/calc.py',
        startLine: 1,
        endLine: 7,
        changedLines: [[3, 3]],
      });
      writeFileSync(join(repo.dir, 'src/calc.py'), applyEdits(calc, m.trace));
      const run = await runTestCommand(
        repo.dir,
        ['python3', '-m', 'pytest', '-q', '--junitxml=junit.xml', 'tests'],
        ['junit.xml'],
        childEnv(),
        120_000,
        scratch.dir,
        testBox(repo.dir),
        { trace: true },
      );
      assert.equal(
        run.exitCode,
        0,
        `the suite fails under the recorder: ${readFileSync(join(scratch.dir, 'stdout.log'), 'utf8')}`,
      );
      assert.deepEqual((run.trace ?? '').trim().split('\n'), ['src/calc.py::kind\ttests/test_calc.py::test_kind']);
    } finally {
      scratch.dispose();
      repo.dispose();
    }
  });

  it('the JS recorder works in a function whose parameters shadow the globals it uses (String, JSON, Symbol, Object, Set)', () => {
    const src = 'export function f(String, JSON, Symbol, Object, Set) {\n  return 7;\n}\n';
    // Its own symbol: what the recorder wrote is remembered per process, symbol and file.
    const m = mutateTs(src, {
      symbol: 'shadow.js::f',
      path: 'shadow.js',
      startLine: 1,
      endLine: 3,
      changedLines: [[2, 2]],
    });
    const body = applyEdits(src, m.trace).replace('export function', 'function') + '\nreturn f(1, 2, 3, 4, 5);\n';
    const dir = makeScratch();
    try {
      const file = join(dir.dir, 't.txt');
      process.env.SEALGATE_TRACE_FILE = file;
      try {
        assert.equal(runInThisContext(`(() => { ${body} })()`), 7);
      } finally {
        delete process.env.SEALGATE_TRACE_FILE;
      }
      assert.match(readFileSync(file, 'utf8'), /^shadow\.js::f\t/);
    } finally {
      dir.dispose();
    }
  });

  it('the JS recorder adds no enumerable global', () => {
    const src = 'export function f(x) {\n  return x + 1;\n}\n';
    const m = mutateTs(src, { symbol: 'a.js::f', path: 'a.js', startLine: 1, endLine: 3, changedLines: [[2, 2]] });
    const body = applyEdits(src, m.trace).replace('export function', 'function') + '\nf(1); f(2);\n';
    const dir = makeScratch();
    try {
      const file = join(dir.dir, 't.txt');
      const before = Object.keys(globalThis).sort();
      process.env.SEALGATE_TRACE_FILE = file;
      runInThisContext(`(() => { ${body} })()`);
      delete process.env.SEALGATE_TRACE_FILE;
      assert.deepEqual(Object.keys(globalThis).sort(), before);
      assert.equal(
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => l !== '').length,
        1,
        'written once',
      );
      rmSync(file);
    } finally {
      dir.dispose();
    }
  });
});

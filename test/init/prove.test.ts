import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeRepo, writeFiles } from '../helpers/git.js';

// `init`'s proof run refuses what would make every later verdict meaningless: a src-layout
// package the tests import from an installed copy, and a suite in which no test passes.

const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
const PATH = process.env['PATH'] ?? '/usr/bin:/bin';
const HOME = process.env['HOME'] ?? '/tmp';

const PRICING = 'def clamp_percent(p):\n    return min(100, max(0, p))\n';
const SRC_LAYOUT = {
  'pyproject.toml':
    '[project]\nname = "pricing"\nversion = "1.0.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  'src/pricing/__init__.py': PRICING,
  'tests/test_pricing.py':
    'from pricing import clamp_percent\n\n\ndef test_clamps():\n    assert clamp_percent(-5) == 0\n    assert clamp_percent(150) == 100\n',
};

/**
 * An interpreter outside the tree whose site dir holds an installed copy of `pricing` that is
 * imported as the interpreter starts (its sitecustomize does), as pytest imports iniconfig and
 * pluggy when it loads: before pytest's own `pythonpath` option puts src/ on sys.path. `first`
 * puts that site dir before PYTHONPATH, so it shadows src/ whatever the config says.
 */
function shadowingPython(first: boolean): { bin: string; site: string; dispose: () => void } {
  // Not under /tmp: the sandbox has its own /tmp, so a PATH folder there is not seen inside it.
  const t = { dir: mkdtempSync('/var/tmp/sealgate-shadow-py-') };
  const dispose = (): void => rmSync(t.dir, { recursive: true, force: true });
  const site = join(t.dir, 'bin', 'site');
  writeFiles(join(t.dir, 'bin'), {
    'site/pricing/__init__.py': PRICING,
    'site/sitecustomize.py': 'import pricing  # noqa: F401\n',
    python3: `#!/bin/sh\nsite="$(dirname "$0")/site"\n${first ? 'PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"' : 'PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$site"'}\nexport PYTHONPATH\nexec ${PYTHON} "$@"\n`,
  });
  chmodSync(join(t.dir, 'bin', 'python3'), 0o755);
  return { bin: join(t.dir, 'bin'), site, dispose };
}

const init = (dir: string, path = PATH) => runCli(['init', '--repo', dir], { cwd: dir, env: { PATH: path, HOME } });

test('init, src layout with an installed copy that pytest imports first: test.env PYTHONPATH=src, and the proof run shows src/ was tested', async () => {
  const py = shadowingPython(false);
  const r = makeRepo(SRC_LAYOUT);
  try {
    // The premise: pytest's own pythonpath option comes too late, the tests get the installed copy.
    const where = execFileSync(
      join(py.bin, 'python3'),
      [
        '-c',
        'import sys, pytest\nsys.argv = ["pytest", "-q", "-p", "no:cacheprovider", "-o", "pythonpath=src", "--co", "tests"]\npytest.main()\nimport pricing\nprint("FROM", pricing.__file__)',
      ],
      { cwd: r.dir, encoding: 'utf8', env: { PATH: `${py.bin}:${PATH}`, HOME } },
    );
    assert.ok(where.includes(`FROM ${py.site}/pricing/__init__.py`), where);

    const out = await init(r.dir, `${py.bin}:${PATH}`);
    assert.equal(out.exit, 0, out.stderr);
    const config = JSON.parse(readFileSync(join(r.dir, 'sealgate.config.json'), 'utf8')) as {
      test: { command: string[]; env?: Record<string, string> };
    };
    assert.deepEqual(config.test.env, { PYTHONPATH: 'src' });
    assert.ok(
      !config.test.command.includes('pythonpath=src'),
      "no pytest pythonpath override (it would replace the project's own)",
    );
    assert.match(out.stderr, new RegExp(`an installed copy of pricing is at ${py.site}/pricing/__init__\\.py`));
    assert.match(out.stderr, /1 test\(s\) ran: 1 passed, 0 failed/);
    assert.match(out.stderr, /production code: pricing imported from src\/pricing\/__init__\.py/);
  } finally {
    r.dispose();
    py.dispose();
  }
});

test('init: a src package the tests still import from outside src/ is a refusal, not a warning', async () => {
  const py = shadowingPython(true);
  const r = makeRepo(SRC_LAYOUT);
  try {
    const out = await init(r.dir, `${py.bin}:${PATH}`);
    assert.deepEqual([out.stdout.trim().split('\n').pop(), out.exit], ['E_INPUT_INVALID', 1], out.stderr);
    assert.match(
      out.stderr,
      new RegExp(`the tests imported pricing from ${py.site}/pricing/__init__\\.py, not from src/pricing`),
    );
    assert.match(out.stderr, /then run `sealgate init --check` to prove it/);
  } finally {
    r.dispose();
    py.dispose();
  }
});

test('init: a src package pytest itself imports (here a copy of iniconfig) is named: the oracle would change the test runner too', async () => {
  const installed = execFileSync(
    'python3',
    ['-c', 'import os, iniconfig; print(os.path.dirname(iniconfig.__file__))'],
    { cwd: '/', encoding: 'utf8' },
  ).trim();
  const r = makeRepo({
    'pytest.ini': '[pytest]\ntestpaths = tests\n',
    'tests/test_ini.py':
      'from iniconfig import IniConfig\n\n\ndef test_parse():\n    assert IniConfig("x.ini", data="[a]\\nb = 1\\n")["a"]["b"] == "1"\n',
  });
  try {
    cpSync(installed, join(r.dir, 'src/iniconfig'), { recursive: true, filter: (f) => !f.includes('__pycache__') });
    const out = await init(r.dir);
    assert.equal(out.exit, 0, out.stderr);
    assert.match(
      out.stderr,
      /warning: pytest itself imports iniconfig, so with src\/ first it runs on this tree's iniconfig: .*\(E_CREDIT_MISSING\)/,
    );
    assert.match(out.stderr, /production code: iniconfig imported from src\/iniconfig\/__init__\.py/);
    // A package pytest does not import gets no such warning.
    const plain = makeRepo(SRC_LAYOUT);
    try {
      const o = await init(plain.dir);
      assert.equal(o.exit, 0, o.stderr);
      assert.doesNotMatch(o.stderr, /pytest itself imports/);
    } finally {
      plain.dispose();
    }
  } finally {
    r.dispose();
  }
});

test('init: a suite in which no test passes (all fail, or all skipped) is a refusal with the next step', async () => {
  const cases: [string, string, RegExp][] = [
    [
      'all fail',
      'def test_a():\n    assert 1 == 2\n\n\ndef test_b():\n    raise RuntimeError("boom")\n',
      /no test passed on the base tree \(2 ran: 2 failed, 0 error, 0 skipped; failing: tests\/test_a\.py::tests\.test_a::test_a, tests\/test_a\.py::tests\.test_a::test_b\)/,
    ],
    [
      'all skipped',
      'import pytest\n\n\n@pytest.mark.skip(reason="later")\ndef test_a():\n    pass\n',
      /no test passed on the base tree \(1 ran: 0 failed, 0 error, 1 skipped; skipped: tests\/test_a\.py::tests\.test_a::test_a\)/,
    ],
  ];
  for (const [name, body, expected] of cases) {
    const r = makeRepo({ 'pytest.ini': '[pytest]\ntestpaths = tests\n', 'tests/test_a.py': body });
    try {
      const out = await init(r.dir);
      assert.deepEqual(
        [out.stdout.trim().split('\n').pop(), out.exit],
        ['E_INPUT_INVALID', 1],
        `${name}: ${out.stderr}`,
      );
      assert.match(out.stderr, expected, name);
      assert.match(
        out.stderr,
        /make the suite pass on the base commit .*then run `sealgate init --check` to prove it/,
        name,
      );
      assert.equal(out.stderr.split('E_INPUT_INVALID').length, 2, `${name}: the code is stated once`);
    } finally {
      r.dispose();
    }
  }
});

test('init: a suite with a failing test is a refusal: every proposal would end in E_TESTS_FAILED', async () => {
  const r = makeRepo({
    'pytest.ini': '[pytest]\ntestpaths = tests\n',
    'tests/test_a.py': 'def test_ok():\n    assert 1 + 1 == 2\n\n\ndef test_broken():\n    assert 1 == 2\n',
  });
  try {
    const out = await init(r.dir);
    assert.deepEqual([out.stdout.trim().split('\n').pop(), out.exit], ['E_INPUT_INVALID', 1], out.stderr);
    assert.match(
      out.stderr,
      /1 test\(s\) fail on the base tree \(2 ran: 1 passed, 1 failed, 0 error, 0 skipped; failing: tests\/test_a\.py::tests\.test_a::test_broken\)/,
    );
    assert.match(out.stderr, /E_TESTS_FAILED\), so every proposal would be rejected whatever it changes/);
    assert.match(out.stderr, /make the suite pass on the base commit .*then run `sealgate init --check` to prove it/);
    // Made to pass, --check proves it.
    writeFiles(r.dir, { 'tests/test_a.py': 'def test_ok():\n    assert 1 + 1 == 2\n' });
    const again = await runCli(['init', '--check', '--repo', r.dir], { cwd: r.dir, env: { PATH, HOME } });
    assert.equal(again.exit, 0, again.stderr);
  } finally {
    r.dispose();
  }
});

test('init: a command that exits non-zero though no test failed is a refusal: the gate rejects such a run', async () => {
  // An error outside any test (vitest before 1.0 writing its cache into a read-only node_modules did this): here a conftest sets the exit status.
  const r = makeRepo({
    'pytest.ini': '[pytest]\ntestpaths = tests\n',
    'tests/conftest.py': 'def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 1\n',
    'tests/test_a.py': 'def test_ok():\n    assert 1 + 1 == 2\n',
  });
  try {
    const out = await init(r.dir);
    assert.deepEqual([out.stdout.trim().split('\n').pop(), out.exit], ['E_INPUT_INVALID', 1], out.stderr);
    assert.match(
      out.stderr,
      /the command exited 1 although no test failed \(1 ran: 1 passed, 0 skipped\): the gate rejects such a sealed run \(E_TESTS_FAILED\)/,
    );
    assert.match(
      out.stderr,
      /make the command exit 0 on the base commit .*then run `sealgate init --check` to prove it/,
    );
  } finally {
    r.dispose();
  }
});

test('init: addopts naming a plugin that is not installed is named with its way out; the edited config is proven by --check, which writes nothing, and --check refuses what does not prove', async () => {
  // The project's pytest configuration asks for pytest-cov, which this interpreter lacks: pytest exits 4 before any test.
  const r = makeRepo({
    '.pytest.ini': '[pytest]\naddopts = --cov=pricing --cov-branch\n',
    'pricing.py': PRICING,
    'tests/test_pricing.py':
      'from pricing import clamp_percent\n\n\ndef test_clamps():\n    assert clamp_percent(150) == 100\n',
  });
  try {
    const first = await init(r.dir);
    assert.deepEqual([first.stdout.trim().split('\n').pop(), first.exit], ['E_INPUT_INVALID', 1], first.stderr);
    assert.match(first.stderr, /unrecognized arguments: --cov=pricing --cov-branch/);
    assert.match(first.stderr, /add "-o", "addopts=" to test\.command/);
    assert.match(first.stderr, /then run `sealgate init --check` to prove it/);
    // The user takes the hint by hand; --force would write the detected config again, --check proves this one.
    const path = join(r.dir, 'sealgate.config.json');
    const config = JSON.parse(readFileSync(path, 'utf8')) as { test: { command: string[] } };
    config.test.command.splice(3, 0, '-o', 'addopts=');
    const edited = JSON.stringify(config, null, 2) + '\n';
    writeFiles(r.dir, { 'sealgate.config.json': edited });
    const check = await runCli(['init', '--check', '--repo', r.dir], { cwd: r.dir, env: { PATH, HOME } });
    assert.equal(check.exit, 0, check.stderr);
    assert.match(check.stderr, /1 test\(s\) ran: 1 passed, 0 failed/);
    assert.equal(readFileSync(path, 'utf8'), edited, '--check wrote the config');
    // The same check on a command that runs no test is the refusal init gives.
    writeFiles(r.dir, {
      'sealgate.config.json': JSON.stringify({
        ...config,
        test: { ...config.test, command: ['python3', '-m', 'pytest', '--junitxml=junit.xml', 'no-such-dir'] },
      }),
    });
    const bad = await runCli(['init', '--check', '--repo', r.dir], { cwd: r.dir, env: { PATH, HOME } });
    assert.deepEqual([bad.stdout.trim().split('\n').pop(), bad.exit], ['E_INPUT_INVALID', 1], bad.stderr);
    assert.match(bad.stderr, /the suite ran no test/);
    const usage = await runCli(['init', '--check', '--force', '--repo', r.dir], { cwd: r.dir, env: { PATH, HOME } });
    assert.equal(usage.exit, 2, usage.stderr);
  } finally {
    r.dispose();
  }
});

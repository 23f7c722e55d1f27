import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { baseText, followUpFiles, propose, runnerJob, verify } from './example.js';

// Patches that change how they are graded. Each is refused by the runner's first step
// (symbols), before anything is sealed or run, with E_POLICY_CHANGED and the file on stderr.
const config = JSON.parse(baseText('sealgate.config.json')) as Record<string, unknown> & {
  test: Record<string, unknown>;
  credit: Record<string, unknown>;
};
const asConfig = (c: unknown): string => JSON.stringify(c, null, 2) + '\n';
const pkg = JSON.parse(baseText('package.json')) as Record<string, unknown>;
const PYPROJECT =
  '[project]\nname = "pricing"\ndependencies = ["requests==2.31.0"]\n\n[tool.pytest.ini_options]\naddopts = "-q"\ntestpaths = ["tests"]\n';

const SCENARIOS: {
  name: string;
  edits: () => Record<string, string | null>;
  base?: Record<string, string>;
  reason: RegExp;
}[] = [
  {
    name: 'the config ignores the changed file and itself',
    edits: () => ({
      'sealgate.config.json': asConfig({ ...config, ignorePatterns: ['src/**', 'sealgate.config.json'] }),
    }),
    reason: /sealgate\.config\.json, a policy file/,
  },
  {
    name: 'the test command is replaced by a script that writes its own JUnit',
    edits: () => ({
      'sealgate.config.json': asConfig({ ...config, test: { ...config.test, command: ['node', 'fake-junit.mjs'] } }),
      'fake-junit.mjs': "import { writeFileSync } from 'node:fs';\nwriteFileSync('junit.xml', '<testsuites/>');\n",
    }),
    reason: /sealgate\.config\.json/,
  },
  {
    name: 'the mutant budget is lowered',
    edits: () => ({ 'sealgate.config.json': asConfig({ ...config, credit: { mutantBudget: 1 } }) }),
    reason: /sealgate\.config\.json/,
  },
  {
    name: 'a test-runner config is added (tsconfig paths redirect the tests to another module)',
    edits: () => ({ 'tsconfig.json': '{ "compilerOptions": { "paths": { "../src/pricing.js": ["./stub.ts"] } } }\n' }),
    reason: /tsconfig\.json, a policy file \(matches "tsconfig\*\.json"\)/,
  },
  // With ts-jest 29.3 and later, `isolatedModules: true` in tsconfig.json makes sealgate skip the
  // type check of TS mutants (tsJestTranspilesOnly): neither file may be changed to steer that.
  {
    name: 'tsconfig.json is given isolatedModules, to switch the type check of the mutants off',
    edits: () => ({ 'tsconfig.json': '{ "compilerOptions": { "isolatedModules": true } }\n' }),
    reason: /tsconfig\.json, a policy file \(matches "tsconfig\*\.json"\)/,
  },
  {
    name: 'a jest config points ts-jest at another tsconfig (one that type-checks) behind tsconfig.json',
    edits: () => ({
      'jest.config.js': "module.exports = require('./jest.shared.js');\n",
      'jest.shared.js':
        "module.exports = { transform: { '^.+\\\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.strict.json' }] } };\n",
    }),
    reason: /jest\.config\.js, a policy file \(matches "jest\.config\.\*"\)/,
  },
  {
    name: 'an .npmrc is added',
    edits: () => ({ '.npmrc': 'node-options=--require ./hook.cjs\n' }),
    reason: /adds \.npmrc, a policy file/,
  },
  {
    // A package installed from the tree: pytest loads its pytest11 entry point as a plugin (python -m pytest puts the root on sys.path), a conftest under another name.
    name: 'a pytest plugin from the tree (a dist-info entry point whose hook turns failures into passes)',
    edits: () => ({
      'passall-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: passall\nVersion: 1.0\n',
      'passall-1.0.dist-info/entry_points.txt': '[pytest11]\npassall = passall\n',
      'passall.py':
        'import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    out = yield\n    out.get_result().outcome = "passed"\n',
    }),
    reason: /passall-1\.0\.dist-info\/entry_points\.txt, a policy file \(matches "entry_points\.txt"\)/,
  },
  {
    name: 'the same as an egg-info folder below the root',
    edits: () => ({ 'src/passall.egg-info/entry_points.txt': '[pytest11]\npassall = passall\n' }),
    reason: /src\/passall\.egg-info\/entry_points\.txt, a policy file/,
  },
  {
    name: 'a sitecustomize.py (Python runs it at start from a PYTHONPATH folder, before pytest)',
    edits: () => ({ 'src/sitecustomize.py': 'import _pytest.runner\n' }),
    reason: /src\/sitecustomize\.py, a policy file \(matches "sitecustomize\.py"\)/,
  },
  {
    // pytest reads .pytest.ini before pyproject.toml: added, it replaces the base's pytest settings, here with a plugin from the tree.
    name: "a .pytest.ini is added (its addopts load a module of the patch as a plugin, and it replaces pyproject.toml's settings)",
    base: { 'pyproject.toml': PYPROJECT },
    edits: () => ({
      '.pytest.ini': '[pytest]\naddopts = -p passall\n',
      'passall.py':
        'import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    out = yield\n    out.get_result().outcome = "passed"\n',
    }),
    reason: /adds \.pytest\.ini, a policy file \(matches "\.pytest\.ini"\)/,
  },
  {
    // pytest 9 reads its own TOML file before pyproject.toml too: -k deselects the failing test, the suite passes.
    name: 'a pytest.toml is added (pytest 9: its addopts deselect the tests that fail)',
    base: { 'pyproject.toml': PYPROJECT },
    edits: () => ({ 'pytest.toml': '[pytest]\naddopts = ["-k", "not refund"]\n' }),
    reason: /adds pytest\.toml, a policy file \(matches "pytest\.toml"\)/,
  },
  {
    name: 'the same as .pytest.toml',
    edits: () => ({ '.pytest.toml': '[pytest]\naddopts = ["-p", "passall"]\n' }),
    reason: /adds \.pytest\.toml, a policy file/,
  },
  {
    // pytest looks for its configuration from the folder of the paths it is given upwards: `pytest tests` finds tests/pyproject.toml first.
    name: 'a pyproject.toml with pytest settings is added below the root (pytest finds it first for the tests under it)',
    base: { 'pyproject.toml': PYPROJECT },
    edits: () => ({ 'tests/pyproject.toml': '[tool.pytest.ini_options]\naddopts = "-k nothing"\n' }),
    reason: /tests\/pyproject\.toml/,
  },
  {
    name: "package.json's scripts.test is changed",
    edits: () => ({ 'package.json': asConfig({ ...pkg, scripts: { test: 'node -e 0' } }) }),
    reason: /changes package\.json and with it its test settings/,
  },
  // babel-jest reads package.json's "babel" key as a config: a plugin there rewrites every test file before it runs.
  {
    name: "package.json's babel key is added (a transform of every test file)",
    edits: () => ({ 'package.json': asConfig({ ...pkg, babel: { plugins: ['./strip-asserts.cjs'] } }) }),
    reason: /changes package\.json and with it its test settings/,
  },
  {
    name: "pyproject.toml's [tool.pytest.ini_options] is changed",
    base: { 'pyproject.toml': PYPROJECT },
    edits: () => ({ 'pyproject.toml': PYPROJECT.replace('"-q"', '"-q -k nothing"') }),
    reason: /changes pyproject\.toml and with it its test settings/,
  },
];

for (const sc of SCENARIOS) {
  test(`adversarial: ${sc.name}: E_POLICY_CHANGED before anything runs`, { timeout: 120_000 }, async () => {
    const s = await propose({ ...followUpFiles(), ...sc.edits() }, sc.base);
    try {
      const out = await runnerJob(s);
      assert.equal(out.code, 'E_POLICY_CHANGED', out.stderr);
      assert.match(out.stderr, /runner: symbols +E_POLICY_CHANGED/);
      assert.match(out.stderr, sc.reason);
      // The seal comes first (it creates review/runner); no test has run when symbols refuses.
      assert.equal(existsSync(join(s.dir, LAYOUT.results)), false, 'nothing was run');
      assert.doesNotMatch(out.stderr, /runner: run /, 'the run step never started');
      // The gate job says the same from the files, ahead of the missing seal.
      const v = await verify(s);
      assert.equal(v.code, 'E_POLICY_CHANGED', v.stderr);
    } finally {
      s.dispose();
    }
  });
}

test(
  "adversarial: package.json's dependency list is not policy: the runner runs it, and only the uncreditable file stops it",
  { timeout: 300_000 },
  async () => {
    const s = await propose({
      ...followUpFiles(),
      'package.json': asConfig({ ...pkg, dependencies: { 'left-pad': '1.3.0' } }),
    });
    try {
      const out = await runnerJob(s);
      assert.match(out.stderr, /runner: symbols +ok/);
      assert.doesNotMatch(out.stderr, /E_POLICY_CHANGED/);
      // package.json is a file sealgate cannot score (class other), so credit cannot pass: that,
      // not the policy surface, is what holds this patch back (as before this check existed).
      assert.equal(out.code, 'E_CREDIT_MISSING', out.stderr);
      const v = await verify(s);
      assert.equal(v.code, 'E_CREDIT_MISSING');
      const credit = JSON.parse(readFileSync(join(s.dir, LAYOUT.credit), 'utf8')) as { uncreditable: string[] };
      assert.deepEqual(credit.uncreditable, ['package.json']);
    } finally {
      s.dispose();
    }
  },
);

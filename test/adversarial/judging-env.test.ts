import { test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo } from '../helpers/oracle.js';
import { judgingEnvFor } from '../../src/test-runners/index.js';

// The credit runs of a jest project with a TypeScript config get variables the sealed run does
// not have (TS_NODE_TRANSPILE_ONLY, TS_NODE_SKIP_PROJECT): a test can see them. Telling the
// sealed run from the credit runs gains nothing, because every credit run (the controls, the
// null and the real mutants) has the same ones. A test that fails wherever they are set fails
// the first control, the variables are dropped, and it then passes every run: no kill, no credit.
test(
  "a test that fails wherever the credit runs' extra variables are set earns nothing",
  { timeout: 300_000 },
  async () => {
    const fastEnv = judgingEnvFor(['node_modules/.bin/jest', '--ci'], {}, (rel) => rel === 'jest.config.ts')?.env;
    assert.ok(fastEnv !== undefined && Object.keys(fastEnv).length > 0);
    const { text, spans } = layout({
      add: ['export function add(a, b) {', '  return a + b;', '}'],
      mul: ['export function mul(a, b) {', '  return a * b;', '}'],
    });
    const tests = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add, mul } from '../src/calc.mjs';
test('add, only in the sealed run', () => { add(1, 2); if (Object.keys(process.env).some((k) => k.startsWith('TS_NODE_'))) assert.fail('a credit run'); });
test('mul really', () => { assert.equal(mul(3, 4), 12); assert.equal(mul(2, 5), 10); });
`;
    const repo = makeRepo({
      'src/calc.mjs': text,
      'test/calc.test.mjs': tests,
      '.gitignore': 'node_modules\njunit.xml\n',
    });
    try {
      symlinkSync(resolve('node_modules'), join(repo.dir, 'node_modules'), 'dir');
      const s = await scoreRepo(
        repo.dir,
        'src/calc.mjs',
        'javascript',
        spans,
        ['node', '--test', '--test-reporter=junit', '--test-reporter-destination=junit.xml', 'test/calc.test.mjs'],
        { fastEnv, byName: false },
      );
      assert.equal(s.oracle.fastEnv, 'dropped');
      assert.deepEqual(s.scored.credit.credited, ['src/calc.mjs::mul']);
      assert.ok(s.scored.credit.missing.includes('src/calc.mjs::add'));
      assert.ok(!s.scored.credit.test_ids.some((t) => t.includes('add, only in the sealed run')));
    } finally {
      repo.dispose();
    }
  },
);

// The same with pytest, whose credit runs do not load the plugins installed as packages
// (PYTEST_DISABLE_PLUGIN_AUTOLOAD): a test that fails wherever that is set earns nothing.
test(
  "a pytest test that fails wherever the credit runs' plugin switch is set earns nothing",
  { timeout: 300_000 },
  async () => {
    const command = ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junitxml=junit.xml', 'tests'];
    const fastEnv = judgingEnvFor(command, {}, () => false)?.env;
    assert.ok(fastEnv !== undefined && Object.keys(fastEnv).length > 0);
    const { text, spans } = layout({
      add: ['def add(a, b):', '    return a + b'],
      mul: ['def mul(a, b):', '    return a * b'],
    });
    const tests = `import os
from calc import add, mul

def test_add_only_in_the_sealed_run():
    add(1, 2)
    assert not any(k.startswith('PYTEST_DISABLE') for k in os.environ), 'a credit run'

def test_mul_really():
    assert mul(3, 4) == 12
    assert mul(2, 5) == 10
`;
    const repo = makeRepo({ 'calc.py': text, 'tests/test_calc.py': tests, '.gitignore': 'junit.xml\n__pycache__\n' });
    try {
      const s = await scoreRepo(repo.dir, 'calc.py', 'python', spans, command, {
        fastEnv,
        envWithout: ['PYTEST_DISABLE_PLUGIN_AUTOLOAD'],
      });
      assert.equal(s.oracle.fastEnv, 'dropped');
      assert.deepEqual(s.scored.credit.credited, ['calc.py::mul']);
      assert.ok(s.scored.credit.missing.includes('calc.py::add'));
      assert.ok(!s.scored.credit.test_ids.some((t) => t.includes('only_in_the_sealed_run')));
    } finally {
      repo.dispose();
    }
  },
);

// jest's credit runs have coverage off (cheapCommand), the sealed run as the project has it.
// A test that passes only under coverage instrumentation (its global, or the instrumented
// source) passes the sealed run and fails every credit run alike, the first control included:
// it earns nothing, while a real test beside it is credited through the same real jest runs.
test('a jest test that passes only under coverage instrumentation earns nothing', { timeout: 300_000 }, async () => {
  const { text, spans } = layout({
    add: ['function add(a, b) {', '  return a + b;', '}'],
    mul: ['function mul(a, b) {', '  return a * b;', '}'],
  });
  const tests = `const { add, mul } = require('../src/calc');
test('add, only under coverage', () => { add(1, 2); if (typeof globalThis.__coverage__ === 'undefined') throw new Error('a credit run'); });
test('mul really', () => { expect(mul(3, 4)).toBe(12); expect(mul(2, 5)).toBe(10); });
`;
  const repo = makeRepo({
    'package.json': '{"name":"jc","private":true}\n',
    'jest.config.js': 'module.exports = { collectCoverage: true };\n',
    'src/calc.js': `${text}\nmodule.exports = { add, mul };\n`,
    'test/calc.test.js': tests,
    '.gitignore': 'node_modules\njest-results.json\ncoverage\n',
  });
  try {
    symlinkSync(resolve('node_modules'), join(repo.dir, 'node_modules'), 'dir');
    const s = await scoreRepo(
      repo.dir,
      'src/calc.js',
      'javascript',
      spans,
      ['node_modules/.bin/jest', '--ci', '--json', '--outputFile=jest-results.json'],
      { junit: 'jest-results.json', byName: false },
    );
    // The credit runs really had coverage off: the sniffing test failed the first control (not usable), the real one passed it.
    assert.ok(
      ![...s.oracle.usable].some((t) => t.includes('add, only under coverage')),
      [...s.oracle.usable].join(', '),
    );
    assert.ok([...s.oracle.usable].some((t) => t.includes('mul really')));
    assert.deepEqual(s.scored.credit.credited, ['src/calc.js::mul']);
    assert.ok(s.scored.credit.missing.includes('src/calc.js::add'));
    assert.ok(!s.scored.credit.test_ids.some((t) => t.includes('add, only under coverage')));
  } finally {
    repo.dispose();
  }
});

// vitest's credit runs end with `--coverage.enabled=false` (cheapCommand), which overrides the
// config's `coverage.enabled: true`. The config's coverage provider here (a custom one, the
// project's own file) leaves a marker in the tree when coverage starts; a test that passes only
// where the marker is passes the sealed run and fails every credit run alike: it earns nothing,
// while a real test beside it is credited through the same real vitest runs.
test('a vitest test that passes only with coverage on earns nothing', { timeout: 300_000 }, async () => {
  const { text, spans } = layout({
    add: ['export function add(a, b) {', '  return a + b;', '}'],
    mul: ['export function mul(a, b) {', '  return a * b;', '}'],
  });
  const provider = `import { writeFileSync } from 'node:fs';
export default {
  getProvider() {
    return {
      name: 'marker',
      initialize(ctx) { this.options = ctx.config.coverage; },
      resolveOptions() { return this.options; },
      clean() { writeFileSync('coverage-ran.txt', '1\\n'); },
      onAfterSuiteRun() {},
      generateCoverage() { return {}; },
      reportCoverage() {},
    };
  },
  takeCoverage() { return {}; },
  startCoverage() {},
  stopCoverage() {},
};
`;
  const tests = `import { test, expect } from 'vitest';
import { existsSync } from 'node:fs';
import { add, mul } from '../src/calc.mjs';
test('add, only with coverage on', () => { add(1, 2); expect(existsSync('coverage-ran.txt')).toBe(true); });
test('mul really', () => { expect(mul(3, 4)).toBe(12); expect(mul(2, 5)).toBe(10); });
`;
  const repo = makeRepo({
    'package.json': '{"name":"vc","private":true,"type":"module"}\n',
    'vitest.config.mjs':
      "export default { test: { coverage: { enabled: true, provider: 'custom', customProviderModule: './coverage-provider.mjs' } } };\n",
    'coverage-provider.mjs': provider,
    'src/calc.mjs': text,
    'test/calc.test.mjs': tests,
    '.gitignore': 'node_modules\njunit.xml\ncoverage-ran.txt\n',
  });
  try {
    symlinkSync(resolve('node_modules'), join(repo.dir, 'node_modules'), 'dir');
    const s = await scoreRepo(
      repo.dir,
      'src/calc.mjs',
      'javascript',
      spans,
      ['node_modules/.bin/vitest', 'run', '--reporter=junit', '--outputFile.junit=junit.xml'],
      { byName: false },
    );
    // The sealed run had coverage on (both tests passed there); the credit runs had it off.
    assert.ok(![...s.oracle.usable].some((t) => t.includes('only with coverage on')), [...s.oracle.usable].join(', '));
    assert.ok([...s.oracle.usable].some((t) => t.includes('mul really')));
    assert.deepEqual(s.scored.credit.credited, ['src/calc.mjs::mul']);
    assert.ok(s.scored.credit.missing.includes('src/calc.mjs::add'));
    assert.ok(!s.scored.credit.test_ids.some((t) => t.includes('only with coverage on')));
  } finally {
    repo.dispose();
  }
});

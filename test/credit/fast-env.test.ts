import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo, type Scoring } from '../helpers/oracle.js';
import { judgingEnvFor } from '../../src/test-runners/index.js';

const JEST_FAST = { TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_SKIP_PROJECT: 'true' };
const PYTEST_FAST = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' };

describe('judgingEnvFor: pytest without the plugins installed as packages', () => {
  const none = () => false;
  it('pytest however it is started, whatever its arguments', () => {
    for (const cmd of [
      ['pytest'],
      ['py.test', '-q'],
      ['python3', '-m', 'pytest', '-p', 'no:cacheprovider', 'tests'],
      ['python', '-m', 'pytest'],
      ['/usr/bin/python3.11', '-m', 'pytest', '-p', 'xdist'],
    ]) {
      assert.deepEqual(judgingEnvFor(cmd, {}, none)?.env, PYTEST_FAST, cmd.join(' '));
    }
  });
  it('nothing when the policy sets a PYTEST_ variable itself (its own plugins, options or the autoload switch)', () => {
    for (const k of ['PYTEST_PLUGINS', 'PYTEST_ADDOPTS', 'PYTEST_DISABLE_PLUGIN_AUTOLOAD'])
      assert.equal(judgingEnvFor(['python3', '-m', 'pytest'], { [k]: '' }, none), null, k);
    assert.deepEqual(judgingEnvFor(['python3', '-m', 'pytest'], { PYTHONPATH: 'src' }, none)?.env, PYTEST_FAST);
  });
  it('not for a python program that is not pytest', () => {
    assert.equal(judgingEnvFor(['python3', 'run_tests.py'], {}, none), null);
    assert.equal(judgingEnvFor(['python3', '-m', 'unittest'], {}, none), null);
  });
});

describe('judgingEnvFor: jest with a TypeScript config gets ts-node without the type check', () => {
  const tree =
    (...files: string[]) =>
    (rel: string) =>
      files.includes(rel);
  it('jest (by path or through npx) with jest.config.ts, .mts or .cts at the root', () => {
    for (const cfg of ['jest.config.ts', 'jest.config.mts', 'jest.config.cts']) {
      assert.deepEqual(
        judgingEnvFor(['node_modules/.bin/jest', '--ci'], {}, tree(cfg, 'src/a.ts'))?.env,
        JEST_FAST,
        cfg,
      );
      assert.deepEqual(judgingEnvFor(['npx', 'jest', '--ci'], {}, tree(cfg))?.env, JEST_FAST, cfg);
    }
  });
  it('an explicit --config decides: a .ts file yes; a .js, .json or inline JSON config no', () => {
    assert.deepEqual(judgingEnvFor(['jest', '--config', 'configs/jest.ts'], {}, tree())?.env, JEST_FAST);
    assert.deepEqual(judgingEnvFor(['jest', '-c', 'j.mts'], {}, tree())?.env, JEST_FAST);
    assert.deepEqual(judgingEnvFor(['jest', '--config=j.cts'], {}, tree())?.env, JEST_FAST);
    assert.equal(judgingEnvFor(['jest', '--config', 'jest.config.js'], {}, tree('jest.config.ts')), null);
    assert.equal(judgingEnvFor(['jest', '--config=jest.json'], {}, tree('jest.config.ts')), null);
    assert.equal(judgingEnvFor(['jest', '--config', '{"preset":"x.ts"}'], {}, tree()), null);
  });
  it('nothing for other runners, for a JavaScript config, or when the policy sets a TS_NODE_ variable itself', () => {
    assert.equal(judgingEnvFor(['node_modules/.bin/jest'], {}, tree('jest.config.js')), null);
    assert.equal(judgingEnvFor(['node_modules/.bin/jest'], {}, tree('src/jest.config.ts')), null);
    assert.equal(judgingEnvFor(['vitest', 'run'], {}, tree('jest.config.ts')), null);
    assert.equal(judgingEnvFor(['jest'], { TS_NODE_COMPILER_OPTIONS: '{}' }, tree('jest.config.ts')), null);
    assert.equal(judgingEnvFor(['jest'], { TS_NODE_TRANSPILE_ONLY: 'false' }, tree('jest.config.ts')), null);
  });
});

// The oracle's side, on node:test (the mechanism is the runner's environment, whichever runner):
// a variable in fastEnv reaches the first control; it stays only when that control passed every
// test the sealed run passed, and then or else every judging run has one environment.
describe(
  'the oracle keeps fastEnv only when it changes no outcome, and then uses one environment for every run',
  { concurrency: false },
  () => {
    const { text, spans } = layout({ add: ['export function add(a, b) {', '  return a + b;', '}'] });
    const command = [
      'node',
      '--test',
      '--test-reporter=junit',
      '--test-reporter-destination=junit.xml',
      'test/add.test.mjs',
    ];
    const make = (body: string) => {
      const repo = makeRepo({
        'src/add.mjs': text,
        'test/add.test.mjs': `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\n${body}\n`,
        '.gitignore': 'node_modules\njunit.xml\n',
      });
      symlinkSync(resolve('node_modules'), join(repo.dir, 'node_modules'), 'dir');
      return repo;
    };
    let plain: { dir: string; dispose: () => void };
    let sniff: { dir: string; dispose: () => void };
    let kept: Scoring;
    let dropped: Scoring;
    before(async () => {
      plain = make(`test('adds', () => { assert.equal(add(2, 3), 5); });`);
      // Passes without SG_FAST (the sealed run), fails with it: the fast environment would change an outcome.
      sniff = make(
        `test('adds where SG_FAST is unset', () => { assert.notEqual(process.env.SG_FAST, '1'); assert.equal(add(2, 3), 5); });`,
      );
      kept = await scoreRepo(plain.dir, 'src/add.mjs', 'javascript', spans, command, { fastEnv: { SG_FAST: '1' } });
      dropped = await scoreRepo(sniff.dir, 'src/add.mjs', 'javascript', spans, command, { fastEnv: { SG_FAST: '1' } });
    });
    after(() => {
      plain.dispose();
      sniff.dispose();
    });
    it('kept: no test noticed it, and the symbol is credited as without it', () => {
      assert.equal(kept.oracle.fastEnv, 'kept');
      assert.deepEqual(kept.scored.credit.credited, ['src/add.mjs::add']);
    });
    it('dropped: a test failed with it, so the trace, the control and every later run went without it, and that test still earns its credit', () => {
      assert.equal(dropped.oracle.fastEnv, 'dropped');
      // Had any judging run (a mutant, the null, the control after) kept SG_FAST, the test would have failed it and earned nothing.
      assert.deepEqual(dropped.scored.credit.credited, ['src/add.mjs::add']);
      assert.equal(dropped.scored.credit.evidence?.['src/add.mjs::add']?.sensitive, undefined);
    });
    it('without fastEnv nothing is reported', async () => {
      const r = await scoreRepo(plain.dir, 'src/add.mjs', 'javascript', spans, command);
      assert.equal(r.oracle.fastEnv, null);
      assert.deepEqual(r.scored.credit.credited, ['src/add.mjs::add']);
    });
  },
);

// Real pytest: a plugin installed as a package (a dist-info folder on sys.path whose entry point
// is in the pytest11 group, as pip installs one) loads in the sealed run. With pytest's fast
// environment it does not: kept when no test needed it, dropped when a test uses its fixture.
describe(
  'pytest: the plugins installed as packages stay unloaded only when no test needs one',
  { concurrency: false },
  () => {
    const { text, spans } = layout({ add: ['def add(a, b):', '    return a + b'] });
    const command = ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junitxml=junit.xml', 'tests'];
    const fastEnv = judgingEnvFor(command, {}, () => false)?.env ?? {};
    const make = (test: string) =>
      makeRepo({
        'calc.py': text,
        'tests/test_calc.py': `from calc import add\n\n${test}\n`,
        'sgplug.py': 'import pytest\n\n@pytest.fixture\ndef three():\n    return 3\n',
        'sgplug-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: sgplug\nVersion: 1.0\n',
        'sgplug-1.0.dist-info/entry_points.txt': '[pytest11]\nsgplug = sgplug\n',
        '.gitignore': 'junit.xml\n__pycache__\n',
      });
    let plain: { dir: string; dispose: () => void };
    let needs: { dir: string; dispose: () => void };
    let kept: Scoring;
    let dropped: Scoring;
    before(async () => {
      assert.deepEqual(fastEnv, PYTEST_FAST);
      plain = make('def test_adds():\n    assert add(2, 3) == 5');
      needs = make('def test_adds_three(three):\n    assert add(2, three) == 5');
      // The helpers' child environment turns autoload off for speed: these runs load plugins as a user's would.
      kept = await scoreRepo(plain.dir, 'calc.py', 'python', spans, command, {
        fastEnv,
        envWithout: ['PYTEST_DISABLE_PLUGIN_AUTOLOAD'],
      });
      dropped = await scoreRepo(needs.dir, 'calc.py', 'python', spans, command, {
        fastEnv,
        envWithout: ['PYTEST_DISABLE_PLUGIN_AUTOLOAD'],
      });
    });
    after(() => {
      plain.dispose();
      needs.dispose();
    });
    it('kept: no test needed the plugin, and the symbol is credited', () => {
      assert.equal(kept.oracle.fastEnv, 'kept');
      assert.deepEqual(kept.scored.credit.credited, ['calc.py::add']);
    });
    it("dropped: the test using the plugin's fixture errored without it, so every credit run loaded the plugins, and the test earns its credit", () => {
      assert.equal(dropped.oracle.fastEnv, 'dropped');
      assert.deepEqual(dropped.scored.credit.credited, ['calc.py::add']);
      assert.ok(dropped.scored.credit.test_ids.some((t) => t.includes('test_adds_three')));
    });
  },
);

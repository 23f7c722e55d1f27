import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo, type Scoring } from '../helpers/oracle.js';
import { judgingEnvFor } from '../../src/credit/select.js';

const JEST_FAST = { TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_SKIP_PROJECT: 'true' };

describe('judgingEnvFor: jest with a TypeScript config gets ts-node without the type check', () => {
  const tree = (...files: string[]) => (rel: string) => files.includes(rel);
  it('jest (by path or through npx) with jest.config.ts, .mts or .cts at the root', () => {
    for (const cfg of ['jest.config.ts', 'jest.config.mts', 'jest.config.cts']) {
      assert.deepEqual(judgingEnvFor(['node_modules/.bin/jest', '--ci'], {}, tree(cfg, 'src/a.ts')), JEST_FAST, cfg);
      assert.deepEqual(judgingEnvFor(['npx', 'jest', '--ci'], {}, tree(cfg)), JEST_FAST, cfg);
    }
  });
  it('an explicit --config decides: a .ts file yes; a .js, .json or inline JSON config no', () => {
    assert.deepEqual(judgingEnvFor(['jest', '--config', 'configs/jest.ts'], {}, tree()), JEST_FAST);
    assert.deepEqual(judgingEnvFor(['jest', '-c', 'j.mts'], {}, tree()), JEST_FAST);
    assert.deepEqual(judgingEnvFor(['jest', '--config=j.cts'], {}, tree()), JEST_FAST);
    assert.equal(judgingEnvFor(['jest', '--config', 'jest.config.js'], {}, tree('jest.config.ts')), null);
    assert.equal(judgingEnvFor(['jest', '--config=jest.json'], {}, tree('jest.config.ts')), null);
    assert.equal(judgingEnvFor(['jest', '--config', '{"preset":"x.ts"}'], {}, tree()), null);
  });
  it('nothing for other runners, for a JavaScript config, or when the policy sets a TS_NODE_ variable itself', () => {
    assert.equal(judgingEnvFor(['node_modules/.bin/jest'], {}, tree('jest.config.js')), null);
    assert.equal(judgingEnvFor(['node_modules/.bin/jest'], {}, tree('src/jest.config.ts')), null);
    assert.equal(judgingEnvFor(['vitest', 'run'], {}, tree('jest.config.ts')), null);
    assert.equal(judgingEnvFor(['python3', '-m', 'pytest'], {}, tree('jest.config.ts')), null);
    assert.equal(judgingEnvFor(['jest'], { TS_NODE_COMPILER_OPTIONS: '{}' }, tree('jest.config.ts')), null);
    assert.equal(judgingEnvFor(['jest'], { TS_NODE_TRANSPILE_ONLY: 'false' }, tree('jest.config.ts')), null);
  });
});

// The oracle's side, on node:test (the mechanism is the runner's environment, whichever runner):
// a variable in fastEnv reaches the first control; it stays only when that control passed every
// test the sealed run passed, and then or else every judging run has one environment.
describe('the oracle keeps fastEnv only when it changes no outcome, and then uses one environment for every run', { concurrency: false }, () => {
  const { text, spans } = layout({ add: ['export function add(a, b) {', '  return a + b;', '}'] });
  const command = ['node', '--test', '--test-reporter=junit', '--test-reporter-destination=junit.xml', 'test/add.test.mjs'];
  const make = (body: string) => {
    const repo = makeRepo({ 'src/add.mjs': text, 'test/add.test.mjs': `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\n${body}\n`, '.gitignore': 'node_modules\njunit.xml\n' });
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
    sniff = make(`test('adds where SG_FAST is unset', () => { assert.notEqual(process.env.SG_FAST, '1'); assert.equal(add(2, 3), 5); });`);
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
});

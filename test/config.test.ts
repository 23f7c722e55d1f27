import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfig } from '../src/config/read.js';
import { DEFAULT_CONFIG, DEFAULT_TEST_PATTERNS } from '../src/config/schema.js';
import { SealgateError } from '../src/core/errors.js';
import { tempDir } from './helpers/git.js';

function withConfig(files: Record<string, string>, fn: (dir: string) => void): void {
  const t = tempDir();
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(t.dir, name), text);
    fn(t.dir);
  } finally {
    t.dispose();
  }
}

const refuses = (files: Record<string, string>, pattern: RegExp): void =>
  withConfig(files, (dir) =>
    assert.throws(
      () => readConfig(dir),
      (e: unknown) =>
        e instanceof SealgateError &&
        e.code === 'E_INPUT_INVALID' &&
        e.findings.some((f) => pattern.test(`${f.path}: ${f.detail}`)),
    ),
  );

test('no config file: the defaults', () => {
  withConfig({}, (dir) => assert.deepEqual(readConfig(dir), DEFAULT_CONFIG));
});

test('JSON and YAML configs give the same result', () => {
  const json =
    '{\n  "testPatterns": ["qa/**"],\n  "ignorePatterns": ["*.txt"],\n  "fixtures": ["fixtures/**"],\n  "clock": "frozen",\n  "locale": "C.UTF-8"\n}\n';
  const yaml =
    'testPatterns: ["qa/**"]\nignorePatterns:\n  - "*.txt"\nfixtures: [fixtures/**]\nclock: frozen\nlocale: C.UTF-8\n';
  let a: unknown;
  withConfig({ 'sealgate.config.json': json }, (dir) => (a = readConfig(dir)));
  withConfig({ 'sealgate.config.yaml': yaml }, (dir) => assert.deepEqual(readConfig(dir), a));
  withConfig({ 'sealgate.config.json': json }, (dir) => {
    const c = readConfig(dir);
    assert.deepEqual(c.testPatterns, ['qa/**']);
    assert.deepEqual(c.fixtures, ['fixtures/**']);
  });
});

test('extraTestPatterns add to the defaults', () => {
  withConfig({ 'sealgate.config.json': '{"extraTestPatterns": ["e2e/**"]}\n' }, (dir) =>
    assert.deepEqual(readConfig(dir).testPatterns, [...DEFAULT_TEST_PATTERNS, 'e2e/**']),
  );
});

test('strict: unknown keys, wrong types, bad globs, duplicates, two config files', () => {
  refuses({ 'sealgate.config.json': '{"testPattern": []}\n' }, /testPattern: unknown field/);
  refuses({ 'sealgate.config.json': '{"testPatterns": "tests/**"}\n' }, /testPatterns/);
  refuses({ 'sealgate.config.json': '{"testPatterns": ["../x"]}\n' }, /bad glob/);
  refuses({ 'sealgate.config.json': '{"testPatterns": ["a", "a"]}\n' }, /must not repeat/);
  refuses({ 'sealgate.config.json': '{"test": {"timeoutSeconds": 0}}\n' }, /at least 1/);
  refuses({ 'sealgate.config.json': '{"symbols": {"docstringChanges": "false"}}\n' }, /boolean/);
  refuses({ 'sealgate.config.json': '{"a": 1, "a": 2}\n' }, /duplicate key/);
  refuses({ 'sealgate.config.yaml': 'clock: frozen\nclock: live\n' }, /duplicate key/);
  refuses({ 'sealgate.config.json': '{}\n', 'sealgate.config.yaml': '{}\n' }, /more than one sealgate config/);
  refuses({ 'sealgate.config.json': '{"fixtures": ["a/**", "a/**"]}\n' }, /must not repeat/);
});

test('"fixtures": [] is a project without fixtures, not a missing field', () => {
  withConfig({ 'sealgate.config.json': '{"fixtures": []}\n' }, (dir) => assert.deepEqual(readConfig(dir).fixtures, []));
  withConfig({ 'sealgate.config.json': '{}\n' }, (dir) => assert.equal(readConfig(dir).fixtures, undefined));
});

test('sandbox: "bwrap" by default, "none" only as that exact string; test.env is a strict map of names the seal does not own', () => {
  withConfig({}, (dir) => assert.equal(readConfig(dir).sandbox, 'bwrap'));
  withConfig(
    { 'sealgate.config.json': '{"sandbox": "none", "test": {"env": {"FEATURE": "on", "_X1": ""}}}\n' },
    (dir) => {
      const c = readConfig(dir);
      assert.equal(c.sandbox, 'none');
      assert.deepEqual(c.test.env, { FEATURE: 'on', _X1: '' });
    },
  );
  for (const bad of ['false', '"false"', '"None"', '"bwrap "', 'null', '0', '["none"]'])
    refuses({ 'sealgate.config.json': `{"sandbox": ${bad}}\n` }, /sandbox/);
  refuses({ 'sealgate.config.yaml': 'sandbox: no\n' }, /sandbox/);
  for (const name of [
    'PATH',
    'HOME',
    'TMPDIR',
    'CI',
    'SEED',
    'TZ',
    'LC_ALL',
    'LANG',
    'PYTHONHASHSEED',
    'SEALGATE_DIGEST',
    'LD_PRELOAD',
    'FAKETIME',
    '1X',
    'A-B',
    'A B',
    '',
  ]) {
    refuses({ 'sealgate.config.json': JSON.stringify({ test: { env: { [name]: 'x' } } }) + '\n' }, /test\.env/);
  }
  refuses({ 'sealgate.config.json': '{"test": {"env": {"A": 1}}}\n' }, /test\.env/);
  refuses({ 'sealgate.config.json': '{"test": {"env": {"A": "x", "A": "y"}}}\n' }, /duplicate|A/);
  refuses({ 'sealgate.config.json': '{"test": {"env": ["A=x"]}}\n' }, /test\.env/);
});

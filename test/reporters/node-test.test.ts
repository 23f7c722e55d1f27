import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseJunitXml } from '../../src/runner/junit.js';
import { tempDir, writeFiles } from '../helpers/git.js';

// The shipped node:test reporter: every case names its file, which Node 20's junit reporter does not.
// node loads reporters before any --import hook, so this runs the built copy (npm test builds first).
const REPORTER = resolve('dist/reporters/node-test.js');

/** This process's environment without the variables that make a child think it runs inside this test. */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== 'NODE_TEST_CONTEXT' && k !== 'NODE_OPTIONS') env[k] = v;
  return env;
}

test('sealgate/node-test-reporter: JUnit whose ids name the test file, for every shape node:test has', () => {
  assert.ok(existsSync(REPORTER), `${REPORTER} is missing: run npm run build`);
  const t = tempDir('sealgate-node-reporter-');
  try {
    writeFiles(t.dir, {
      'test/a.test.mjs': [
        "import { describe, test } from 'node:test';",
        "describe('pricing', () => {",
        "  describe('tax', () => { test('rounds', () => {}); });",
        "  test('fails', () => { throw new Error('boom <&\"> \\u0001'); });",
        '});',
        "test('top', () => {});",
        "test.skip('skipped', () => {});",
        "test.todo('later');",
        "test('with subtests', async (t) => { await t.test('inner', () => {}); });",
        '',
      ].join('\n'),
      'test/b.test.mjs': "import { test } from 'node:test';\ntest('top', () => {});\n",
      'test/broken.test.mjs': 'this is not javascript(\n',
    });
    const r = spawnSync(
      process.execPath,
      [
        '--test',
        `--test-reporter=${REPORTER}`,
        '--test-reporter-destination=junit.xml',
        'test/a.test.mjs',
        'test/b.test.mjs',
        'test/broken.test.mjs',
      ],
      { cwd: t.dir, encoding: 'utf8', env: childEnv() },
    );
    assert.equal(r.status, 1, r.stderr);
    const parsed = parseJunitXml(readFileSync(join(t.dir, 'junit.xml')), 'junit.xml');
    assert.ok(parsed.ok, JSON.stringify(parsed));
    const ids = Object.fromEntries(parsed.value.map((c) => [c.id, c.status]));
    assert.deepEqual(ids, {
      'test/a.test.mjs::pricing > tax::rounds': 'passed',
      'test/a.test.mjs::pricing::fails': 'failed',
      'test/a.test.mjs::::top': 'passed',
      'test/a.test.mjs::::skipped': 'skipped',
      'test/a.test.mjs::::later': 'skipped',
      'test/a.test.mjs::with subtests::inner': 'passed',
      'test/b.test.mjs::::top': 'passed',
      'test/broken.test.mjs::::test/broken.test.mjs': 'failed',
    });
  } finally {
    t.dispose();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkGlob, matchesGlob } from '../../src/core/glob.js';

const cases: [string, string, boolean][] = [
  ['**/test/**', 'test/a.py', true],
  ['**/test/**', 'pkg/test/deep/a.py', true],
  ['**/test/**', 'pkg/testing/a.py', false],
  ['**/test/**', 'contest/a.py', false],
  ['*.test.*', 'src/a.test.ts', true],
  ['*.test.*', 'src/latest.ts', false],
  ['test_*.py', 'pkg/test_x.py', true],
  ['test_*.py', 'pkg/my_test_x.py', false],
  ['*Test.java', 'src/main/FooTest.java', true],
  ['*Test.java', 'src/main/FooTester.java', false],
  ['fixtures/*.json', 'fixtures/a.json', true],
  ['fixtures/*.json', 'fixtures/sub/a.json', false],
  ['fixtures/*.json', 'x/fixtures/a.json', false],
  ['fixtures/**', 'fixtures/sub/a.json', true],
  ['src/', 'src/a/b.ts', true],
  ['*.{md,rst}', 'docs/a.rst', true],
  ['*.md', 'a.md.ts', false],
  ['a?c', 'abc', true],
  ['a?c', 'a/c', false],
  ['*.ts', 'a.(ts', false],
];

test('globs are anchored and segment-aware', () => {
  for (const [pattern, path, expected] of cases) assert.equal(matchesGlob(path, pattern), expected, `${pattern} vs ${path}`);
});

test('bad globs are refused with a reason', () => {
  assert.match(checkGlob('/etc/*') ?? '', /absolute/);
  assert.match(checkGlob('../x') ?? '', /\.\./);
  assert.match(checkGlob('a\\b') ?? '', /"\/"/);
  assert.match(checkGlob('{a,b') ?? '', /unbalanced/);
  assert.match(checkGlob('') ?? '', /empty/);
  assert.equal(checkGlob('src/**/*.ts'), undefined);
});

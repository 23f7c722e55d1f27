import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkGlob, globToRegExp, matchesGlob } from '../../src/core/glob.js';
import { DEFAULT_IGNORE_PATTERNS, DEFAULT_POLICY_FILES, DEFAULT_TEST_PATTERNS } from '../../src/config/schema.js';

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
  for (const [pattern, path, expected] of cases)
    assert.equal(matchesGlob(path, pattern), expected, `${pattern} vs ${path}`);
});

test('bad globs are refused with a reason', () => {
  assert.match(checkGlob('/etc/*') ?? '', /absolute/);
  assert.match(checkGlob('../x') ?? '', /\.\./);
  assert.match(checkGlob('a\\b') ?? '', /"\/"/);
  assert.match(checkGlob('{a,b') ?? '', /unbalanced/);
  assert.match(checkGlob('') ?? '', /empty/);
  assert.equal(checkGlob('src/**/*.ts'), undefined);
});

test('property: the literal pre-check never changes an answer (matchesGlob equals the compiled pattern)', () => {
  // Patterns and paths from a small alphabet, so that they often match: every glob operator,
  // the "./" prefix, a trailing "/", and brace groups.
  const atom = fc.constantFrom('a', 'b', '.', '*', '**', '?', '/', 'a/', '{a,b}', '{,x}', 'ts', './');
  const pattern = fc
    .array(atom, { minLength: 1, maxLength: 6 })
    .map((xs) => xs.join(''))
    .filter((p) => checkGlob(p) === undefined);
  const path = fc
    .array(fc.constantFrom('a', 'b', '.', '/', 'ts', 'x', 'ab'), { minLength: 1, maxLength: 8 })
    .map((xs) => xs.join(''));
  fc.assert(
    fc.property(pattern, path, (p, q) => assert.equal(matchesGlob(q, p), globToRegExp(p).test(q), `${p} on ${q}`)),
    { numRuns: 3000 },
  );
  // The shipped defaults on the paths they are meant for.
  const paths = [
    'test/a.py',
    'src/a.test.ts',
    'pkg/conftest.py',
    'package.json',
    '.github/workflows/ci.yml',
    'a/LICENSE.txt',
    'src/pricing.ts',
    'fixtures/x/y.json',
    'tests/unit/test_x.py',
    './a.md',
  ];
  for (const p of [...DEFAULT_TEST_PATTERNS, ...DEFAULT_IGNORE_PATTERNS, ...DEFAULT_POLICY_FILES])
    for (const q of paths) assert.equal(matchesGlob(q, p), globToRegExp(p).test(q), `${p} on ${q}`);
});

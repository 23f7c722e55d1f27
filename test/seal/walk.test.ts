import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { matchesAny } from '../../src/core/glob.js';
import { compareBytewise } from '../../src/seal/inputs.js';
import { collectFixtures } from '../../src/seal/walk.js';
import { tempDir, writeFiles } from '../helpers/git.js';

const TREE = [
  'fixtures/a.json',
  'fixtures/b.csv',
  'fixtures/sub/c.json',
  'fixtures/sub/deep/d.json',
  'fixtures/sub/deep/e.txt',
  'data/x.json',
  'data/fixtures/y.json',
  'src/app.ts',
  'top.json',
  'Zed.json',
];
const GLOBS = [
  'fixtures/**',
  'fixtures/*.json',
  'fixtures/*/*.json',
  '*.json',
  '**/deep/*',
  'data/',
  'fixtures/sub/**/*.txt',
  '{src,data}/*.{ts,json}',
  'fixtures/?.csv',
  'top.json',
];

test('property: the walk returns exactly the repository files its globs match, sorted bytewise, each once', () => {
  const t = tempDir();
  try {
    writeFiles(
      t.dir,
      Object.fromEntries(
        [...TREE, '.git/HEAD.json', 'node_modules/p/i.json', 'review/runner/r.json'].map((p) => [p, 'x\n']),
      ),
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...GLOBS), { minLength: 1, maxLength: 4 }), (globs) => {
        const expected = TREE.filter((p) => matchesAny(p, globs) !== undefined).sort(compareBytewise);
        const got = collectFixtures(t.dir, globs, { allowEmpty: true });
        assert.deepEqual(got.files, expected);
        assert.deepEqual(
          got.empty,
          globs.filter((g) => !TREE.some((p) => matchesAny(p, [g]) !== undefined)),
        );
      }),
      { numRuns: 200 },
    );
    const sorted = execFileSync('sh', ['-c', 'find fixtures data src top.json Zed.json -type f | LC_ALL=C sort'], {
      cwd: t.dir,
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    assert.deepEqual(
      collectFixtures(t.dir, ['fixtures/**', 'data/**', 'src/*', '*.json']).files,
      [...new Set(sorted)].filter((p) => TREE.includes(p)),
    );
  } finally {
    t.dispose();
  }
});

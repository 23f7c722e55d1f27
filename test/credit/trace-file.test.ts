import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { scoreRepo, type Scoring } from '../helpers/oracle.js';

// A module-level change (`<module>`) is entered while a test file loads, when no test runs: the
// trace records the test file alone. With jest and vitest (each test file loads on its own, its
// modules with it) every test of that file reaches the symbol, as its probe (a throw when the
// file loads fails every test of the file) would find: the trace gives them and no probe runs.
// The same project scored with probes only must reach the very same tests.

const SRC = [
  'const RATE_PERCENT = 10;',
  '',
  'function taxCents(cents) {',
  '  return Math.round((cents * RATE_PERCENT) / 100);',
  '}',
  '',
];
const SPANS: Record<string, [number, number]> = { '<module>': [1, 1] };

interface Kind {
  readonly files: Record<string, string>;
  readonly path: string;
  readonly language: string;
  readonly command: string[];
  readonly junit?: string;
}

const KINDS: Record<'vitest' | 'jest', Kind> = {
  vitest: {
    path: 'src/tax.ts',
    language: 'typescript',
    command: ['node_modules/.bin/vitest', 'run', '--reporter=junit', '--outputFile.junit=junit.xml'],
    files: {
      'package.json': '{"name":"vt","private":true,"type":"module"}\n',
      'src/tax.ts': `${SRC.join('\n').replace('function taxCents(cents)', 'export function taxCents(cents: number): number')}`,
      'test/tax.test.ts':
        "import { describe, expect, it } from 'vitest';\nimport { taxCents } from '../src/tax';\n\ndescribe('tax', () => {\n  it('takes the rate', () => {\n    expect(taxCents(1000)).toBe(100);\n  });\n  it('rounds', () => {\n    expect(taxCents(15)).toBe(2);\n  });\n});\n",
      'test/words.test.ts':
        "import { expect, it } from 'vitest';\n\nfunction words(s: string): string[] {\n  return s.split(' ');\n}\n\nit('splits words', () => {\n  expect(words('a b')).toEqual(['a', 'b']);\n});\n",
      '.gitignore': 'node_modules\njunit.xml\n',
    },
  },
  jest: {
    path: 'src/tax.js',
    language: 'javascript',
    command: ['node_modules/.bin/jest', '--ci', '--json', '--outputFile=jest-results.json'],
    junit: 'jest-results.json',
    files: {
      'package.json': '{"name":"jt","private":true}\n',
      'src/tax.js': `${SRC.join('\n')}module.exports = { taxCents };\n`,
      'test/tax.test.js':
        "const { taxCents } = require('../src/tax');\n\ndescribe('tax', () => {\n  test('takes the rate', () => {\n    expect(taxCents(1000)).toBe(100);\n  });\n  test('rounds', () => {\n    expect(taxCents(15)).toBe(2);\n  });\n});\n",
      'test/words.test.js':
        "function words(s) {\n  return s.split(' ');\n}\n\ntest('splits words', () => {\n  expect(words('a b')).toEqual(['a', 'b']);\n});\n",
      '.gitignore': 'node_modules\njest-results.json\n',
    },
  },
};

for (const [kind, k] of Object.entries(KINDS)) {
  describe(`${kind}: a module-level change, reached while its test file loads`, { concurrency: false }, () => {
    let repo: { dir: string; dispose: () => void };
    let traced: Scoring;
    let probed: Scoring;
    const sym = `${k.path}::<module>`;
    before(async () => {
      repo = makeRepo(k.files);
      symlinkSync(join(resolve('.'), 'node_modules'), join(repo.dir, 'node_modules'), 'dir');
      const opts = k.junit !== undefined ? { junit: k.junit } : {};
      // One symbol on two workers would probe beside the first control, with no trace at all.
      traced = await scoreRepo(repo.dir, k.path, k.language, SPANS, k.command, { ...opts, earlyProbes: false });
      probed = await scoreRepo(repo.dir, k.path, k.language, SPANS, k.command, {
        ...opts,
        earlyProbes: false,
        traceReach: false,
      });
    });
    after(() => repo.dispose());

    it('the trace gives every test of the file that loaded it, and no probe runs', () => {
      const e = traced.scored.credit.evidence?.[sym];
      assert.equal(e?.reached_by, 'trace', JSON.stringify(e));
      assert.equal(
        (e?.mutants ?? []).some((m) => m.kind === 'probe'),
        false,
      );
      assert.deepEqual(
        [...(e?.reached ?? [])].map((t) => t.replace(/^.*::/, '')),
        ['rounds', 'takes the rate'],
      );
    });
    it('the probe, run instead, finds exactly the same tests, and neither counts the other file', () => {
      const e = probed.scored.credit.evidence?.[sym];
      assert.equal(e?.reached_by, 'probe', JSON.stringify(e));
      assert.deepEqual(e?.reached, traced.scored.credit.evidence?.[sym]?.reached);
      assert.equal(
        (e?.reached ?? []).some((t) => t.includes('words')),
        false,
      );
    });
    it('the change is credited either way, by the tests of the rate', () => {
      assert.deepEqual(traced.scored.credit.credited, [sym]);
      assert.deepEqual(probed.scored.credit.credited, [sym]);
    });
  });
}

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo, type Scoring } from '../helpers/oracle.js';
import type { MutantRun } from '../../src/credit/oracle/types.js';

// Real vitest, jest and node:test projects in the sandbox: every judging run of a symbol (its
// revert, null and behavioural mutants) is one command, narrowed to the reaching tests by file
// and by exact name, so a test of the same file that does not reach the symbol does not run;
// a name the runner would not match exactly (padded) makes the symbol's runs narrow by file.

const NAME_FLAG = /^--test(?:NamePattern|-name-pattern)=/;

function judged(s: Scoring, symbol: string): MutantRun[] {
  const runs = s.oracle.mutants.get(symbol) ?? [];
  assert.ok(runs.length > 0, `${symbol} had judging runs`);
  return [...runs];
}

function oneCommand(runs: readonly MutantRun[]): readonly string[] {
  const cmds = new Set(runs.map((r) => JSON.stringify(r.command)));
  assert.equal(cmds.size, 1, [...cmds].join('\n'));
  return runs[0]?.command as readonly string[];
}

const js = (typed: boolean) =>
  layout({
    clampPercent: [
      `export function clampPercent(p${typed ? ': number' : ''})${typed ? ': number' : ''} {`,
      '  return Math.min(100, Math.max(0, p));',
      '}',
    ],
    discounted: [
      `export function discounted(cents${typed ? ': number' : ''}, p${typed ? ': number' : ''})${typed ? ': number' : ''} {`,
      '  return Math.round((cents * (100 - clampPercent(p))) / 100);',
      '}',
    ],
  });

interface Kind {
  readonly files: (discountName: string, suite?: string) => Record<string, string>;
  readonly path: string;
  readonly language: string;
  readonly command: string[];
  readonly junit?: string;
  readonly node: boolean;
}

const KINDS: Record<'vitest' | 'jest' | 'node-test', Kind> = {
  vitest: {
    node: true,
    path: 'src/price.ts',
    language: 'typescript',
    command: ['node_modules/.bin/vitest', 'run', '--reporter=junit', '--outputFile.junit=junit.xml'],
    files: (n, d = 'price (all) > [x]') => ({
      'package.json': '{"name":"vt","private":true,"type":"module"}\n',
      'src/price.ts': js(true).text,
      'test/price.test.ts': `import { describe, expect, it } from 'vitest';\nimport { clampPercent, discounted } from '../src/price';\n\ndescribe(${JSON.stringify(d)}, () => {\n  it('clamps $1 | ^', () => {\n    expect(clampPercent(-5)).toBe(0);\n    expect(clampPercent(150)).toBe(100);\n  });\n  it(${JSON.stringify(n)}, () => {\n    expect(discounted(1000, 10)).toBe(900);\n    expect(discounted(1000, 150)).toBe(0);\n  });\n});\n`,
    }),
  },
  jest: {
    node: true,
    path: 'src/price.js',
    language: 'javascript',
    command: ['node_modules/.bin/jest', '--ci', '--json', '--outputFile=jest-results.json'],
    junit: 'jest-results.json',
    files: (n, d = 'price (all) > [x]') => ({
      'package.json': '{"name":"jt","private":true}\n',
      'src/price.js':
        js(false).text.replace(/export function/g, 'function') + '\nmodule.exports = { clampPercent, discounted };\n',
      'test/price.test.js': `const { clampPercent, discounted } = require('../src/price');\n\ndescribe(${JSON.stringify(d)}, () => {\n  test('clamps $1 | ^', () => {\n    expect(clampPercent(-5)).toBe(0);\n    expect(clampPercent(150)).toBe(100);\n  });\n  test(${JSON.stringify(n)}, () => {\n    expect(discounted(1000, 10)).toBe(900);\n    expect(discounted(1000, 150)).toBe(0);\n  });\n});\n`,
    }),
  },
  'node-test': {
    node: false,
    path: 'src/price.js',
    language: 'javascript',
    command: [
      'node',
      '--test',
      '--test-reporter=./.sealgate/node-test-reporter.mjs',
      '--test-reporter-destination=junit.xml',
    ],
    files: (n, d = 'price (all) > [x]') => ({
      'package.json': '{"name":"nt","private":true,"type":"module"}\n',
      'src/price.js': js(false).text,
      'test/price.test.js': `import { describe, it } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clampPercent, discounted } from '../src/price.js';\n\ndescribe(${JSON.stringify(d)}, () => {\n  it('clamps $1 | ^', () => {\n    assert.equal(clampPercent(-5), 0);\n    assert.equal(clampPercent(150), 100);\n  });\n  it(${JSON.stringify(n)}, () => {\n    assert.equal(discounted(1000, 10), 900);\n    assert.equal(discounted(1000, 150), 0);\n  });\n});\n`,
    }),
  },
};

for (const [kind, k] of Object.entries(KINDS)) {
  describe(`${kind}: narrowed by name`, { concurrency: false }, () => {
    let repo: { dir: string; dispose: () => void };
    let s: Scoring;
    before(async () => {
      repo = makeRepo({
        ...k.files('discounts (10%) + $x.*'),
        '.gitignore': 'node_modules\njunit.xml\njest-results.json\n',
      });
      if (k.node) symlinkSync(join(resolve('.'), 'node_modules'), join(repo.dir, 'node_modules'), 'dir');
      s = await scoreRepo(
        repo.dir,
        k.path,
        k.language,
        js(kind === 'vitest').spans,
        k.command,
        k.junit !== undefined ? { junit: k.junit } : {},
      );
    });
    after(() => repo.dispose());

    it('both symbols are credited by their own tests', () => {
      assert.deepEqual(s.scored.credit.credited, [`${k.path}::clampPercent`, `${k.path}::discounted`]);
      const reached = s.scored.credit.evidence?.[`${k.path}::discounted`]?.reached ?? [];
      assert.equal(reached.length, 1, reached.join(', '));
      assert.match(reached[0] as string, /discounts \(10%\) \+ \$x\.\*$/);
    });
    it("every judging run of discounted is one command, narrowed by name, and the file's other test does not run", () => {
      const runs = judged(s, `${k.path}::discounted`);
      const cmd = oneCommand(runs);
      assert.ok(
        cmd.some((a) => NAME_FLAG.test(a)),
        cmd.join(' '),
      );
      for (const r of runs)
        if (r.status === 'ok')
          assert.deepEqual(r.ranAgainst, s.scored.credit.evidence?.[`${k.path}::discounted`]?.reached);
    });
    it(
      k.node
        ? "the trace named the reaching test by file and name (the runner's current test name): no probe ran"
        : 'node:test records the file only: the probe found the reaching test',
      () => {
        const e = s.scored.credit.evidence?.[`${k.path}::discounted`];
        assert.equal(e?.reached_by, k.node ? 'trace' : 'probe');
        assert.equal(
          (e?.mutants ?? []).some((m) => m.kind === 'probe'),
          !k.node,
        );
      },
    );
    it('the unmutated control after the mutants ran every reaching test again and saw them pass', () => {
      assert.equal(s.oracle.after?.status, 'ok', s.oracle.after?.detail);
      assert.deepEqual(s.oracle.after?.failed, []);
    });
  });
}

describe(
  'vitest: a reaching test whose full name the runner would not match exactly (a padded describe)',
  { concurrency: false },
  () => {
    let repo: { dir: string; dispose: () => void };
    let s: Scoring;
    const k = KINDS.vitest;
    before(async () => {
      // The JUnit reader trims each part of vitest's "outer  > discounts": a pattern for
      // "outer discounts" skips vitest's "outer  discounts", so the symbol falls back to its files.
      repo = makeRepo({ ...k.files('discounts', 'outer '), '.gitignore': 'node_modules\njunit.xml\n' });
      symlinkSync(join(resolve('.'), 'node_modules'), join(repo.dir, 'node_modules'), 'dir');
      s = await scoreRepo(repo.dir, k.path, k.language, js(true).spans, k.command);
    });
    after(() => repo.dispose());
    it('the trace\'s name ("outer  > discounts") is not the report\'s: the probe finds the reaching test', () => {
      assert.equal(s.scored.credit.evidence?.[`${k.path}::discounted`]?.reached_by, 'probe');
    });
    it('its symbol is judged by file (one command, no name filter) and credited: the run never left the test out', () => {
      const runs = judged(s, `${k.path}::discounted`);
      const cmd = oneCommand(runs);
      assert.equal(
        cmd.some((a) => NAME_FLAG.test(a)),
        false,
        cmd.join(' '),
      );
      assert.ok(s.scored.credit.credited.includes(`${k.path}::discounted`), JSON.stringify(s.scored.credit.evidence));
    });
    it('the control after the mutants falls back by file too, and sees every reaching test pass again', () => {
      assert.equal(s.oracle.after?.status, 'ok', s.oracle.after?.detail);
      assert.deepEqual(s.oracle.after?.failed, []);
    });
  },
);

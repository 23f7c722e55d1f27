import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCli, type CliRun } from '../helpers/cli.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';

/**
 * Generated projects of each kind a new user brings (node:test, vitest, jest, pytest), for
 * the adoption tests: `init` detects and proves the config, then the whole workflow runs on
 * a patch that changes one production function and adds a property test of it.
 */

export const ROOT = resolve('.');
export const NOW = '2026-10-12T12:00:00Z';
export const AUTHOR = 'model-session-1';
export const RUNNER = 'server-job-1';

export interface Project {
  /** The base commit's files. */
  readonly base: Record<string, string>;
  /** The agent's change, applied on top (a new or replaced file per entry). */
  readonly change: Record<string, string>;
  /** Node projects get a node_modules made of links to sealgate's own (and sealgate itself). */
  readonly node: boolean;
}

const GITIGNORE = 'node_modules\nreview/\njunit.xml\njest-results.json\n__pycache__/\n';

/** A clamp with a bound the agent changes; its tests check the bound, so a mutant of it is noticed. */
export const PROJECTS: Readonly<Record<'node-test' | 'vitest' | 'jest' | 'pytest', Project>> = {
  'node-test': {
    node: true,
    base: {
      'package.json':
        JSON.stringify(
          { name: 'nt-demo', version: '1.0.0', private: true, type: 'module', scripts: { test: 'node --test' } },
          null,
          2,
        ) + '\n',
      'src/price.js': 'export function clampPercent(p) {\n  return Math.min(100, Math.max(0, p));\n}\n',
      'test/price.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clampPercent } from '../src/price.js';\n\ntest('clamps into 0..100', () => {\n  assert.equal(clampPercent(-5), 0);\n  assert.equal(clampPercent(150), 100);\n  assert.equal(clampPercent(40), 40);\n});\n",
      'test/fixtures/prices.json': '{"prices": [100, 250]}\n',
    },
    change: {
      'src/price.js':
        'export function clampPercent(p) {\n  return Math.min(100, Math.max(0, p));\n}\n\nexport function discounted(cents, p) {\n  return Math.round((cents * (100 - clampPercent(p))) / 100);\n}\n',
      'test/discount.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { discounted } from '../src/price.js';\n\ntest('a discount never raises the price or goes below zero', () => {\n  for (const [c, p] of [[1000, 10], [999, 150], [500, -20], [1, 50]]) {\n    const d = discounted(c, p);\n    assert.ok(d >= 0 && d <= c, `${c} ${p} -> ${d}`);\n  }\n  assert.equal(discounted(1000, 10), 900);\n  assert.equal(discounted(1000, 150), 0);\n  assert.equal(discounted(1000, -5), 1000);\n});\n",
    },
  },
  vitest: {
    node: true,
    base: {
      'package.json':
        JSON.stringify(
          {
            name: 'vt-demo',
            version: '1.0.0',
            private: true,
            type: 'module',
            scripts: { test: 'vitest run' },
            devDependencies: { vitest: '4.1.12' },
          },
          null,
          2,
        ) + '\n',
      'src/price.ts': 'export function clampPercent(p: number): number {\n  return Math.min(100, Math.max(0, p));\n}\n',
      'test/price.test.ts':
        "import { describe, expect, it } from 'vitest';\nimport { clampPercent } from '../src/price';\n\ndescribe('price', () => {\n  it('clamps into 0..100', () => {\n    expect(clampPercent(-5)).toBe(0);\n    expect(clampPercent(150)).toBe(100);\n    expect(clampPercent(40)).toBe(40);\n  });\n});\n",
      'test/fixture/prices.json': '{"prices": [100, 250]}\n',
    },
    change: {
      'src/price.ts':
        'export function clampPercent(p: number): number {\n  return Math.min(100, Math.max(0, p));\n}\n\nexport function discounted(cents: number, p: number): number {\n  return Math.round((cents * (100 - clampPercent(p))) / 100);\n}\n',
      'test/discount.test.ts':
        "import { describe, expect, it } from 'vitest';\nimport { discounted } from '../src/price';\n\ndescribe('discount', () => {\n  it('never raises the price or goes below zero', () => {\n    for (const [c, p] of [[1000, 10], [999, 150], [500, -20], [1, 50]] as const) {\n      const d = discounted(c, p);\n      expect(d >= 0 && d <= c).toBe(true);\n    }\n    expect(discounted(1000, 10)).toBe(900);\n    expect(discounted(1000, 150)).toBe(0);\n    expect(discounted(1000, -5)).toBe(1000);\n  });\n});\n",
    },
  },
  jest: {
    node: true,
    base: {
      'package.json':
        JSON.stringify(
          {
            name: 'jest-demo',
            version: '1.0.0',
            private: true,
            scripts: { test: 'jest' },
            devDependencies: { jest: '30.5.2' },
          },
          null,
          2,
        ) + '\n',
      'src/price.js':
        'function clampPercent(p) {\n  return Math.min(100, Math.max(0, p));\n}\n\nmodule.exports = { clampPercent };\n',
      'test/price.test.js':
        "const { clampPercent } = require('../src/price');\n\ndescribe('price', () => {\n  test('clamps into 0..100', () => {\n    expect(clampPercent(-5)).toBe(0);\n    expect(clampPercent(150)).toBe(100);\n    expect(clampPercent(40)).toBe(40);\n  });\n});\n",
    },
    change: {
      'src/price.js':
        'function clampPercent(p) {\n  return Math.min(100, Math.max(0, p));\n}\n\nfunction discounted(cents, p) {\n  return Math.round((cents * (100 - clampPercent(p))) / 100);\n}\n\nmodule.exports = { clampPercent, discounted };\n',
      'test/discount.test.js':
        "const { discounted } = require('../src/price');\n\ndescribe('discount', () => {\n  test('never raises the price or goes below zero', () => {\n    for (const [c, p] of [[1000, 10], [999, 150], [500, -20], [1, 50]]) {\n      const d = discounted(c, p);\n      expect(d >= 0 && d <= c).toBe(true);\n    }\n    expect(discounted(1000, 10)).toBe(900);\n    expect(discounted(1000, 150)).toBe(0);\n    expect(discounted(1000, -5)).toBe(1000);\n  });\n});\n",
    },
  },
  pytest: {
    node: false,
    base: {
      'pyproject.toml':
        '[project]\nname = "pricing"\nversion = "1.0.0"\n\n[project.optional-dependencies]\ntest = ["pytest>=7"]\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'src/pricing/__init__.py': 'def clamp_percent(p):\n    return min(100, max(0, p))\n',
      'tests/test_pricing.py':
        'from pricing import clamp_percent\n\n\ndef test_clamps():\n    assert clamp_percent(-5) == 0\n    assert clamp_percent(150) == 100\n    assert clamp_percent(40) == 40\n',
    },
    change: {
      'src/pricing/__init__.py':
        'def clamp_percent(p):\n    return min(100, max(0, p))\n\n\ndef discounted(cents, p):\n    return round(cents * (100 - clamp_percent(p)) / 100)\n',
      'tests/test_discount.py':
        'from pricing import discounted\n\n\ndef test_discount_bounds():\n    for c, p in [(1000, 10), (999, 150), (500, -20), (1, 50)]:\n        d = discounted(c, p)\n        assert 0 <= d <= c\n    assert discounted(1000, 10) == 900\n    assert discounted(1000, 150) == 0\n    assert discounted(1000, -5) == 1000\n',
    },
  },
};

/**
 * node_modules as one link to sealgate's own (vitest, jest, tsx ... are its devDependencies), as
 * the bundled example does: the sandbox lets a run see that folder read-only, never the rest of
 * sealgate's install. The node:test reporter comes into every run's copy from sealgate itself.
 */
export function linkNodeModules(dir: string): void {
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

export const ENV: Record<string, string> = {
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  HOME: process.env['HOME'] ?? '/tmp',
};

export interface Adopted {
  readonly dir: string;
  readonly init: CliRun;
  readonly cli: (argv: string[]) => Promise<CliRun>;
  readonly dispose: () => void;
}

/** The base committed, `init` run (and its files committed, as a user would), nothing else. */
export async function adopt(kind: keyof typeof PROJECTS): Promise<Adopted> {
  const p = PROJECTS[kind];
  const r = makeRepo({ ...p.base, '.gitignore': GITIGNORE });
  if (p.node) linkNodeModules(r.dir);
  const cli = (argv: string[]): Promise<CliRun> =>
    runCli(argv, { cwd: r.dir, env: { ...ENV, XDG_CACHE_HOME: `${r.dir}-cache` }, now: new Date(NOW) });
  const init = await cli(['init', '--repo', r.dir]);
  if (init.exit === 0) {
    git(r.dir, 'add', '-A');
    git(r.dir, 'commit', '-q', '-m', 'sealgate init');
  }
  return {
    dir: r.dir,
    init,
    cli,
    dispose: () => {
      if (process.env['SEALGATE_TEST_KEEP'] === '1') return;
      r.dispose();
      rmSync(`${r.dir}-cache`, { recursive: true, force: true });
    },
  };
}

/** The agent's change as a patch file (the work tree put back to the base), proposed; then applied for the runner. */
export async function proposeChange(a: Adopted, kind: keyof typeof PROJECTS): Promise<CliRun> {
  writeFiles(a.dir, PROJECTS[kind].change);
  git(a.dir, 'add', '-N', '.');
  const diff = git(a.dir, 'diff', '--binary');
  git(a.dir, 'reset', '-q');
  git(a.dir, 'checkout', '-q', '--', '.');
  git(a.dir, 'clean', '-q', '-fd', '--', 'src', 'test', 'tests');
  mkdirSync(join(a.dir, 'patches'), { recursive: true });
  writeFileSync(join(a.dir, 'patches/1.diff'), diff);
  const p = await a.cli([
    'propose',
    '--repo',
    a.dir,
    '--author-job',
    AUTHOR,
    '--runner-job',
    RUNNER,
    '--patch',
    'patches/1.diff',
    '--proposal-id',
    'p-1',
  ]);
  if (p.exit === 0) git(a.dir, 'apply', 'patches/1.diff');
  return p;
}

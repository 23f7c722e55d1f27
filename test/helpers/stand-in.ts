// A one-function project for oracle tests whose test runner is a stand-in: a script of the
// tree (`node runner.mjs`), run outside the sandbox so it can log each run or read a host
// file, that writes a JUnit report of two tests on `f` itself.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, makeRepo } from './git.js';
import { openBox, type Box } from '../../src/sandbox/run.js';
import { findBwrap, readSecrets } from '../../src/sandbox/host.js';
import { packageRoot } from '../../src/core/package-root.js';
import type { Changed } from '../../src/symbols/schema.js';

export const BASE = 'export function f(x) {\n  return x + 1;\n}\n';
export const PATCHED = 'export function f(x) {\n  return x + 2;\n}\n';
export const SYM = 'src/calc.mjs::f';
export const IDS = ['test/calc.test.mjs::calc::positive', 'test/calc.test.mjs::calc::three'];

/** Script lines that write junit.xml from `cases` ([name, passed] pairs) and exit 0 when every case passed. */
export const REPORT = `const body = cases.map(([n, pass]) => '<testcase classname="calc" name="' + n + '" file="test/calc.test.mjs" time="0.001">' + (pass ? '' : '<failure message="no"/>') + '</testcase>').join('');
writeFileSync('junit.xml', '<?xml version="1.0"?><testsuites><testsuite name="calc" tests="2">' + body + '</testsuite></testsuites>');`;

/** The project at BASE, committed, then PATCHED in the work tree, with `runner` as runner.mjs. */
export function standInRepo(runner: string): { dir: string; base: string; dispose: () => void } {
  const repo = makeRepo({
    'src/calc.mjs': BASE,
    'runner.mjs': runner,
    'test/calc.test.mjs': '// the stand-in runner holds the tests\n',
    '.gitignore': 'junit.xml\n',
  });
  const base = git(repo.dir, 'rev-parse', 'HEAD').trim();
  writeFileSync(join(repo.dir, 'src/calc.mjs'), PATCHED);
  return { dir: repo.dir, base, dispose: repo.dispose };
}

/** changed.json of the patch: `f` modified on its line 2. */
export function standInChanged(base: string): Changed {
  return {
    base,
    patch_sha256: '1'.repeat(64),
    files: [{ path: 'src/calc.mjs', old_path: null, status: 'modified', class: 'production', language: 'javascript' }],
    changed: [SYM],
    moved: [],
    deleted: [],
    typeOnly: [],
    uncreditable: [],
    locations: {
      [SYM]: { path: 'src/calc.mjs', language: 'javascript', start_line: 1, end_line: 3, changed_lines: [[2, 2]] },
    },
  };
}

/** The unsandboxed box the stand-in runs in. */
export function standInBox(dir: string, env: Readonly<Record<string, string>>): Box {
  return openBox({
    isolation: 'none',
    bwrap: findBwrap(),
    env,
    secrets: readSecrets(dir, env, packageRoot()),
    path: 'test',
  });
}

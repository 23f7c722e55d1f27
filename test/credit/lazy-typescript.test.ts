import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { makeRepo } from '../helpers/git.js';

/**
 * The credit step of a Python-only change never loads the TypeScript compiler (9 MB, about
 * 350 ms to compile): mutants, validity checks and the classifier of a Python suite need none
 * of it. The same step on a TS change does load it (the control: the check below can fail).
 * Run in a fresh process, where nothing else has loaded it.
 */
function loadsTypescript(
  dir: string,
  path: string,
  language: 'python' | 'typescript',
  testFile: string,
): { loaded: boolean; plans: { symbol: string; mutants: number; discarded: number }[]; tests: number } {
  const script = `
    import { createRequire } from 'node:module';
    import { planSymbols } from ${JSON.stringify(join(process.cwd(), 'src/credit/plan/symbols.ts'))};
    import { readTestSources } from ${JSON.stringify(join(process.cwd(), 'src/credit/lang/tests.ts'))};
    import { DEFAULT_CONFIG } from ${JSON.stringify(join(process.cwd(), 'src/config/schema.ts'))};
    const path = ${JSON.stringify(path)};
    const changed = {
      base: '0'.repeat(40), patch_sha256: '1'.repeat(64), files: [{ path, old_path: null, status: 'added', class: 'production', language: ${JSON.stringify(language)} }],
      changed: [path + '::area'], moved: [], deleted: [], typeOnly: [], uncreditable: [],
      locations: { [path + '::area']: { path, language: ${JSON.stringify(language)}, start_line: 1, end_line: 3, changed_lines: [[1, 3]] } },
    };
    const { plans } = await planSymbols(${JSON.stringify(dir)}, changed, 100, 'seed-1');
    const tests = await readTestSources(${JSON.stringify(dir)}, DEFAULT_CONFIG, [], [${JSON.stringify(testFile)}, path], [path]);
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\\\/]node_modules[\\\\/]typescript[\\\\/]/.test(k));
    process.stdout.write(JSON.stringify({ loaded, plans: plans.map((p) => ({ symbol: p.symbol, mutants: p.mutants.length, discarded: (p.discarded ?? []).length })), tests: tests.length }));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: process.cwd(),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as ReturnType<typeof loadsTypescript>;
}

test('the credit step of a Python change never loads the TypeScript compiler; of a TS change it does', () => {
  const py = makeRepo({
    'calc.py': 'def area(w, h):\n    return w * h if w > 0 else 0\n\n',
    'tests/test_calc.py': 'from calc import area\n\ndef test_area():\n    assert area(2, 3) == 6\n',
  });
  const ts = makeRepo({
    'src/calc.ts': 'export function area(w: number, h: number): number {\n  return w > 0 ? w * h : 0;\n}\n',
    'test/calc.test.ts':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { area } from '../src/calc.ts';\ntest('area', () => { assert.equal(area(2, 3), 6); });\n",
  });
  try {
    const p = loadsTypescript(py.dir, 'calc.py', 'python', 'tests/test_calc.py');
    assert.equal(p.loaded, false, 'a Python-only credit step loaded typescript');
    // The work was done: mutants were made and checked, the test was classified.
    assert.ok((p.plans[0]?.mutants ?? 0) > 0, JSON.stringify(p));
    assert.equal(p.tests, 1);
    const t = loadsTypescript(ts.dir, 'src/calc.ts', 'typescript', 'test/calc.test.ts');
    assert.equal(t.loaded, true);
    assert.ok((t.plans[0]?.mutants ?? 0) > 0, JSON.stringify(t));
    assert.equal(t.tests, 1);
  } finally {
    py.dispose();
    ts.dispose();
  }
});

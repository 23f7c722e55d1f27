import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import {
  goImports,
  importedTestFiles,
  javaImports,
  pythonImports,
  resolveGo,
  resolveJava,
  resolvePython,
  resolveScript,
  rustModules,
  scriptImports,
} from '../../src/symbols/imports.js';
import { declarationHasRuntime, extractTypeScript, loadTypeScript } from '../../src/symbols/lang/typescript.js';
import { extractChanged } from '../../src/symbols/extract.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';

/** changed.json for the patch that turns `base` (committed) into `base` + `edits`. */
async function changedBy(base: Record<string, string>, edits: Record<string, string>) {
  const r = makeRepo(base);
  try {
    writeFiles(r.dir, edits);
    const patch = git(r.dir, 'diff');
    git(r.dir, 'checkout', '-q', '.');
    return await extractChanged({ repo: r.dir, patchBytes: Buffer.from(patch), config: DEFAULT_CONFIG });
  } finally {
    r.dispose();
  }
}

test('scriptImports: static, re-export, require, dynamic literal, import-equals; not a template or a variable', async () => {
  const got = await scriptImports(
    "import a from './a.js';\nexport { x } from './b';\nexport * from './c';\nconst d = require('./d');\nawait import('./e');\nimport f = require('./f');\nimport './g';\nimport(`./h${n}`);\nrequire(name);\n",
  );
  assert.deepEqual(got.sort(), ['./a.js', './b', './c', './d', './e', './f', './g']);
});

test('resolveScript: .js to .ts, no extension, index files, parents; bare specifiers resolve to nothing', () => {
  const tree = new Set(['src/spec/tax.ts', 'src/spec/index.ts', 'src/util/index.js', 'lib/a.d.ts', 'src/b.mts']);
  assert.deepEqual(resolveScript('src/pricing.ts', './spec/tax.js', tree), ['src/spec/tax.ts']);
  assert.deepEqual(resolveScript('src/pricing.ts', './spec/tax', tree), ['src/spec/tax.ts']);
  assert.deepEqual(resolveScript('src/pricing.ts', './spec', tree), ['src/spec/index.ts']);
  assert.deepEqual(resolveScript('src/x/y.ts', '../util', tree), ['src/util/index.js']);
  assert.deepEqual(resolveScript('src/x.ts', '../lib/a.js', tree), ['lib/a.d.ts']);
  assert.deepEqual(resolveScript('src/x.ts', './b.mjs', tree), ['src/b.mts']);
  assert.deepEqual(resolveScript('src/x.ts', 'spec/tax', tree), []);
  assert.deepEqual(resolveScript('src/x.ts', '../../../../etc/passwd', tree), []);
});

test('pythonImports: plain, dotted, aliased, relative, parenthesised, continued, importlib; comments do not hide', () => {
  const src = [
    'import os, tests.helpers as h',
    'from tests.helpers import tax_cents',
    'from . import sibling',
    'from ..pkg.mod import (',
    '    a,',
    '    b as c,',
    ')',
    'from x import \\',
    '    y',
    "mod = importlib.import_module('tests.dyn')",
    'def f():',
    '    import tests.inner  # inside a function',
    'x = 1; import tests.semi',
  ].join('\n');
  const got = pythonImports(src).map((i) => `${'.'.repeat(i.level)}${i.module}:${i.names.join(',')}`);
  assert.deepEqual(got, [
    'os:',
    'tests.helpers:',
    'tests.helpers:tax_cents',
    '.:sibling',
    '..pkg.mod:a,b',
    'x:y',
    'tests.dyn:',
    'tests.inner:',
    'tests.semi:',
  ]);
});

test('resolvePython: absolute imports match any root, relative ones the package; a name may be a submodule', () => {
  const py = ['tests/helpers.py', 'src/tests/helpers.py', 'pkg/tests/__init__.py', 'pkg/sub/mod.py', 'pkg/sub/x.py'];
  assert.deepEqual(resolvePython('app.py', { level: 0, module: 'tests.helpers', names: [] }, py).sort(), [
    'src/tests/helpers.py',
    'tests/helpers.py',
  ]);
  assert.deepEqual(resolvePython('pkg/a.py', { level: 1, module: 'tests', names: [] }, py), ['pkg/tests/__init__.py']);
  assert.deepEqual(resolvePython('pkg/sub/a.py', { level: 1, module: '', names: ['x'] }, py), ['pkg/sub/x.py']);
  assert.deepEqual(resolvePython('pkg/sub/a.py', { level: 2, module: 'sub', names: ['mod'] }, py), ['pkg/sub/mod.py']);
});

test('importedTestFiles: transitive through test-path files, never from tests alone', async () => {
  const texts: Record<string, string> = {
    'src/app.ts': "export { f } from './spec/a.js';\n",
    'src/spec/a.ts': "import { g } from '../__mocks__/b.js';\nexport const f = g;\n",
    'src/__mocks__/b.ts': 'export const g = 1;\n',
    'test/app.test.ts': "import '../src/spec/only-tests.js';\n",
    'src/spec/only-tests.ts': 'export {};\n',
  };
  const files = Object.keys(texts).map((path) => ({
    path,
    language: 'typescript' as const,
    testByPath: /spec|__mocks__|test/.test(path),
  }));
  const got = await importedTestFiles(files, (p) => Promise.resolve(texts[p] ?? null));
  assert.deepEqual([...got].sort(), [
    ['src/__mocks__/b.ts', 'src/spec/a.ts'],
    ['src/spec/a.ts', 'src/app.ts'],
  ]);
});

test('symbols: a Python helper under tests/ that production imports is production; changed.json says so', async () => {
  const changed = await changedBy(
    {
      'src/app.py': 'from tests.helpers import rate\n\ndef total(x):\n    return x * rate()\n',
      'tests/helpers.py': 'def rate():\n    return 2\n',
      'tests/test_app.py': 'def test_total():\n    assert True\n',
    },
    {
      'tests/helpers.py': 'def rate():\n    return 3\n',
      'tests/test_app.py': 'def test_total():\n    assert 1 == 1\n',
    },
  );
  assert.deepEqual(changed.imported_tests, [{ path: 'tests/helpers.py', imported_by: 'src/app.py' }]);
  assert.equal(changed.files.find((f) => f.path === 'tests/helpers.py')?.class, 'production');
  assert.equal(changed.files.find((f) => f.path === 'tests/test_app.py')?.class, 'test');
  assert.deepEqual(changed.changed, ['tests/helpers.py::rate']);
});

test('symbols: a patch that touches the policy surface is refused with E_POLICY_CHANGED', async () => {
  const r = makeRepo({
    'src/a.ts': 'export const a = 1;\n',
    'package.json': '{"scripts":{"test":"node --test"},"dependencies":{}}\n',
  });
  try {
    const run = async (files: Record<string, string>): Promise<string> => {
      writeFiles(r.dir, files);
      git(r.dir, 'add', '-A');
      const patch = git(r.dir, 'diff', '--cached');
      git(r.dir, 'reset', '-q', '--hard');
      try {
        await extractChanged({ repo: r.dir, patchBytes: Buffer.from(patch), config: DEFAULT_CONFIG });
        return 'ok';
      } catch (err) {
        return (err as { code?: string }).code ?? 'error';
      }
    };
    assert.equal(
      await run({
        'src/a.ts': 'export const a = 2;\n',
        'package.json': '{"scripts":{"test":"true"},"dependencies":{}}\n',
      }),
      'E_POLICY_CHANGED',
    );
    assert.equal(
      await run({
        'src/a.ts': 'export const a = 2;\n',
        'package.json': '{"scripts":{"test":"node --test"},"dependencies":{"x":"1.0.0"}}\n',
      }),
      'ok',
    );
    assert.equal(
      await run({ 'src/a.ts': 'export const a = 2;\n', '.github/workflows/ci.yml': 'on: push\n' }),
      'E_POLICY_CHANGED',
    );
  } finally {
    r.dispose();
  }
});

test('declaration files: type-only forms stay ambient; any runtime statement makes the file code', async () => {
  const ts = await loadTypeScript();
  const runtime = (text: string): boolean =>
    declarationHasRuntime(ts, ts.createSourceFile('x.d.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  const typeOnly = [
    'export interface A { x: number }',
    'export type B = string;',
    'declare function f(): void;',
    'export function g(a: number): number;',
    'export const c: number;',
    'import type { T } from "./t";',
    'import { type U } from "./u";',
    'export type { T } from "./t";',
    'export {};',
    'declare namespace N { function h(): void }',
    'export declare class K { m(): void; p: number }',
    'export default A;',
    'declare module "m" { export const x = 1; }',
    'declare global { interface Window { a: 1 } }',
  ];
  for (const t of typeOnly) assert.equal(runtime(t), false, t);
  const code = [
    'export function g(a: number): number { return a; }',
    'export const c = 1;',
    'import "./side-effect";',
    'import { U } from "./u";',
    'export { x } from "./x";',
    'console.log(1);',
    'export enum E { A }',
    'export class K { m() { return 1; } }',
    'export class P { p = 1 }',
    'namespace N { export const y = 2; }',
    'export default function () {}',
    'if (x) {}',
  ];
  for (const t of code) assert.equal(runtime(t), true, t);
  // The extractor: a function with a body in a .d.ts holding runtime code is a runtime symbol.
  const syms = extractTypeScript(ts, 'src/tax.d.ts', 'export function taxCents(a: number): number {\n  return a;\n}\n');
  assert.equal(syms.parsed, true);
  assert.equal(
    [...syms.symbols.values()].flat().some((p) => !p.typeOnly),
    true,
  );
  const ambient = extractTypeScript(ts, 'src/tax.d.ts', 'export function taxCents(a: number): number;\n');
  assert.equal(
    [...ambient.symbols.values()].flat().every((p) => p.typeOnly),
    true,
  );
});

test('symbols: a data file under a test path that production imports (JSON) is uncreditable, not a test', async () => {
  const changed = await changedBy(
    {
      'src/pricing.ts':
        "import rates from './fixtures/rates.json' with { type: 'json' };\nconst limits = require('./__fixtures__/limits');\nexport const shipping = (kg: number): number => Math.min(kg * rates.perKg, limits.max);\n",
      'src/fixtures/rates.json': '{ "perKg": 500 }\n',
      'src/__fixtures__/limits.json': '{ "max": 9000 }\n',
      'test/fixtures/orders.json': '[]\n',
    },
    {
      'src/fixtures/rates.json': '{ "perKg": 5000 }\n',
      'src/__fixtures__/limits.json': '{ "max": 90000 }\n',
      'test/fixtures/orders.json': '[1]\n',
    },
  );
  assert.equal(changed.files.find((f) => f.path === 'src/fixtures/rates.json')?.class, 'other');
  assert.equal(changed.files.find((f) => f.path === 'src/__fixtures__/limits.json')?.class, 'other');
  assert.equal(changed.files.find((f) => f.path === 'test/fixtures/orders.json')?.class, 'test');
  assert.deepEqual(changed.uncreditable, ['src/__fixtures__/limits.json', 'src/fixtures/rates.json']);
  assert.deepEqual(changed.imported_tests, [
    { path: 'src/__fixtures__/limits.json', imported_by: 'src/pricing.ts' },
    { path: 'src/fixtures/rates.json', imported_by: 'src/pricing.ts' },
  ]);
});

test('goImports, rustModules, javaImports: what Go, Rust and Java code loads; a #[cfg(test)] module is a test', () => {
  assert.deepEqual(
    goImports(
      'package main\n\nimport "fmt"\nimport f "example.com/m/internal/fixtures"\nimport (\n\t"os"\n\tx "example.com/m/spec"\n)\n',
    ),
    ['fmt', 'example.com/m/internal/fixtures', 'os', 'example.com/m/spec'],
  );
  const go = ['internal/fixtures/rate.go', 'internal/fixtures/rate_test.go', 'spec/x.go', 'main.go'];
  assert.deepEqual(resolveGo('example.com/m/internal/fixtures', go), ['internal/fixtures/rate.go']);
  assert.deepEqual(resolveGo('fmt', go), []);
  const rs = new Set(['src/spec/mod.rs', 'src/tests/mod.rs', 'src/a/fixtures.rs', 'src/gen/t.rs']);
  assert.deepEqual(
    rustModules('src/lib.rs', 'pub mod spec;\n#[cfg(test)]\nmod tests;\n#[path = "gen/t.rs"] mod t;\n', rs).sort(),
    ['src/gen/t.rs', 'src/spec/mod.rs'],
  );
  assert.deepEqual(rustModules('src/a.rs', 'pub(crate) mod fixtures;\n', rs), ['src/a/fixtures.rs']);
  assert.deepEqual(
    javaImports(
      'package a;\nimport com.acme.spec.Rules;\nimport static com.acme.test.Util.f;\nimport com.acme.fixtures.*;\n',
    ),
    ['com.acme.spec.Rules', 'com.acme.test.Util.f', 'com.acme.fixtures.*'],
  );
  const java = [
    'src/main/java/com/acme/spec/Rules.java',
    'src/main/java/com/acme/test/Util.java',
    'src/main/java/com/acme/fixtures/Data.java',
    'src/main/java/com/acme/App.java',
  ];
  assert.deepEqual(resolveJava('com.acme.spec.Rules', java), ['src/main/java/com/acme/spec/Rules.java']);
  assert.deepEqual(resolveJava('com.acme.test.Util.f', java), ['src/main/java/com/acme/test/Util.java']);
  assert.deepEqual(resolveJava('com.acme.fixtures.*', java), ['src/main/java/com/acme/fixtures/Data.java']);
});

test('symbols: Go, Rust and Java code under a test path that production loads is production', async () => {
  const changed = await changedBy(
    {
      'go.mod': 'module example.com/m\n\ngo 1.21\n',
      'main.go':
        'package main\n\nimport "example.com/m/internal/fixtures"\n\nfunc Total(x int) int { return fixtures.Rate(x) }\n',
      'internal/fixtures/rate.go': 'package fixtures\n\nfunc Rate(x int) int { return x * 2 }\n',
      'src/lib.rs': 'pub mod spec;\npub fn total(x: u32) -> u32 { spec::rate(x) }\n',
      'src/spec/mod.rs': 'pub fn rate(x: u32) -> u32 { x * 2 }\n',
      'src/main/java/com/acme/App.java':
        'package com.acme;\n\nimport com.acme.spec.Rules;\n\nclass App { int total(int x) { return Rules.rate(x); } }\n',
      'src/main/java/com/acme/spec/Rules.java':
        'package com.acme.spec;\n\npublic class Rules { public static int rate(int x) { return x * 2; } }\n',
    },
    {
      'internal/fixtures/rate.go': 'package fixtures\n\nfunc Rate(x int) int { return x * 3 }\n',
      'src/spec/mod.rs': 'pub fn rate(x: u32) -> u32 { x * 3 }\n',
      'src/main/java/com/acme/spec/Rules.java':
        'package com.acme.spec;\n\npublic class Rules { public static int rate(int x) { return x * 3; } }\n',
    },
  );
  assert.deepEqual(changed.changed, [
    'internal/fixtures/rate.go::Rate',
    'src/main/java/com/acme/spec/Rules.java::Rules.rate',
    'src/spec/mod.rs::rate',
  ]);
  assert.deepEqual(
    changed.imported_tests?.map((t) => t.imported_by),
    ['main.go', 'src/main/java/com/acme/App.java', 'src/lib.rs'],
  );
});

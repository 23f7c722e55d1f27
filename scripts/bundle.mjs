// Bundles the CLI so that a command loads one module, not hundreds: dist/bundle/all.cjs has
// every command; gate.cjs, run.cjs and seal.cjs each hold one command whose start-up time is
// measured (the decision CI runs most, the sealed run's overhead, the seal's throughput), so
// their cold start compiles only their own code and built-ins; parse-worker.cjs is the worker
// thread `sealgate symbols` parses with and valid-worker.cjs the one `credit` type-checks
// mutants in (each loaded by Node itself, no code cache). The heavy parsers
// (TypeScript, tree-sitter, YAML, TOML) stay external, loaded from node_modules only when used.
// CommonJS, not ES modules: bin/sealgate.js compiles a CommonJS bundle as a vm.Script, and a
// CommonJS start skips the ES module loader.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bundle', { recursive: true, force: true });

const result = await build({
  entryPoints: { all: 'src/cli/entry.ts', gate: 'src/cli/entry-gate.ts', run: 'src/cli/entry-run.ts', seal: 'src/cli/entry-seal.ts', 'parse-worker': 'src/symbols/parse-worker.ts', 'valid-worker': 'src/credit/valid-worker.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: false,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // import.meta.url, as CommonJS can say it: the bundle's own file URL.
  define: { 'import.meta.url': '__sealgate_import_meta_url' },
  banner: { js: '"use strict";var __sealgate_import_meta_url=require("node:url").pathToFileURL(__filename).href;' },
  platform: 'node',
  target: 'node20',
  minify: process.env.SEALGATE_BUNDLE_MINIFY !== "0",
  sourcemap: 'linked',
  legalComments: 'linked',
  external: ['yaml', 'smol-toml', 'typescript', 'web-tree-sitter', 'tree-sitter-*', 'fast-check', 'playwright-core', '@stryker-mutator/*'],
  logLevel: 'warning',
  metafile: true,
});

// bin/sealgate.js compiles each bundle as a vm.Script, where import() has no module loader
// behind it and would fail at run time; so a bundle may not contain one.
for (const [out, meta] of Object.entries(result.metafile.outputs)) {
  const dynamic = meta.imports.filter((i) => i.kind === 'dynamic-import');
  if (dynamic.length > 0) throw new Error(`${out}: dynamic import() of ${dynamic.map((i) => i.path).join(', ')}; use createRequire(import.meta.url) instead`);
}

// No V8 code cache is written: bin/sealgate.js reads none (docs/decisions.md, "No code cache").

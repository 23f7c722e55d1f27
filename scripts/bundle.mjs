// Bundles the CLI so that a command loads one module, not hundreds: dist/bundle/run.js has
// every command; dist/bundle/gate.js only `gate`, the command CI runs most, so its cold start
// compiles a third of the code and none of the other commands' built-ins; dist/bundle/parse-worker.js
// is the worker thread `sealgate symbols` parses with. The heavy parsers
// (TypeScript, tree-sitter, YAML) stay external, loaded from node_modules only when used.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: { run: 'src/cli/entry.ts', gate: 'src/cli/entry-gate.ts', 'parse-worker': 'src/symbols/parse-worker.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: process.env.SEALGATE_BUNDLE_MINIFY !== "0",
  sourcemap: 'linked',
  legalComments: 'linked',
  external: ['yaml', 'typescript', 'web-tree-sitter', 'tree-sitter-*', 'fast-check', 'playwright-core', '@stryker-mutator/*'],
  logLevel: 'warning',
});

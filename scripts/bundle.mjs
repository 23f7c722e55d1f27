// Bundles the CLI into dist/bundle/ so that `sealgate gate` loads a handful of files, not
// hundreds of modules: a cold start close to bare `node`. Each command stays its own chunk
// (loaded only when called), and the heavy parsers stay external, loaded from node_modules
// only by the commands that need them.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: { run: 'src/cli/run.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: process.env.SEALGATE_BUNDLE_MINIFY !== "0",
  sourcemap: 'linked',
  legalComments: 'linked',
  external: ['yaml', 'typescript', 'web-tree-sitter', 'tree-sitter-*', 'fast-check', 'playwright-core', '@stryker-mutator/*'],
  logLevel: 'warning',
});

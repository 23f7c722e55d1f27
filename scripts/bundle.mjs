// Bundles the CLI so that a command loads one module, not hundreds: dist/bundle/all.cjs has
// every command; gate.cjs, run.cjs and seal.cjs each hold one command whose start-up time is
// measured (the decision CI runs most, the sealed run's overhead, the seal's throughput), so
// their cold start compiles only their own code and built-ins; parse-worker.cjs is the worker
// thread `sealgate symbols` parses with and valid-worker.cjs the one `credit` type-checks
// mutants in (each loaded by Node itself, no code cache). The heavy parsers
// (TypeScript, tree-sitter, YAML, TOML) stay external, loaded from node_modules only when used.
// CommonJS, not ES modules: bin/sealgate.js compiles a CommonJS bundle as a vm.Script, and a
// CommonJS start skips the ES module loader.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bundle', { recursive: true, force: true });

const result = await build({
  entryPoints: {
    all: 'src/cli/entry.ts',
    gate: 'src/cli/entry-gate.ts',
    run: 'src/cli/entry-run.ts',
    seal: 'src/cli/entry-seal.ts',
    'parse-worker': 'src/symbols/parse-worker.ts',
    'valid-worker': 'src/credit/lang/typescript/valid-worker.ts',
  },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: false,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // import.meta.url, as CommonJS can say it: the bundle's own file URL, made on first use (a
  // command that never asks does not load node:url's URL parser).
  define: { 'import.meta.url': '__sealgate_meta.url' },
  banner: {
    js: '"use strict";var __sealgate_meta={get url(){return require("node:url").pathToFileURL(__filename).href}};',
  },
  platform: 'node',
  target: 'node20',
  minify: process.env.SEALGATE_BUNDLE_MINIFY !== '0',
  sourcemap: 'linked',
  legalComments: 'linked',
  external: [
    'yaml',
    'smol-toml',
    'typescript',
    'web-tree-sitter',
    'tree-sitter-*',
    'fast-check',
    'playwright-core',
    '@stryker-mutator/*',
  ],
  // Regular expressions with \p{...} stay literals (every Node 20 has them; esbuild's table asks
  // for a later 20.x), so an unused one is dropped: valibot's emoji pattern would otherwise be
  // built with new RegExp at every start.
  supported: { 'regexp-unicode-property-escapes': true },
  logLevel: 'warning',
  metafile: true,
});

// bin/sealgate.js compiles each bundle as a vm.Script, where import() has no module loader
// behind it and would fail at run time; so a bundle may not contain one.
for (const [out, meta] of Object.entries(result.metafile.outputs)) {
  const dynamic = meta.imports.filter((i) => i.kind === 'dynamic-import');
  if (dynamic.length > 0)
    throw new Error(
      `${out}: dynamic import() of ${dynamic.map((i) => i.path).join(', ')}; use createRequire(import.meta.url) instead`,
    );
}

// Each bundle bin/sealgate.js loads gets its V8 code cache at its end (scripts/code-cache.cjs;
// docs/decisions.md, "Code cache"), made after these runs so it holds the bytecode of what they
// call. The gate's are the decisions of two acceptance traces (unsigned, and signed with a
// freeze); the others only parse their arguments, as a run of theirs needs a repository.
// SEALGATE_CODE_CACHE=0 builds bundles without one.
const trace = 'acceptance/trace-3-freeze-other-test-allows';
const signed = 'acceptance/sig-freeze-signed-allows';
const gateRun = (dir, policy) => [
  'gate',
  '--repo',
  dir,
  '--record',
  `${dir}/record.json`,
  '--credit',
  `${dir}/credit.json`,
  '--freeze',
  `${dir}/freeze.json`,
  '--policy',
  policy,
  '--now',
  '2026-10-12T12:00:00Z',
];
const WARM = {
  gate: [gateRun(trace, 'acceptance/policy.json'), gateRun(signed, `${signed}.policy.json`)],
  run: [['run', '--help']],
  seal: [['seal', '--help']],
  all: [['--help'], ['codes'], ['--version']],
};
if (process.env.SEALGATE_CODE_CACHE !== '0') {
  for (const [name, runs] of Object.entries(WARM)) {
    const r = spawnSync(process.execPath, ['scripts/code-cache.cjs', `dist/bundle/${name}.cjs`, JSON.stringify(runs)], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (r.status !== 0)
      throw new Error(`code cache of ${name}.cjs: exit ${r.status}: ${r.output?.[3] ?? r.error?.message}`);
  }
}

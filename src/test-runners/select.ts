import { basename } from 'node:path';
import { escapeRegExp } from '../core/text.js';

/** Test runners whose command line sealgate knows how to narrow to some test files. */
export type RunnerKind = 'node-test' | 'vitest' | 'jest' | 'pytest' | 'unknown';

const base = (p: string | undefined): string => (p === undefined ? '' : basename(p).replace(/\.(c|m)?js$/, ''));

export function detectRunner(command: readonly string[]): RunnerKind {
  const [prog, ...rest] = command;
  const b = base(prog);
  if (b === 'node' && rest.includes('--test')) return 'node-test';
  if (b === 'pytest' || b === 'py.test') return 'pytest';
  if (/^python(\d(\.\d+)?)?$/.test(b) && rest[0] === '-m' && rest[1] === 'pytest') return 'pytest';
  if (b === 'vitest' || (b === 'npx' && base(rest[0]) === 'vitest')) return 'vitest';
  if (b === 'jest' || (b === 'npx' && base(rest[0]) === 'jest')) return 'jest';
  return 'unknown';
}

/**
 * Does the command run its tests in one process (pytest without xdist's `-n`)? Such a run leaves
 * the other cores idle, so the credit prelude's runs go beside it (yielding: AHEAD_NICE); jest's
 * and vitest's own workers keep two cores busy, and runs beside them only slow them down, or,
 * yielding, gain nothing (measured: docs/credit.md, "Beside the sealed run").
 */
export function runsInOneProcess(command: readonly string[]): boolean {
  return (
    detectRunner(command) === 'pytest' &&
    !command.some(
      (w) => /^(-n|--numprocesses)(=|$)|^-n\S/.test(w) || w === '--dist' || w.startsWith('--dist=') || w === 'xdist',
    )
  );
}

/** Options of each runner that take a separate value (`--opt value`), so the value is not a test path. */
const VALUE_OPTS: Record<Exclude<RunnerKind, 'unknown'>, ReadonlySet<string>> = {
  'node-test': new Set([
    '--import',
    '--require',
    '-r',
    '--loader',
    '--experimental-loader',
    '--test-reporter',
    '--test-reporter-destination',
    '--test-name-pattern',
    '--test-skip-pattern',
    '--test-concurrency',
    '--test-timeout',
    '--test-shard',
    '--conditions',
    '-C',
    '--input-type',
    '--env-file',
    '--stack-size',
    '--max-old-space-size',
  ]),
  pytest: new Set([
    '-k',
    '-m',
    '-o',
    '-p',
    '-c',
    '-W',
    '-n',
    '--rootdir',
    '--junitxml',
    '--junit-xml',
    '--basetemp',
    '--confcutdir',
    '--ignore',
    '--ignore-glob',
    '--deselect',
    '--tb',
    '--maxfail',
    '-r',
    '--durations',
    '--log-level',
    '--import-mode',
    '--cov',
    '--cov-report',
    '--override-ini',
    '--capture',
    '--hypothesis-seed',
  ]),
  vitest: new Set([
    '--reporter',
    '--outputFile',
    '--config',
    '-c',
    '--root',
    '-r',
    '--dir',
    '--project',
    '--environment',
    '--pool',
    '-t',
    '--testNamePattern',
    '--testTimeout',
    '--maxWorkers',
    '--minWorkers',
    '--shard',
    '--mode',
    '--sequence.seed',
  ]),
  jest: new Set([
    '--config',
    '-c',
    '--reporters',
    '--testNamePattern',
    '-t',
    '--maxWorkers',
    '-w',
    '--rootDir',
    '--roots',
    '--testTimeout',
    '--shard',
    '--outputFile',
    '--seed',
    '--selectProjects',
    '--testPathIgnorePatterns',
    '--testPathPattern',
    '--testRegex',
  ]),
};

/** The index after the program (and `-m pytest`, `npx vitest run`) where the runner's own arguments start. */
function argStart(kind: RunnerKind, command: readonly string[]): number {
  const b = base(command[0]);
  if (kind === 'pytest' && b !== 'pytest' && b !== 'py.test') return 3;
  if ((kind === 'vitest' || kind === 'jest') && b === 'npx') return 2;
  return 1;
}

/**
 * The command narrowed to the given test files (or pytest node ids), or null when it cannot be
 * narrowed safely: then the whole command runs. Positional path arguments are replaced; every
 * option is kept.
 */
export function narrowCommand(command: readonly string[], targets: readonly string[]): string[] | null {
  const kind = detectRunner(command);
  if (kind === 'unknown' || targets.length === 0) return null;
  if (targets.some((t) => t.startsWith('-'))) return null;
  const start = argStart(kind, command);
  const head = command.slice(0, start);
  const kept: string[] = [];
  const values = VALUE_OPTS[kind];
  let afterDashDash = false;
  for (let i = start; i < command.length; i++) {
    const a = command[i] as string;
    if (afterDashDash) continue; // positional paths after `--`
    if (a === '--') {
      afterDashDash = true;
      continue;
    }
    if (a.startsWith('-')) {
      kept.push(a);
      if (!a.includes('=') && values.has(a) && i + 1 < command.length) kept.push(command[++i] as string);
      continue;
    }
    if (
      kind === 'vitest' &&
      (a === 'run' || a === 'watch' || a === 'related') &&
      kept.every((k) => k.startsWith('-'))
    ) {
      if (a !== 'run') return null;
      kept.push(a);
      continue;
    }
    // a positional: a test path, directory or pattern; dropped in favour of the targets
  }
  if (kind === 'jest') return [...head, ...kept, '--runTestsByPath', ...targets];
  if (kind === 'node-test' && targets.length === 1) {
    // One file: run it in this process, without the --test orchestrator and its child process.
    // The reporters and loaders stay; the test-runner-only flags go.
    const inProcess: string[] = [];
    for (let i = 0; i < kept.length; i++) {
      const a = kept[i] as string;
      const name = a.split('=')[0] as string;
      if (a === '--test' || TEST_ONLY.has(name)) {
        if (!a.includes('=') && VALUE_OPTS['node-test'].has(name)) i++;
        continue;
      }
      inProcess.push(a);
    }
    return [...head, ...inProcess, ...targets];
  }
  return [...head, ...kept, ...targets];
}

/** node flags that only mean something to the `--test` orchestrator. */
const TEST_ONLY = new Set([
  '--test-concurrency',
  '--test-shard',
  '--test-force-exit',
  '--experimental-test-isolation',
  '--watch',
  '--test-coverage-include',
  '--test-coverage-exclude',
]);

/** jest's options that turn coverage on or off (`--coverage`, its alias `--collectCoverage`, with or without a value). */
const JEST_COVERAGE = /^--(?:no-)?(?:coverage|collectCoverage|collect-coverage)(?:=.*)?$/;
/** jest's in-band switch, in every spelling (`-i`, `--runInBand`, `--run-in-band`, with or without a value). */
const JEST_IN_BAND = /^(?:-i|--(?:no-)?(?:runInBand|run-in-band)(?:=.*)?)$/;

/**
 * The command every credit run uses, with cheap failure output where the runner allows it:
 * pytest gets `--tb=line` (replacing any `--tb`) and `-p no:cacheprovider`; jest gets
 * `--coverage=false` (replacing any coverage flag): coverage instrumentation costs a quarter to
 * a third of a narrowed run, and a threshold a narrowed run cannot meet makes jest exit 1 with
 * every test passed; and `--runInBand` (replacing any in-band flag): a fresh copy has no timing
 * cache, so jest would start a worker process for a run of two test files or more, and each
 * test file still gets its own module registry in band; vitest gets `--coverage.enabled=false` last (before any `--`), which
 * overrides a config's `coverage.enabled` and an earlier `--coverage`. Controls and mutants
 * alike run it, so no test can tell them apart by it.
 */
export function cheapCommand(command: readonly string[], opts: { readonly vitestCoverage?: boolean } = {}): string[] {
  const kind = detectRunner(command);
  if (kind === 'jest') {
    const start = argStart('jest', command);
    const rest = command.slice(start);
    // Flags only: a coverage flag takes no separate value (`--coverage false` would be a path).
    const cut = rest.indexOf('--');
    const opts = cut < 0 ? rest : rest.slice(0, cut);
    const tail = cut < 0 ? [] : rest.slice(cut);
    return [
      ...command.slice(0, start),
      '--coverage=false',
      '--runInBand',
      ...opts.filter((a) => !JEST_COVERAGE.test(a) && !JEST_IN_BAND.test(a)),
      ...tail,
    ];
  }
  if (kind === 'vitest') {
    // With no coverage provider installed (`vitestCoverage` false) coverage cannot be on, and
    // vitest before 1.0 loads the default provider even for `--coverage.enabled=false`: exit 1,
    // no report (antfu/utils at vitest 0.31: "MISSING DEP @vitest/coverage-c8").
    if (opts.vitestCoverage === false) return [...command];
    // Last (before any `--`): vitest takes the last word on coverage, so it overrides the
    // config and an earlier `--coverage` (one before it would not: `--coverage` turns it back on).
    const cut = command.indexOf('--');
    const at = cut < 0 ? command.length : cut;
    return [...command.slice(0, at), '--coverage.enabled=false', ...command.slice(at)];
  }
  if (kind !== 'pytest') return [...command];
  const start = argStart('pytest', command);
  const head = command.slice(0, start);
  const kept: string[] = [];
  const rest = command.slice(start);
  const extra: string[] = ['--tb=line'];
  const hasNoCache = rest.some(
    (a, i) =>
      (a === '-p' && rest[i + 1] === 'no:cacheprovider') || a === '-pno:cacheprovider' || a === '-p=no:cacheprovider',
  );
  if (!hasNoCache) extra.push('-p', 'no:cacheprovider');
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as string;
    if (a === '--tb') {
      i++;
      continue;
    }
    if (a.startsWith('--tb=')) continue;
    kept.push(a);
  }
  // Right after the program, before any positional or `--`.
  return [...head, ...extra, ...kept];
}

/** A jest config file name jest loads through ts-node (its default TypeScript loader). */
const TS_CONFIG = /\.(c|m)?ts$/;
const JEST_TS_CONFIGS = ['jest.config.ts', 'jest.config.mts', 'jest.config.cts'];

/** Variables added to every credit run, and what they skip (for the report). */
export interface JudgingEnv {
  readonly env: Readonly<Record<string, string>>;
  readonly skips: string;
}

/**
 * Environment added to every credit run (control, trace, probe, mutant; never the sealed run)
 * to skip work that cannot change which tests pass:
 * - jest loading a TypeScript config (`jest.config.ts`, or `--config x.ts`) through ts-node,
 *   which type-checks it first, about 2 s of every run on a small project.
 *   `TS_NODE_TRANSPILE_ONLY` drops the check and `TS_NODE_SKIP_PROJECT` the tsconfig it reads
 *   for it (jest sets the module options itself). The config the tests see is the same
 *   program; the sealed run has type-checked it.
 * - pytest importing every installed plugin package at start (`PYTEST_DISABLE_PLUGIN_AUTOLOAD`):
 *   hypothesis's plugin and pytest-benchmark were about half of each narrowed run of
 *   r1chardj0n3s/parse, whose tests use neither. Plugins named by `-p`, by `pytest_plugins` or
 *   in a conftest still load.
 * The oracle keeps it only when the first control passes every test the sealed run passed
 * (a test that needs a plugin fails or errors without it), else every run goes without it.
 * Null for other runners, for a JavaScript jest config, or when the policy's `test.env` sets a
 * variable of that family itself (`TS_NODE_`, `PYTEST_`). `exists` says whether a file is in the tree.
 */
export function judgingEnvFor(
  command: readonly string[],
  testEnv: Readonly<Record<string, string>>,
  exists: (rel: string) => boolean,
): JudgingEnv | null {
  const kind = detectRunner(command);
  if (kind === 'pytest') {
    if (Object.keys(testEnv).some((k) => k.startsWith('PYTEST_'))) return null;
    return {
      env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' },
      skips: "pytest's plugins installed as packages (entry points) were not loaded",
    };
  }
  if (kind !== 'jest') return null;
  if (Object.keys(testEnv).some((k) => k.startsWith('TS_NODE_'))) return null;
  const rest = command.slice(argStart('jest', command));
  let config: string | null = null;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as string;
    if (a === '--config' || a === '-c') config = rest[i + 1] ?? '';
    else if (a.startsWith('--config=')) config = a.slice('--config='.length);
    else if (a.startsWith('-c=')) config = a.slice(3);
  }
  const ts =
    config !== null ? TS_CONFIG.test(config) && !config.trimStart().startsWith('{') : JEST_TS_CONFIGS.some(exists);
  return ts
    ? {
        env: { TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_SKIP_PROJECT: 'true' },
        skips: "jest's TypeScript config was loaded without type-checking it",
      }
    : null;
}

/** A test as its report names it: the suite chain (joined by " > ", as the JUnit readers join it) and the name. */
export interface NamedTest {
  readonly suite: string;
  readonly name: string;
}

/** Options that already filter tests by name: a run narrowed by name must not fight them. */
const NAME_FILTERS = new Set(['-t', '--testNamePattern', '--test-name-pattern', '--test-skip-pattern']);
/** The longest name pattern put on a command line; beyond it the run stays narrowed by file. */
export const MAX_NAME_PATTERN = 16 * 1024;

/**
 * The names a runner may give one reported test. The report joins the chain with " > ", and a
 * name may hold " > " itself, so every grouping of the pieces is allowed. vitest and jest match
 * the pattern against the full name (the chain joined by single spaces), so each " > " becomes
 * " > " or " ". node:test matches each test's own name, and runs a subtest only when its parent
 * test matches too, so every contiguous run of pieces is a name of its own.
 */
function namePatterns(kind: 'vitest' | 'jest' | 'node-test', t: NamedTest): string[] | null {
  const full = t.suite === '' ? t.name : `${t.suite} > ${t.name}`;
  if (t.name === '' || full.trim() !== full) return null;
  // A report name that ends in " >" or starts with "> " may be a chain with an empty level (vitest
  // reports `test("")` in `describe("d")` as "d > ", trimmed): its full name cannot be told.
  if (full.endsWith(' >') || full.startsWith('> ') || full === '>') return null;
  const pieces = full.split(' > ');
  if (pieces.some((p) => p === '')) return null;
  if (kind !== 'node-test') return [pieces.map(escapeRegExp).join('(?: > | )')];
  // node:test matches each level's own name, so the levels must be found again in the joined
  // name: where separators overlap (" > > ": a name ending in " >" or starting with "> "), the
  // split is a guess, so in doubt the run stays narrowed by file.
  if (full.includes(' > > ')) return null;
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i++)
    for (let j = i + 1; j <= pieces.length; j++) out.push(escapeRegExp(pieces.slice(i, j).join(' > ')));
  return out;
}

/**
 * An anchored pattern that matches each of `tests` by its exact name (and may match another test
 * of the same name, never fewer), or null when in doubt: an empty or padded name, a runner other
 * than vitest, jest or node:test, or a pattern too long for a command line.
 */
export function toNamePattern(kind: RunnerKind, tests: readonly NamedTest[]): string | null {
  if ((kind !== 'vitest' && kind !== 'jest' && kind !== 'node-test') || tests.length === 0) return null;
  const alts = new Set<string>();
  for (const t of tests) {
    const p = namePatterns(kind, t);
    if (p === null) return null;
    for (const a of p) alts.add(a);
  }
  const pattern = `^(?:${[...alts].sort().join('|')})$`;
  return pattern.length > MAX_NAME_PATTERN ? null : pattern;
}

/**
 * The command narrowed to `files` and, within them, to the tests named (vitest and jest
 * `--testNamePattern`, node:test `--test-name-pattern`), or null when it cannot be narrowed by
 * name: then the caller narrows by file. A command that already filters by name is left to its
 * own filter.
 */
export function narrowByName(
  command: readonly string[],
  files: readonly string[],
  tests: readonly NamedTest[],
): string[] | null {
  const kind = detectRunner(command);
  if (command.some((a) => NAME_FILTERS.has(a.split('=')[0] as string))) return null;
  const pattern = toNamePattern(kind, tests);
  if (pattern === null) return null;
  const narrowed = narrowCommand(command, files);
  if (narrowed === null) return null;
  // node reads its options before the script (after it they are the script's); vitest and jest anywhere.
  if (kind === 'node-test') return [narrowed[0] as string, `--test-name-pattern=${pattern}`, ...narrowed.slice(1)];
  return [...narrowed, `--testNamePattern=${pattern}`];
}

import { basename } from 'node:path';

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

/** Options of each runner that take a separate value (`--opt value`), so the value is not a test path. */
const VALUE_OPTS: Record<Exclude<RunnerKind, 'unknown'>, ReadonlySet<string>> = {
  'node-test': new Set(['--import', '--require', '-r', '--loader', '--experimental-loader', '--test-reporter', '--test-reporter-destination', '--test-name-pattern', '--test-skip-pattern', '--test-concurrency', '--test-timeout', '--test-shard', '--conditions', '-C', '--input-type', '--env-file', '--stack-size', '--max-old-space-size']),
  pytest: new Set(['-k', '-m', '-o', '-p', '-c', '-W', '-n', '--rootdir', '--junitxml', '--junit-xml', '--basetemp', '--confcutdir', '--ignore', '--ignore-glob', '--deselect', '--tb', '--maxfail', '-r', '--durations', '--log-level', '--import-mode', '--cov', '--cov-report', '--override-ini', '--capture', '--hypothesis-seed']),
  vitest: new Set(['--reporter', '--outputFile', '--config', '-c', '--root', '-r', '--dir', '--project', '--environment', '--pool', '-t', '--testNamePattern', '--testTimeout', '--maxWorkers', '--minWorkers', '--shard', '--mode', '--sequence.seed']),
  jest: new Set(['--config', '-c', '--reporters', '--testNamePattern', '-t', '--maxWorkers', '-w', '--rootDir', '--roots', '--testTimeout', '--shard', '--outputFile', '--seed', '--selectProjects', '--testPathIgnorePatterns', '--testPathPattern', '--testRegex']),
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
    if (kind === 'vitest' && (a === 'run' || a === 'watch' || a === 'related') && kept.every((k) => k.startsWith('-'))) {
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
const TEST_ONLY = new Set(['--test-concurrency', '--test-shard', '--test-force-exit', '--experimental-test-isolation', '--watch', '--test-coverage-include', '--test-coverage-exclude']);

/**
 * The command every credit run uses, with cheap failure output where the runner allows it:
 * pytest gets `--tb=line` (replacing any `--tb`) and `-p no:cacheprovider`. Controls and
 * mutants alike run it, so no test can tell them apart by it.
 */
export function cheapCommand(command: readonly string[]): string[] {
  if (detectRunner(command) !== 'pytest') return [...command];
  const start = argStart('pytest', command);
  const head = command.slice(0, start);
  const kept: string[] = [];
  const rest = command.slice(start);
  const extra: string[] = ['--tb=line'];
  const hasNoCache = rest.some((a, i) => (a === '-p' && rest[i + 1] === 'no:cacheprovider') || a === '-pno:cacheprovider' || a === '-p=no:cacheprovider');
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

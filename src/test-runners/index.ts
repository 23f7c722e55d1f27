// The test runners sealgate knows, one adapter each, and what is asked of the runner of a command.
import { jest } from './jest.js';
import { joinPatterns } from './names.js';
import { nodeTest } from './node-test.js';
import { pytest } from './pytest.js';
import {
  RUNNER_KINDS,
  type ByName,
  type CaseNames,
  type CheapOptions,
  type JudgingEnv,
  type JunitDialect,
  type LoadFailure,
  type NamedTest,
  type RunEnd,
  type RunnerKind,
  type TestRunner,
} from './runner.js';
import { unknown } from './unknown.js';
import { vitest, vitestCoverageIn } from './vitest.js';

export { MAX_NAME_PATTERN } from './names.js';
export { reportPath } from './runner.js';
export type {
  CaseNames,
  CheapOptions,
  JudgingEnv,
  JunitDialect,
  LoadFailure,
  NamedTest,
  RunEnd,
  RunnerKind,
  TestRunner,
};

/** One adapter per runner kind: a kind without every piece does not compile. */
export const TEST_RUNNERS = {
  'node-test': nodeTest,
  vitest,
  jest,
  pytest,
  unknown,
} as const satisfies Record<RunnerKind, TestRunner>;

const ALL: readonly TestRunner[] = RUNNER_KINDS.map((k) => TEST_RUNNERS[k]);

/** The runner a command runs (the kinds' commands do not overlap), or `unknown`. */
export function detectRunner(command: readonly string[]): RunnerKind {
  return ALL.find((r) => r.matches(command))?.kind ?? 'unknown';
}

export const runnerOf = (command: readonly string[]): TestRunner => TEST_RUNNERS[detectRunner(command)];

/**
 * The command narrowed to the given test files (or pytest node ids), or null when it cannot be
 * narrowed safely: then the whole command runs. Positional path arguments are replaced; every
 * option is kept.
 */
export function narrowCommand(command: readonly string[], targets: readonly string[]): string[] | null {
  if (targets.length === 0 || targets.some((t) => t.startsWith('-'))) return null;
  return runnerOf(command).narrow(command, targets);
}

/** The command every credit run uses (controls and mutants alike, so no test can tell them apart by it). */
export function cheapCommand(command: readonly string[], opts: CheapOptions = {}): string[] {
  return runnerOf(command).cheapCommand(command, opts);
}

/** What the dependencies installed in `deps` tell the cheap command. */
export function installedOptions(deps: string): CheapOptions {
  return { vitestCoverage: vitestCoverageIn(deps) };
}

/**
 * Environment added to every credit run (control, trace, probe, mutant; never the sealed run)
 * to skip work that cannot change which tests pass, or null. The oracle keeps it only when the
 * first control passes every test the sealed run passed. Null too when the policy's `test.env`
 * sets a variable of that family itself. `exists` says whether a file is in the tree.
 */
export function judgingEnvFor(
  command: readonly string[],
  testEnv: Readonly<Record<string, string>>,
  exists: (rel: string) => boolean,
): JudgingEnv | null {
  return runnerOf(command).judgingEnv(command, testEnv, exists);
}

/**
 * Does the command run its tests in one process (pytest without xdist's `-n`)? Then the credit
 * prelude's runs go beside it, on the cores it leaves idle.
 */
export function runsInOneProcess(command: readonly string[]): boolean {
  return runnerOf(command).runsInOneProcess(command);
}

/**
 * An anchored pattern that matches each of `tests` by its exact name (and may match another test
 * of the same name, never fewer), or null when in doubt: an empty or padded name, a runner that
 * takes no name, or a pattern too long for a command line.
 */
export function toNamePattern(kind: RunnerKind, tests: readonly NamedTest[]): string | null {
  const byName = TEST_RUNNERS[kind].byName;
  return byName === null ? null : joinPatterns(byName.patterns, tests);
}

/** Options that already filter tests by name: a run narrowed by name must not fight them. */
const NAME_FILTERS = new Set(['-t', '--testNamePattern', '--test-name-pattern', '--test-skip-pattern']);

/**
 * The command narrowed to `files` and, within them, to the tests named, or null when it cannot
 * be narrowed by name: then the caller narrows by file. A command that already filters by name
 * is left to its own filter.
 */
export function narrowByName(
  command: readonly string[],
  files: readonly string[],
  tests: readonly NamedTest[],
): string[] | null {
  const runner = runnerOf(command);
  if (command.some((a) => NAME_FILTERS.has(a.split('=')[0] as string))) return null;
  const pattern = toNamePattern(runner.kind, tests);
  if (pattern === null) return null;
  const narrowed = narrowCommand(command, files);
  return narrowed === null ? null : (runner.byName as ByName).apply(narrowed, pattern);
}

/** The load failure a run shows, as the runner whose command shape it has tells it (their exit statuses do not overlap). */
export function loadFailureOf(run: RunEnd, command: readonly string[]): LoadFailure | null {
  for (const r of ALL) {
    const f = r.loadFailure(run, command);
    if (f !== null) return f;
  }
  return null;
}

/** Files a failed case may name, besides its file, name and suite, when it stands for a file that failed to load. */
export function loadFailureFiles(c: { readonly suite: string; readonly name: string }): string[] {
  return ALL.flatMap((r) => r.loadFailureFiles(c));
}

/** How the runner of a test source file names its tests in its report, where the file alone does not say it, or null. */
export function caseNamesOf(file: string): CaseNames | null {
  return ALL.find((r) => r.caseNames?.files.test(file) === true)?.caseNames ?? null;
}

/** The JUnit dialects of the runners that have one, in the registry's order. */
export const JUNIT_DIALECTS: readonly JunitDialect[] = ALL.flatMap((r) => (r.junit === null ? [] : [r.junit]));

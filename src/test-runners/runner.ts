// What sealgate asks of one test runner: the plug-in contract every adapter of this folder fills.
import { basename } from 'node:path';

/** Test runners whose command line sealgate knows how to narrow to some test files; `unknown` is every other. */
export const RUNNER_KINDS = ['node-test', 'vitest', 'jest', 'pytest', 'unknown'] as const;
export type RunnerKind = (typeof RUNNER_KINDS)[number];

/** A test as its report names it: the suite chain (joined by " > ", as the JUnit readers join it) and the name. */
export interface NamedTest {
  readonly suite: string;
  readonly name: string;
}

/** Variables added to every credit run, and what they skip (for the report). */
export interface JudgingEnv {
  readonly env: Readonly<Record<string, string>>;
  readonly skips: string;
}

/** What the installed dependencies tell about the cheap command (installedOptions). */
export interface CheapOptions {
  /** A vitest coverage provider (`@vitest/coverage-*`) is installed: without one, coverage cannot be on. */
  readonly vitestCoverage?: boolean;
}

/** How a run ended, as far as a load failure is told from it. */
export interface RunEnd {
  readonly status: 'ok' | 'timeout' | 'crash';
  readonly detail: string;
  readonly exitCode?: number | null;
}

/** A run that failed before its report because a test file could not load: every test it was asked to run (`file` null), or every test `file` holds. */
export interface LoadFailure {
  readonly file: string | null;
  readonly detail: string;
}

/** Narrowing a command to tests by their names (vitest, jest, node:test). */
export interface ByName {
  /** Every pattern that matches one reported test by its exact name, or null when in doubt. */
  readonly patterns: (t: NamedTest) => string[] | null;
  /** The command narrowed by file, with `pattern` put where the runner reads it. */
  readonly apply: (narrowed: readonly string[], pattern: string) => string[];
}

/** How a runner names a test of one of its source files in its report, where the file alone does not say it (pytest). */
export interface CaseNames {
  /** The source files named this way. */
  readonly files: RegExp;
  /** The report's suite (JUnit classname) of a test of `file` in the classes `suite`. */
  classname(file: string, suite: readonly string[]): string;
  /** May the report's `reported` suite be the one of a test of `file` in the classes `suite`? */
  suiteMatches(file: string, suite: readonly string[], reported: string): boolean;
  /** The id the runner selects the test by (a node id). */
  nodeId(file: string, suite: readonly string[], name: string): string;
}

/** How a runner writes JUnit XML, where it differs from the common form (the classname is the suite). */
export interface JunitDialect {
  /** The `name` of its `<testsuites>` root. */
  readonly rootName: string;
  /** It may also write a bare `<testsuites>` root whose every case has this classname (node's own reporter). */
  readonly bareClassname?: string;
  /** Its suites' `tests` counts include nested suites, so they are not checked against the cases. */
  readonly nestedCounts?: boolean;
  /** One case's file, suite and name, from its attributes (trimmed) and its enclosing suites' names. */
  caseOf(c: {
    readonly name: string;
    readonly classname: string;
    readonly file: string | null;
    readonly chain: readonly string[];
  }): { file: string | null; suite: string; name: string };
}

/** One test runner, as the credit step, the JUnit reader and the trace need it. */
export interface TestRunner {
  readonly kind: RunnerKind;
  /** Does `command` run this runner (its program, or `npx`, `python -m` in front of it)? */
  matches(command: readonly string[]): boolean;
  /** The command narrowed to the given test files (or node ids), or null when it cannot be narrowed safely. */
  narrow(command: readonly string[], targets: readonly string[]): string[] | null;
  /** Narrowing by test name, where the runner has it. */
  readonly byName: ByName | null;
  /** The command every credit run uses: cheap failure output, no coverage, where the runner allows it. */
  cheapCommand(command: readonly string[], opts: CheapOptions): string[];
  /** Environment that skips work no test outcome depends on, or null. */
  judgingEnv(
    command: readonly string[],
    testEnv: Readonly<Record<string, string>>,
    exists: (rel: string) => boolean,
  ): JudgingEnv | null;
  /** Does the command run its tests in one process, leaving the other cores idle? */
  runsInOneProcess(command: readonly string[]): boolean;
  /** The load failure a run of `command` that ended so shows, or null (told by the command's own shape, not by `matches`). */
  loadFailure(run: RunEnd, command: readonly string[]): LoadFailure | null;
  /** Files a failed report case may name when it stands for a file that failed to load, besides its file, name and suite. */
  loadFailureFiles(c: { readonly suite: string; readonly name: string }): string[];
  /** Its trace records a test by file and name, and a file alone while none runs (jest's and vitest's expect state). */
  readonly traceNamesTests: boolean;
  readonly caseNames: CaseNames | null;
  readonly junit: JunitDialect | null;
}

/** A program's name without its folder and a .js/.cjs/.mjs extension. */
export const programName = (p: string | undefined): string =>
  p === undefined ? '' : basename(p).replace(/\.(c|m)?js$/, '');

/** A report's path as the readers keep it: forward slashes, no leading `./`. */
export function reportPath(p: string): string {
  return p.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/**
 * The options of `command` from `start` on, each with its separate value (`values`), its
 * positionals (test paths, directories, patterns) dropped; `positional` may keep one or refuse
 * the command (null). Nothing after `--` is kept.
 */
export function optionsOf(
  command: readonly string[],
  start: number,
  values: ReadonlySet<string>,
  positional: (a: string, kept: readonly string[]) => 'keep' | 'drop' | 'refuse' = () => 'drop',
): string[] | null {
  const kept: string[] = [];
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
    const p = positional(a, kept);
    if (p === 'refuse') return null;
    if (p === 'keep') kept.push(a);
    // a positional: a test path, directory or pattern; dropped in favour of the targets
  }
  return kept;
}

/** Nothing of a load failure, no caller to name: the default of runners that have none. */
export const noLoadFailure = (): null => null;

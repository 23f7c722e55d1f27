// node:test (`node --test`): narrowing to files and names, its load failures, its JUnit reporters.
import { levelNamePatterns } from './names.js';
import { noLoadFailure, optionsOf, programName, type TestRunner } from './runner.js';

/** Options that take a separate value (`--opt value`), so the value is not a test path. */
const VALUE_OPTS: ReadonlySet<string> = new Set([
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
]);

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

/** One test file run in this process (a narrowed node:test command): `node [flags] file`, no `--test`. */
const isInProcess = (command: readonly string[]): boolean =>
  /(^|\/)node(\.exe)?$/.test(command[0] ?? '') && !command.includes('--test');

export const nodeTest: TestRunner = {
  kind: 'node-test',
  matches: (command) => programName(command[0]) === 'node' && command.slice(1).includes('--test'),
  narrow(command, targets) {
    const kept = optionsOf(command, 1, VALUE_OPTS) as string[];
    if (targets.length !== 1) return [command[0] as string, ...kept, ...targets];
    // One file: run it in this process, without the --test orchestrator and its child process.
    // The reporters and loaders stay; the test-runner-only flags go.
    const inProcess: string[] = [];
    for (let i = 0; i < kept.length; i++) {
      const a = kept[i] as string;
      const name = a.split('=')[0] as string;
      if (a === '--test' || TEST_ONLY.has(name)) {
        if (!a.includes('=') && VALUE_OPTS.has(name)) i++;
        continue;
      }
      inProcess.push(a);
    }
    return [command[0] as string, ...inProcess, ...targets];
  },
  byName: {
    patterns: levelNamePatterns,
    // node reads its options before the script (after it they are the script's).
    apply: (narrowed, pattern) => [narrowed[0] as string, `--test-name-pattern=${pattern}`, ...narrowed.slice(1)],
  },
  cheapCommand: (command) => [...command],
  judgingEnv: () => null,
  runsInOneProcess: () => false,
  // A throw while the one file run in this process loads exits 1 before any report: the tests it holds failed.
  loadFailure(run, command) {
    const file = command[command.length - 1];
    if (
      run.status !== 'crash' ||
      run.exitCode !== 1 ||
      !/\bwas not written\b/.test(run.detail) ||
      !isInProcess(command) ||
      file === undefined
    )
      return noLoadFailure();
    return { file, detail: `${run.detail}: ${file} failed to load, so the tests it holds failed` };
  },
  loadFailureFiles: () => [],
  traceNamesTests: false,
  caseNames: null,
  // sealgate's own reporter (src/reporters/node-test.ts) names its root "node:test"; node's own
  // writes a bare <testsuites> and the constant classname "test" on every case. Either way the
  // suite is the chain of enclosing <testsuite>s, and `tests` counts nested suites too.
  junit: {
    rootName: 'node:test',
    bareClassname: 'test',
    nestedCounts: true,
    caseOf: ({ name, file, chain }) => ({ file, suite: chain.join(' > '), name }),
  },
};

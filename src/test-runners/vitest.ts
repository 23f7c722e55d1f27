// vitest: narrowing to files and names, its cheap command, its JUnit reporter.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fullNamePatterns } from './names.js';
import { noLoadFailure, optionsOf, programName, reportPath, type TestRunner } from './runner.js';

const VALUE_OPTS: ReadonlySet<string> = new Set([
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
]);

/** Where its own arguments start: after the program, or after `npx vitest`. */
const argStart = (command: readonly string[]): number => (programName(command[0]) === 'npx' ? 2 : 1);

/** Whether a vitest coverage provider (`@vitest/coverage-*`) is installed in `deps`' node_modules: without one, coverage cannot be on. */
export function vitestCoverageIn(deps: string): boolean {
  try {
    return readdirSync(join(deps, 'node_modules', '@vitest')).some((n) => n.startsWith('coverage-'));
  } catch {
    return false;
  }
}

export const vitest: TestRunner = {
  kind: 'vitest',
  matches: (command) =>
    programName(command[0]) === 'vitest' || (programName(command[0]) === 'npx' && programName(command[1]) === 'vitest'),
  narrow(command, targets) {
    const start = argStart(command);
    // Its `run` subcommand stays (before any positional); `watch` and `related` are not narrowed.
    const kept = optionsOf(command, start, VALUE_OPTS, (a, kept) =>
      (a === 'run' || a === 'watch' || a === 'related') && kept.every((k) => k.startsWith('-'))
        ? a === 'run'
          ? 'keep'
          : 'refuse'
        : 'drop',
    );
    return kept === null ? null : [...command.slice(0, start), ...kept, ...targets];
  },
  byName: { patterns: fullNamePatterns, apply: (narrowed, pattern) => [...narrowed, `--testNamePattern=${pattern}`] },
  // `--coverage.enabled=false` last (before any `--`): vitest takes the last word on coverage, so
  // it overrides the config and an earlier `--coverage`. With no coverage provider installed,
  // coverage cannot be on, and vitest before 1.0 loads the default provider even to turn it off
  // (exit 1, no report): then the command stays as it is.
  cheapCommand(command, opts) {
    if (opts.vitestCoverage === false) return [...command];
    const cut = command.indexOf('--');
    const at = cut < 0 ? command.length : cut;
    return [...command.slice(0, at), '--coverage.enabled=false', ...command.slice(at)];
  },
  judgingEnv: () => null,
  runsInOneProcess: () => false,
  loadFailure: noLoadFailure,
  loadFailureFiles: () => [],
  traceNamesTests: true,
  caseNames: null,
  // The classname is the file; the describe chain is in the name, joined by " > ".
  junit: {
    rootName: 'vitest tests',
    caseOf({ name, classname, file }) {
      const parts = name.split(' > ');
      return {
        file: file === null && classname !== '' ? reportPath(classname) : file,
        name: (parts.pop() as string).trim(),
        suite: parts.join(' > ').trim(),
      };
    },
  },
};

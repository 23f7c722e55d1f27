// jest: narrowing to files and names, its cheap command and judging environment, its JUnit reporter.
import { fullNamePatterns } from './names.js';
import { noLoadFailure, optionsOf, programName, type TestRunner } from './runner.js';

const VALUE_OPTS: ReadonlySet<string> = new Set([
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
]);

/** Where its own arguments start: after the program, or after `npx jest`. */
const argStart = (command: readonly string[]): number => (programName(command[0]) === 'npx' ? 2 : 1);

/** Its options that turn coverage on or off (`--coverage`, its alias `--collectCoverage`, with or without a value). */
const COVERAGE = /^--(?:no-)?(?:coverage|collectCoverage|collect-coverage)(?:=.*)?$/;
/** Its in-band switch, in every spelling (`-i`, `--runInBand`, `--run-in-band`, with or without a value). */
const IN_BAND = /^(?:-i|--(?:no-)?(?:runInBand|run-in-band)(?:=.*)?)$/;

/** A config file name jest loads through ts-node (its default TypeScript loader). */
const TS_CONFIG = /\.(c|m)?ts$/;
const TS_CONFIGS = ['jest.config.ts', 'jest.config.mts', 'jest.config.cts'];

export const jest: TestRunner = {
  kind: 'jest',
  matches: (command) =>
    programName(command[0]) === 'jest' || (programName(command[0]) === 'npx' && programName(command[1]) === 'jest'),
  narrow(command, targets) {
    const start = argStart(command);
    return [
      ...command.slice(0, start),
      ...(optionsOf(command, start, VALUE_OPTS) as string[]),
      '--runTestsByPath',
      ...targets,
    ];
  },
  byName: { patterns: fullNamePatterns, apply: (narrowed, pattern) => [...narrowed, `--testNamePattern=${pattern}`] },
  // `--coverage=false` (replacing any coverage flag): coverage costs a quarter to a third of a
  // narrowed run, and a threshold a narrowed run cannot meet makes jest exit 1 with every test
  // passed. `--runInBand` (replacing any in-band flag): a fresh copy has no timing cache, so
  // jest would start a worker process for two test files or more; each file keeps its own
  // module registry in band.
  cheapCommand(command) {
    const start = argStart(command);
    const rest = command.slice(start);
    // Flags only: a coverage flag takes no separate value (`--coverage false` would be a path).
    const cut = rest.indexOf('--');
    const opts = cut < 0 ? rest : rest.slice(0, cut);
    const tail = cut < 0 ? [] : rest.slice(cut);
    return [
      ...command.slice(0, start),
      '--coverage=false',
      '--runInBand',
      ...opts.filter((a) => !COVERAGE.test(a) && !IN_BAND.test(a)),
      ...tail,
    ];
  },
  // A TypeScript config (`jest.config.ts`, or `--config x.ts`) loads through ts-node, which
  // type-checks it first (the sealed run has checked it): transpile only.
  judgingEnv(command, testEnv, exists) {
    if (Object.keys(testEnv).some((k) => k.startsWith('TS_NODE_'))) return null;
    const rest = command.slice(argStart(command));
    let config: string | null = null;
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i] as string;
      if (a === '--config' || a === '-c') config = rest[i + 1] ?? '';
      else if (a.startsWith('--config=')) config = a.slice('--config='.length);
      else if (a.startsWith('-c=')) config = a.slice(3);
    }
    const ts =
      config !== null ? TS_CONFIG.test(config) && !config.trimStart().startsWith('{') : TS_CONFIGS.some(exists);
    return ts
      ? {
          env: { TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_SKIP_PROJECT: 'true' },
          skips: "jest's TypeScript config was loaded without type-checking it",
        }
      : null;
  },
  runsInOneProcess: () => false,
  loadFailure: noLoadFailure,
  loadFailureFiles: () => [],
  traceNamesTests: true,
  caseNames: null,
  // jest-junit's default templates write the full title as both classname and name.
  junit: {
    rootName: 'jest tests',
    caseOf: ({ name, classname, file, chain }) => ({
      file,
      suite: classname === name ? (chain[chain.length - 1] ?? '') : classname,
      name,
    }),
  },
};

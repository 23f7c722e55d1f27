// pytest: narrowing to node ids, its cheap command and judging environment, its load failures and test names.
import { optionsOf, programName, type TestRunner } from './runner.js';

const VALUE_OPTS: ReadonlySet<string> = new Set([
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
]);

const isProgram = (p: string | undefined): boolean => programName(p) === 'pytest' || programName(p) === 'py.test';

/** Where its own arguments start: after `pytest`, or after `python -m pytest`. */
const argStart = (command: readonly string[]): number => (isProgram(command[0]) ? 1 : 3);

/** A word of the command names pytest (`uv run pytest` too): its load failures are told by it. */
const namesPytest = (command: readonly string[]): boolean =>
  command.some((w) => /(^|\/)py\.?test$/.test(w) || w === 'pytest');

/** A test file's module path, dotted (`tests/test_a.py` is `tests.test_a`). */
const dottedModule = (file: string): string => file.replace(/\.py$/, '').split('/').join('.');

export const pytest: TestRunner = {
  kind: 'pytest',
  matches: (command) =>
    isProgram(command[0]) ||
    (/^python(\d(\.\d+)?)?$/.test(programName(command[0])) && command[1] === '-m' && command[2] === 'pytest'),
  narrow(command, targets) {
    const start = argStart(command);
    return [...command.slice(0, start), ...(optionsOf(command, start, VALUE_OPTS) as string[]), ...targets];
  },
  // A node id already names one test.
  byName: null,
  // `--tb=line` (replacing any `--tb`) and `-p no:cacheprovider`, right after the program,
  // before any positional or `--`.
  cheapCommand(command) {
    const start = argStart(command);
    const rest = command.slice(start);
    const extra: string[] = ['--tb=line'];
    const hasNoCache = rest.some(
      (a, i) =>
        (a === '-p' && rest[i + 1] === 'no:cacheprovider') || a === '-pno:cacheprovider' || a === '-p=no:cacheprovider',
    );
    if (!hasNoCache) extra.push('-p', 'no:cacheprovider');
    const kept: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i] as string;
      if (a === '--tb') {
        i++;
        continue;
      }
      if (a.startsWith('--tb=')) continue;
      kept.push(a);
    }
    return [...command.slice(0, start), ...extra, ...kept];
  },
  // No installed plugin package imported at start (hypothesis's, pytest-benchmark's); plugins
  // named by `-p`, by `pytest_plugins` or in a conftest still load.
  judgingEnv(_command, testEnv) {
    if (Object.keys(testEnv).some((k) => k.startsWith('PYTEST_'))) return null;
    return {
      env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' },
      skips: "pytest's plugins installed as packages (entry points) were not loaded",
    };
  },
  // Without xdist's `-n`: the other cores are idle.
  runsInOneProcess: (command) =>
    !command.some(
      (w) => /^(-n|--numprocesses)(=|$)|^-n\S/.test(w) || w === '--dist' || w.startsWith('--dist=') || w === 'xdist',
    ),
  // Exit 4 without a report (an import error in a conftest.py) or 2 (collection errors): every selected test failed.
  loadFailure(run, command) {
    if (run.status !== 'crash' || !namesPytest(command) || (run.exitCode !== 4 && run.exitCode !== 2)) return null;
    return {
      file: null,
      detail: `${run.detail}: the tests could not be collected (a load failure), so every selected test failed`,
    };
  },
  // A collection error's case is named by the module, dotted.
  loadFailureFiles: (c) => [`${c.suite.replace(/\./g, '/')}.py`, `${c.name.replace(/\./g, '/')}.py`],
  traceNamesTests: false,
  // The classname is the node id's file and classes, dotted; the node id is `file::Class::name`.
  caseNames: {
    files: /\.py$/,
    classname: (file, suite) => [dottedModule(file), ...suite].join('.'),
    suiteMatches(file, suite, reported) {
      const modulePath = dottedModule(file);
      const dotted = [modulePath, ...suite].join('.');
      return (
        reported === dotted ||
        reported.endsWith(`.${dotted}`) ||
        (suite.length > 0 && reported.split('.').at(-1) === suite.at(-1)) ||
        (suite.length === 0 && (reported === modulePath || reported.endsWith(`.${modulePath}`)))
      );
    },
    nodeId: (file, suite, name) => [file, ...suite, name].join('::'),
  },
  junit: null,
};

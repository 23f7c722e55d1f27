// Any other test runner: its command runs whole, as written.
import { noLoadFailure, type TestRunner } from './runner.js';

export const unknown: TestRunner = {
  kind: 'unknown',
  matches: () => false,
  narrow: () => null,
  byName: null,
  cheapCommand: (command) => [...command],
  judgingEnv: () => null,
  runsInOneProcess: () => false,
  loadFailure: noLoadFailure,
  loadFailureFiles: () => [],
  traceNamesTests: false,
  caseNames: null,
  junit: null,
};

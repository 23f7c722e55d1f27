import { command as gate } from './commands/gate.js';
import { runCli } from './run.js';

/**
 * `sealgate gate` alone (bundled as dist/bundle/gate.js): the decision is the command CI runs
 * most, and a bundle without the other commands' code and built-ins starts faster.
 */
export function start(argv: readonly string[]): Promise<void> {
  return runCli(argv, { gate: { summary: 'decide: print one code for a record, credit and optional freeze', load: async () => gate } });
}

import { command } from './commands/gate.js';
import { runOneCommand } from './run.js';

/**
 * `sealgate gate` alone (bundled as dist/bundle/gate.cjs): the decision is the command CI runs
 * most, and a bundle without the other commands' code and built-ins starts faster.
 */
export function start(argv: readonly string[]): Promise<void> {
  return runOneCommand(argv, 'gate', command);
}

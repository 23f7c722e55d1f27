import { command } from './commands/run.js';
import { runOneCommand } from './run.js';

/**
 * `sealgate run` alone (bundled as dist/bundle/run.cjs): its start-up is part of the overhead
 * every sealed test run pays, so it loads only its own code.
 */
export function start(argv: readonly string[]): Promise<void> {
  return runOneCommand(argv, 'run', command);
}

import { command } from './commands/seal.js';
import { runOneCommand } from './run.js';

/**
 * `sealgate seal` alone (bundled as dist/bundle/seal.cjs): its wall time is measured against
 * the raw SHA-256 throughput, so it loads only its own code.
 */
export function start(argv: readonly string[]): Promise<void> {
  return runOneCommand(argv, 'seal', command);
}

import { COMMANDS } from './commands/index.js';
import { runCli } from './run.js';

/** The CLI with every command (bundled as dist/bundle/all.cjs). */
export function start(argv: readonly string[]): Promise<void> {
  return runCli(argv, COMMANDS);
}

import { main } from '../../src/cli/main.js';
import { COMMANDS } from '../../src/cli/commands/index.js';

export interface CliRun {
  readonly exit: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the CLI in-process with a fixed clock, capturing both streams. */
export async function runCli(
  argv: readonly string[],
  opts: { cwd?: string; env?: Record<string, string>; now?: Date } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const exit = await main(
    {
      argv,
      cwd: opts.cwd ?? process.cwd(),
      env: opts.env ?? {},
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      clock: () => opts.now ?? new Date('2026-10-12T12:00:00Z'),
      isTTY: false,
    },
    COMMANDS,
  );
  return { exit, stdout, stderr };
}

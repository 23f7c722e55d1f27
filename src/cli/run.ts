import type { Command } from './context.js';
import { SUMMARIES } from './commands/summaries.js';
import { main, type Commands } from './main.js';

/** Process entry: wires the real clock, streams and exit status to main(). */
export async function runCli(argv: readonly string[], commands: Commands): Promise<void> {
  let code: number;
  try {
    code = await main({
      argv,
      cwd: process.cwd(),
      env: process.env,
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      clock: () => new Date(),
      // A getter: touching process.stderr creates its stream, a cost the gate's ALLOW path never needs.
      get isTTY() {
        return Boolean(process.stderr.isTTY);
      },
    }, commands);
  } catch (err) {
    // main() never throws; if it somehow does, still print one code.
    process.stdout.write('E_INTERNAL\n');
    process.stderr.write(`sealgate: E_INTERNAL: ${String(err)}\n`);
    code = 3;
  }
  process.exitCode = code;
}

/** The entry of a one-command bundle (entry-gate.ts, entry-run.ts, entry-seal.ts): that command alone. */
export function runOneCommand(argv: readonly string[], name: keyof typeof SUMMARIES, command: Command): Promise<void> {
  return runCli(argv, { [name]: { summary: SUMMARIES[name], load: () => Promise.resolve(command) } });
}

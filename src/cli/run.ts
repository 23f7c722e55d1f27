import type { Command } from './context.js';
import { SUMMARIES } from './commands/summaries.js';
import { main, type Commands } from './main.js';
import { CODE_INFO } from '../core/codes.js';

/**
 * A writer to process.stdout or process.stderr that survives the stream failing. A reader that
 * went away (`sealgate codes | head -1`: EPIPE) ends that output quietly, with the exit status
 * unchanged, as the status is the verdict. Any other write error (a full disk, an I/O error)
 * also ends that output, says so on stderr if it can, and makes a successful process exit
 * with E_INTERNAL's status rather than claim a success whose output was lost. Without this,
 * the stream's 'error' event (or, for a file, the thrown error) would end the process with a
 * stack trace. The stream is only touched on the first write, as creating it costs start-up time.
 */
function guardedWriter(name: 'stdout' | 'stderr'): (text: string) => void {
  let broken = false;
  let attached = false;
  const fail = (err: NodeJS.ErrnoException): void => {
    if (broken) return;
    broken = true;
    if (err.code === 'EPIPE') return;
    // At exit, not now: the 'error' event can come after main() has set the status.
    process.once('exit', () => {
      if (process.exitCode === 0 || process.exitCode === undefined) process.exitCode = CODE_INFO.E_INTERNAL.exit;
    });
    if (name === 'stdout') {
      try {
        process.stderr.write(`sealgate: E_INTERNAL: cannot write to stdout (${err.code ?? err.message}); exit status ${CODE_INFO.E_INTERNAL.exit}\n`);
      } catch {
        /* stderr is gone too: the exit status still says it */
      }
    }
  };
  return (text) => {
    if (broken) return;
    const s = process[name];
    if (!attached) {
      attached = true;
      s.on('error', fail);
    }
    try {
      s.write(text);
    } catch (err) {
      fail(err as NodeJS.ErrnoException);
    }
  };
}

/** Process entry: wires the real clock, streams and exit status to main(). */
export async function runCli(argv: readonly string[], commands: Commands): Promise<void> {
  let code: number;
  const stdout = guardedWriter('stdout');
  const stderr = guardedWriter('stderr');
  try {
    code = await main({
      argv,
      cwd: process.cwd(),
      env: process.env,
      stdout,
      stderr,
      clock: () => new Date(),
      // A getter: touching process.stderr creates its stream, a cost the gate's ALLOW path never needs.
      get isTTY() {
        return Boolean(process.stderr.isTTY);
      },
    }, commands);
  } catch (err) {
    // main() never throws; if it somehow does, still print one code.
    stdout('E_INTERNAL\n');
    stderr(`sealgate: E_INTERNAL: ${String(err)}\n`);
    code = 3;
  }
  process.exitCode = code;
}

/** The entry of a one-command bundle (entry-gate.ts, entry-run.ts, entry-seal.ts): that command alone. */
export function runOneCommand(argv: readonly string[], name: keyof typeof SUMMARIES, command: Command): Promise<void> {
  return runCli(argv, { [name]: { summary: SUMMARIES[name], load: () => Promise.resolve(command) } });
}

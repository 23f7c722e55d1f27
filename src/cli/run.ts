import { writeSync } from 'node:fs';
import type { Command } from './context.js';
import { SUMMARIES } from './commands/summaries.js';
import { main, type Commands } from './main.js';
import { CODE_INFO } from '../core/codes.js';

/**
 * A writer to standard output or standard error that survives the output failing. A reader
 * that went away (`sealgate codes | head -1`: EPIPE) ends that output quietly, with the exit
 * status unchanged, as the status is the verdict. Any other write error (a full disk, an I/O
 * error) also ends that output, says so on stderr if it can, and makes a successful process
 * exit with E_INTERNAL's status rather than claim a success whose output was lost.
 *
 * It writes to the file descriptor itself (fs.writeSync), not through process.stdout: creating
 * that stream loads Node's net and stream modules (about 10 ms of a 90 ms `gate` start when the
 * output is a pipe, as in CI). A descriptor that is non-blocking (EAGAIN, a partial write) hands
 * the rest, and every later write, to the stream, which queues it, so nothing is lost or
 * reordered.
 */
export function guardedWriter(name: 'stdout' | 'stderr'): (text: string) => void {
  const fd = name === 'stdout' ? 1 : 2;
  let broken = false;
  let stream: NodeJS.WriteStream | null = null;
  const fail = (err: NodeJS.ErrnoException): void => {
    if (broken) return;
    broken = true;
    if (err.code === 'EPIPE') return;
    // At exit, not now: a stream's 'error' event can come after main() has set the status.
    process.once('exit', () => {
      if (process.exitCode === 0 || process.exitCode === undefined) process.exitCode = CODE_INFO.E_INTERNAL.exit;
    });
    if (name === 'stdout') {
      try {
        writeSync(
          2,
          `sealgate: E_INTERNAL: cannot write to stdout (${err.code ?? err.message}); exit status ${CODE_INFO.E_INTERNAL.exit}\n`,
        );
      } catch {
        /* stderr is gone too: the exit status still says it */
      }
    }
  };
  const toStream = (bytes: Buffer): void => {
    if (stream === null) {
      stream = process[name];
      stream.on('error', fail);
    }
    try {
      stream.write(bytes);
    } catch (err) {
      fail(err as NodeJS.ErrnoException);
    }
  };
  return (text) => {
    if (broken) return;
    const bytes = Buffer.from(text, 'utf8');
    if (stream !== null) return toStream(bytes);
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') toStream(bytes.subarray(done));
      else fail(err as NodeJS.ErrnoException);
    }
  };
}

/** Process entry: wires the real clock, streams and exit status to main(). */
export async function runCli(argv: readonly string[], commands: Commands): Promise<void> {
  let code: number;
  const stdout = guardedWriter('stdout');
  const stderr = guardedWriter('stderr');
  try {
    code = await main(
      {
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
      },
      commands,
    );
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

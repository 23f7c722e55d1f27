import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/**
 * Run one command the way the runner must: its own process group (so a timeout kills every
 * descendant), an explicit environment, stdout and stderr streamed to files with a byte cap
 * (never held in memory). Used by `sealgate run` and by the credit task's mutant runs.
 */

export interface ExecOptions {
  /** Program and arguments; no shell. */
  readonly command: readonly string[];
  readonly cwd: string;
  /** The complete environment of the child (nothing is inherited implicitly). */
  readonly env: Readonly<Record<string, string>>;
  /** Wall-clock limit; the whole process group is killed when it passes. */
  readonly timeoutMs: number;
  /** Files to create (mode 0600, truncated) for the two streams. */
  readonly stdoutPath: string;
  readonly stderrPath: string;
  /** Bytes kept per stream; the rest is read and dropped, with a note at the cut. */
  readonly capBytes: number;
  /** Between SIGTERM and SIGKILL on timeout (default 2000 ms). */
  readonly killGraceMs?: number;
  /** Permission mask for files the command creates (default 0o077: private to the runner's user). */
  readonly umask?: number;
  /** Bytes the child reads from fds 3, 4 ... (a pipe each, closed after the bytes): bubblewrap's seccomp filter. */
  readonly inputs?: readonly Uint8Array[];
  /** Ends the run at once (the whole group, SIGKILL) when aborted: a run whose result nobody will read. */
  readonly signal?: AbortSignal;
  /**
   * Run at this niceness (1 to 19; the system's `nice`, which runs the program in its own
   * place: same process, same group), so the child and all it starts yield the CPU to the
   * runner's other work. Without a `nice` program the run goes at the usual priority.
   */
  readonly nice?: number;
}

/** The system's `nice` program, or null. */
export function findNice(): string | null {
  for (const d of ['/usr/bin', '/bin']) {
    try {
      accessSync(join(d, 'nice'), constants.X_OK);
      return join(d, 'nice');
    } catch {
      /* not here */
    }
  }
  return null;
}

/** `nice`, when it is a niceness a run may be lowered to (an integer 1 to 19); throws otherwise. */
export function checkNiceness(nice: number): number {
  if (!Number.isInteger(nice) || nice < 1 || nice > 19)
    throw new Error(`niceness ${nice} is not an integer from 1 to 19`);
  return nice;
}

/** The argv that runs `command` at niceness `nice` (checkNiceness), or `command` itself (no nice, or no `nice` program). */
export function niced(
  command: readonly string[],
  nice: number | undefined,
  program?: string | null,
): readonly string[] {
  if (nice === undefined) return command;
  // Looked up only for a run that asks for it: every other run goes without the file checks.
  const nicer = program === undefined ? findNice() : program;
  return nicer === null ? command : [nicer, '-n', String(checkNiceness(nice)), '--', ...command];
}

export interface StreamOutcome {
  /** Bytes the command wrote (all of them, kept or not). */
  readonly bytes: number;
  readonly truncated: boolean;
}

export interface ExecOutcome {
  /** The exit status, or null when a signal ended the process or it never started. */
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly timed_out: boolean;
  readonly duration_ms: number;
  /** Why the command could not be started (ENOENT, EACCES ...), else null. */
  readonly spawn_error: string | null;
  readonly stdout: StreamOutcome;
  readonly stderr: StreamOutcome;
}

export const DEFAULT_KILL_GRACE_MS = 2000;

/**
 * Writes what one stream of the child says straight to its open file: the first `cap` bytes,
 * then one note at the cut; the rest is read and dropped (so the child never blocks on a full
 * pipe) but counted. Plain synchronous writes to a file descriptor: a file stream would load
 * Node's stream machinery, a measurable part of `sealgate run`'s fixed cost, for no gain.
 */
class CappedFile {
  seen = 0;
  private noted = false;
  /** The first write error (disk full ...); later output is dropped, the run reports it. */
  error: Error | null = null;
  readonly fd: number;
  constructor(
    path: string,
    private readonly cap: number,
  ) {
    this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  }
  write(chunk: Buffer): void {
    const room = this.cap - this.seen;
    this.seen += chunk.length;
    if (this.error !== null || (room <= 0 && this.noted)) return;
    try {
      if (room >= chunk.length) return writeAll(this.fd, chunk);
      if (room > 0) writeAll(this.fd, chunk.subarray(0, room));
      this.noted = true;
      writeAll(this.fd, Buffer.from(`\n[sealgate: output cut at ${this.cap} bytes]\n`));
    } catch (err) {
      this.error = err instanceof Error ? err : new Error(String(err));
    }
  }
  get truncated(): boolean {
    return this.seen > this.cap;
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off);
}

/** Resolves when the stream has ended (or failed: the error is kept on the sink). */
function drain(stream: Readable | null, sink: CappedFile): Promise<void> {
  if (stream === null) return Promise.resolve();
  return new Promise((resolveDrain) => {
    stream.on('data', (chunk: Buffer) => sink.write(chunk));
    stream.once('error', (err) => {
      sink.error ??= err;
      resolveDrain();
    });
    stream.once('close', () => resolveDrain());
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone already */
  }
}

export async function execInGroup(opts: ExecOptions): Promise<ExecOutcome> {
  const [program, ...args] = niced(opts.command, opts.nice);
  if (program === undefined) throw new Error('execInGroup: empty command');
  const out = new CappedFile(opts.stdoutPath, opts.capBytes);
  let err: CappedFile;
  try {
    err = new CappedFile(opts.stderrPath, opts.capBytes);
  } catch (e) {
    closeSync(out.fd);
    throw e;
  }
  try {
    return await runChild(program, args, opts, out, err);
  } finally {
    closeSync(out.fd);
    closeSync(err.fd);
  }
}

async function runChild(
  program: string,
  args: string[],
  opts: ExecOptions,
  out: CappedFile,
  err: CappedFile,
): Promise<ExecOutcome> {
  const started = process.hrtime.bigint();
  // umask is process-wide; it is set only around the synchronous spawn so the child inherits it.
  const previousMask = process.umask(opts.umask ?? 0o077);
  let child;
  try {
    child = spawn(program, args, {
      cwd: opts.cwd,
      env: { ...opts.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(opts.inputs ?? []).map(() => 'pipe' as const)],
    });
  } finally {
    process.umask(previousMask);
  }
  (opts.inputs ?? []).forEach((bytes, i) => {
    const s = child.stdio[3 + i] as Writable | null | undefined;
    // A child that exits without reading it: nothing to report here, its exit status says why.
    s?.on('error', () => undefined);
    s?.end(bytes);
  });
  const flows = [drain(child.stdout, out), drain(child.stderr, err)];
  let timedOut = false;
  let spawnError: string | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) => {
      spawnError = `${e.code ?? 'error'}: ${e.message}`;
      resolve({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid !== undefined) {
      killGroup(child.pid, 'SIGTERM');
      const pid = child.pid;
      killTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    }
  }, opts.timeoutMs);
  const abort = (): void => {
    if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
  };
  if (opts.signal?.aborted === true) abort();
  else opts.signal?.addEventListener('abort', abort, { once: true });
  const status = await exited;
  opts.signal?.removeEventListener('abort', abort);
  clearTimeout(timer);
  // Whatever the leader left running in its group would keep the pipes open: end it.
  if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
  if (killTimer) clearTimeout(killTimer);
  await Promise.all(flows);
  const duration_ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
  const failed = out.error ?? err.error;
  if (failed && spawnError === null) throw failed;
  return {
    exit_code: status.code,
    signal: status.signal,
    timed_out: timedOut,
    duration_ms,
    spawn_error: spawnError,
    stdout: { bytes: out.seen, truncated: out.truncated },
    stderr: { bytes: err.seen, truncated: err.truncated },
  };
}

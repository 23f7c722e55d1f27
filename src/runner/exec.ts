import { spawn } from 'node:child_process';
import { constants, createWriteStream, openSync, type WriteStream } from 'node:fs';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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

/** Passes the first `cap` bytes through, then drops the rest and appends one note. Counts everything. */
class CapStream extends Transform {
  seen = 0;
  private noted = false;
  constructor(private readonly cap: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const room = this.cap - this.seen;
    this.seen += chunk.length;
    if (room >= chunk.length) return done(null, chunk);
    if (room > 0) this.push(chunk.subarray(0, room));
    if (!this.noted) {
      this.noted = true;
      this.push(`\n[sealgate: output cut at ${this.cap} bytes]\n`);
    }
    done();
  }
  get truncated(): boolean {
    return this.seen > this.cap;
  }
}

function openPrivate(path: string): WriteStream {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  return createWriteStream('', { fd, autoClose: true });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone already */
  }
}

export async function execInGroup(opts: ExecOptions): Promise<ExecOutcome> {
  const [program, ...args] = opts.command;
  if (program === undefined) throw new Error('execInGroup: empty command');
  const outFile = openPrivate(opts.stdoutPath);
  const errFile = openPrivate(opts.stderrPath);
  const outCap = new CapStream(opts.capBytes);
  const errCap = new CapStream(opts.capBytes);
  const started = process.hrtime.bigint();
  // umask is process-wide; it is set only around the synchronous spawn so the child inherits it.
  const previousMask = process.umask(opts.umask ?? 0o077);
  let child;
  try {
    child = spawn(program, args, { cwd: opts.cwd, env: { ...opts.env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    process.umask(previousMask);
  }
  const flows = [
    pipeline(child.stdout as Readable, outCap, outFile),
    pipeline(child.stderr as Readable, errCap, errFile),
  ];
  let timedOut = false;
  let spawnError: string | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      spawnError = `${err.code ?? 'error'}: ${err.message}`;
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
  const status = await exited;
  clearTimeout(timer);
  // Whatever the leader left running in its group would keep the pipes open: end it.
  if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
  if (killTimer) clearTimeout(killTimer);
  const settled = await Promise.allSettled(flows);
  const duration_ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
  if (spawnError !== null) {
    for (const f of [outFile, errFile]) if (!f.closed) f.destroy();
  }
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed && spawnError === null) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  return {
    exit_code: status.code,
    signal: status.signal,
    timed_out: timedOut,
    duration_ms,
    spawn_error: spawnError,
    stdout: { bytes: outCap.seen, truncated: outCap.truncated },
    stderr: { bytes: errCap.seen, truncated: errCap.truncated },
  };
}

// One test run of the tree in a fresh sandboxed copy, read into its cases: every credit run goes through it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBoundedFile } from '../../core/io.js';
import { MAX_JUNIT_BYTES, type JunitCase } from '../../runner/junit.js';
import { parseTestReport } from '../../runner/report.js';
import { SealgateError } from '../../core/errors.js';
import { dependencyFolders, resolveOutput, runInFreshCopy, type Box } from '../../sandbox/run.js';

export { makeWorkspace, type Workspace } from '../../tree/copy.js';

export function makeScratch(): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-credit-'));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export type RunStatus = 'ok' | 'timeout' | 'crash';

export interface TestRun {
  readonly status: RunStatus;
  readonly detail: string;
  readonly durationMs: number;
  /** Every case the JUnit files report; empty unless status is ok. */
  readonly cases: readonly JunitCase[];
  /** The working directory the tests saw (the same for every sandboxed run). */
  readonly cwd: string;
  /** What the trace recorder wrote (when asked for), read after the run ended. */
  readonly trace: string | null;
  /** The exit status, when the command exited. */
  readonly exitCode?: number | null;
}

/** The trace file's name in the run's /tmp (it is the run's own, fresh, read after the run). */
export const TRACE_FILE = 'sealgate-trace.txt';
const MAX_TRACE_BYTES = 64 * 1024 * 1024;

/**
 * Run the test command in a fresh copy of `ws` inside the sandbox (pinned env, hard timeout).
 * Usable only with exit 0, 1 or 2 (pytest's "interrupted" after collection errors) and every
 * report present and well-formed. `files` (a mutant's) are written over the copy; with `trace`,
 * SEALGATE_TRACE_FILE names a file in the run's /tmp.
 */
export async function runTestCommand(
  ws: string,
  command: readonly string[],
  junit: readonly string[],
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
  logDir: string,
  box: Box,
  opts: {
    readonly trace?: boolean;
    readonly files?: ReadonlyMap<string, string>;
    readonly signal?: AbortSignal;
    readonly seedTmp?: string | null;
    readonly keepTmp?: string;
    readonly nice?: number;
  } = {},
): Promise<TestRun> {
  if (command.length === 0)
    return { status: 'crash', detail: 'empty test command', durationMs: 0, cases: [], cwd: '', trace: null };
  return runInFreshCopy(
    box,
    {
      source: ws,
      deps: dependencyFolders(box, ws),
      command,
      env,
      ...(opts.trace ? { tmpFiles: { SEALGATE_TRACE_FILE: TRACE_FILE } } : {}),
      limits: {
        timeoutMs,
        capBytes: 64 * 1024,
        killGraceMs: 200,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.nice !== undefined ? { nice: opts.nice } : {}),
      },
      output: { stdoutPath: join(logDir, 'stdout.log'), stderrPath: join(logDir, 'stderr.log') },
      clean: junit,
      ...(opts.files ? { files: opts.files } : {}),
      ...(opts.seedTmp !== undefined && opts.seedTmp !== null ? { seedTmp: opts.seedTmp } : {}),
      ...(opts.keepTmp !== undefined ? { keepTmp: opts.keepTmp } : {}),
    },
    (out, dirs, plan): TestRun => {
      const durationMs = out.duration_ms;
      const cwd = plan.cwd;
      const fail = (status: RunStatus, detail: string): TestRun => ({
        status,
        detail,
        durationMs,
        cases: [],
        cwd,
        trace: null,
      });
      if (out.timed_out) return fail('timeout', `timed out after ${Math.round(timeoutMs)} ms`);
      if (out.spawn_error !== null) return fail('crash', `could not start: ${out.spawn_error}`);
      if (out.signal !== null) return fail('crash', `killed by ${out.signal}`);
      const exitCode = out.exit_code;
      if (exitCode !== 0 && exitCode !== 1 && exitCode !== 2)
        return { ...fail('crash', `exit status ${String(exitCode)}`), exitCode };
      const cases: JunitCase[] = [];
      let trace: string | null = null;
      try {
        for (const j of junit) {
          const found = resolveOutput(dirs.work, j);
          if (!('path' in found))
            return {
              ...fail('crash', `${j} was not written (exit status ${String(exitCode)}): ${found.missing}`),
              exitCode,
            };
          const r = parseTestReport(readBoundedFile(found.path, MAX_JUNIT_BYTES, j), j, [cwd, dirs.work]);
          if (!r.ok) return { ...fail('crash', r.findings.map((f) => f.detail).join('; ')), exitCode };
          cases.push(...r.value);
        }
        if (opts.trace) {
          const t = resolveOutput(dirs.tmp, TRACE_FILE);
          trace = 'path' in t ? readBoundedFile(t.path, MAX_TRACE_BYTES, 'trace').toString('utf8') : '';
        }
      } catch (err) {
        if (err instanceof SealgateError) return fail('crash', err.message);
        throw err;
      }
      return { status: 'ok', detail: `exit status ${String(exitCode)}`, durationMs, cases, cwd, trace, exitCode };
    },
  );
}

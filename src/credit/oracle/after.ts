// The control again after the mutants: a test that passed the first control only because it was the first run fails here.
import type { RunStatus } from '../runs/test-run.js';
import { ranOf, toFailures } from './judge.js';
import type { JudgingRuns } from './judging-runs.js';
import type { Tally } from './progress.js';
import type { AfterRun, OracleOptions } from './types.js';

interface AfterOnce {
  readonly status: RunStatus;
  readonly detail: string;
  readonly failed: readonly string[];
  readonly ran: readonly string[];
  readonly durationMs: number;
  readonly cached: boolean;
}

/** One unmutated run of `command` against every reaching test, from the cache or made now. */
async function once(
  command: readonly string[],
  reachedAll: readonly string[],
  opts: OracleOptions,
  runs: JudgingRuns,
  timeoutMs: number,
  logDir: string,
  tally: Tally,
): Promise<AfterOnce> {
  const ak = runs.key('control-after-0', command, []);
  const hit = runs.cache.read(ak);
  let r: AfterOnce;
  if (hit) r = { ...hit, ran: ranOf(hit.status, reachedAll, hit.ran), cached: true };
  else {
    const run = await runs.runFresh(new Map(), command, timeoutMs, logDir);
    const seen = toFailures(run, reachedAll, run.cwd, command, opts.filesOf);
    runs.cache.write(ak, {
      status: seen.status,
      detail: seen.detail,
      failed: seen.failed,
      durationMs: run.durationMs,
      ran: seen.ran,
    });
    r = {
      status: seen.status,
      detail: seen.detail,
      failed: seen.failed,
      ran: ranOf(seen.status, reachedAll, seen.ran),
      durationMs: run.durationMs,
      cached: false,
    };
  }
  tally.done++;
  tally.tell();
  return r;
}

/**
 * The control again, once the last mutant has started (the first worker with no run left makes
 * it; a marker file or a counter that let a test pass the first time fails it here). Every run
 * sees the same path and shares nothing with the others, so one run is enough. By name where
 * every reaching test can be named, by file otherwise or when the run by name left one out; a
 * reaching test it did not run again earns nothing.
 */
export async function afterControl(
  reachedAll: readonly string[],
  opts: OracleOptions,
  runs: JudgingRuns,
  timeoutMs: number,
  logDir: string,
  tally: Tally,
): Promise<AfterRun> {
  const byName = opts.narrowByName?.(reachedAll) ?? null;
  let r = byName !== null ? await once(byName, reachedAll, opts, runs, timeoutMs, logDir, tally) : null;
  if (r !== null && r.status === 'ok' && r.ran.length < reachedAll.length) {
    tally.total++;
    r = null;
  }
  r ??= await once(opts.narrow(reachedAll) ?? opts.command, reachedAll, opts, runs, timeoutMs, logDir, tally);
  const ran = new Set(r.ran);
  const unseen = r.status === 'ok' ? reachedAll.filter((t) => !ran.has(t)) : [];
  const inReach = new Set(reachedAll);
  return {
    status: r.status,
    detail:
      r.status === 'ok'
        ? `1 run(s) clean${unseen.length > 0 ? `; ${unseen.length} reaching test(s) did not run again` : ''}`
        : r.detail,
    durationMs: r.durationMs,
    cached: r.cached,
    failed: [...new Set([...r.failed, ...unseen])].filter((t) => inReach.has(t)).sort(),
    ranAgainst: reachedAll,
  };
}

// The workers: each takes a probe, else the next judging run, else makes the control after the mutants.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { SymbolPlan } from '../mutants/plan.js';
import { afterControl } from './after.js';
import type { FirstRoundRuns } from './first-round.js';
import type { Judging } from './judging.js';
import type { JudgingRuns } from './judging-runs.js';
import type { Reach } from './probes.js';
import { probeRun } from './probes.js';
import type { Tally } from './progress.js';
import type { JudgingJob } from './queue.js';
import type { AfterRun, OracleOptions } from './types.js';

/** What the workers share besides the judging state: the first round, its usable tests, and the timeouts it set. */
export interface WorkerContext {
  readonly opts: OracleOptions;
  readonly runs: JudgingRuns;
  readonly judging: Judging;
  readonly reach: Reach;
  readonly first: FirstRoundRuns;
  readonly usable: ReadonlySet<string>;
  /** The ceiling of every run (controls, probes, reverts, nulls). */
  readonly timeoutMs: number;
  /** A behavioural mutant's timeout, from the tests it runs. */
  readonly behaviouralTimeout: (tests: readonly string[]) => number;
  readonly tally: Tally;
}

async function probe(x: WorkerContext, p: SymbolPlan, logDir: string): Promise<void> {
  x.judging.probesRunning++;
  try {
    const r = await probeRun(p, x.first, x.usable, x.opts, x.runs, x.timeoutMs, logDir);
    x.reach.probes.set(p.symbol, r);
    x.tally.done++;
    if (r.failed.length > 0) x.tally.kills++;
    x.tally.tell();
  } finally {
    x.judging.probesRunning--;
  }
}

/**
 * One judging run with its symbol's command; the command runs every reaching test
 * (job.against), so the timeout is theirs, and the queue counts the run on its place's open ones.
 */
async function judge(x: WorkerContext, job: JudgingJob, logDir: string): Promise<void> {
  x.tally.phase = 'mutants';
  const c = x.judging.commandOf(job.symbol);
  const r = await x.runs.runMutant(
    job.m,
    c.command,
    job.m.kind === 'behavioural' ? x.behaviouralTimeout(job.against) : x.timeoutMs,
    job.against,
    logDir,
  );
  if (c.strict && r.status === 'ok' && r.ranAgainst.length < job.against.length) x.judging.restartByFile(job, c);
  x.judging.queue.finish(job, r);
  x.tally.done++;
  if (r.status === 'ok' && r.failed.length > 0 && job.m.kind !== 'null') x.tally.kills++;
  x.tally.tell();
}

/** Run `slots` workers until every probe, judging run and the control after are done; the control after, or null. */
export async function runWorkers(x: WorkerContext, slots: number): Promise<AfterRun | null> {
  const after: { run: Promise<AfterRun> | null } = { run: null };
  await Promise.all(
    Array.from({ length: slots }, async (_, slot) => {
      const logDir = mkdtempSync(join(x.runs.scratch, `log-m${slot}-`));
      for (;;) {
        x.judging.throwIfFailed();
        const p = x.judging.takeProbe();
        if (p !== undefined) {
          await probe(x, p, logDir);
          x.judging.joinReady();
          x.judging.wakeAll();
          continue;
        }
        const job = x.judging.queue.take();
        if (job === null) {
          if (x.judging.mayGetWork()) {
            await x.judging.wait();
            continue;
          }
          const reachedAll = [...new Set(x.judging.queue.symbols.flatMap((w) => w.reached))].sort();
          if (after.run === null && reachedAll.length > 0) {
            after.run = afterControl(reachedAll, x.opts, x.runs, x.timeoutMs, logDir, x.tally);
            await after.run;
          }
          // This worker is done: one still waiting has nothing left to wait for either.
          x.judging.wakeAll();
          return;
        }
        await judge(x, job, logDir);
        x.judging.wakeAll();
      }
    }),
  );
  return after.run === null ? null : await after.run;
}

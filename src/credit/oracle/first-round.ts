// The oracle's first round: the control, and beside it the trace or every probe whole; again without fastEnv if it changed a pass.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { SymbolPlan } from '../mutants/plan.js';
import { controlRun } from '../runs/control.js';
import type { ControlRan, RunRecord } from '../runs/record.js';
import { traceRun, type Traced } from '../runs/trace.js';
import type { TestRun } from '../runs/test-run.js';
import type { JudgingRuns } from './judging-runs.js';
import type { FirstRound } from './plan.js';
import type { Tally } from './progress.js';
import { mutantTimeoutMs } from './timeouts.js';
import type { MutantRun, OracleOptions } from './types.js';

export interface FirstRoundRuns {
  readonly traced: Traced;
  readonly control: ControlRan;
  /** The probes made whole beside the control (against every eligible test), or null when the trace ran. */
  readonly probes: Map<string, MutantRun> | null;
}

/** What the round made ahead left for this one: its runs by key, and its probes. */
export interface MadeAhead {
  readonly runs: ReadonlyMap<string, RunRecord> | null;
  readonly probes: ReadonlyMap<string, TestRun> | null;
}

/**
 * The first round as planned: every probe whole beside the control (the usable tests are known
 * only after the control, so they run against every eligible test), or the trace and the control
 * side by side (with one worker, one after the other). They are independent of each other.
 */
async function once(
  plans: readonly SymbolPlan[],
  opts: OracleOptions,
  runs: JudgingRuns,
  shape: FirstRound,
  ahead: MadeAhead,
): Promise<FirstRoundRuns> {
  const runControl = (): Promise<ControlRan> => controlRun(runs.round(ahead.runs));
  const known =
    opts.filesOf === undefined
      ? null
      : new Set([...opts.eligible].flatMap((id) => (opts.filesOf as (t: string) => readonly string[])(id)));
  const runTrace = (): Promise<Traced> => traceRun(plans, runs.round(ahead.runs), known);
  if (shape === 'probes-and-control') {
    const timeoutMs = mutantTimeoutMs(opts.baselineMs, opts.baselineMs, opts.timeoutFactor);
    const runProbes = async (): Promise<Map<string, MutantRun>> => {
      const out = new Map<string, MutantRun>();
      await Promise.all(
        plans.map(async (p, i) => {
          const logDir = mkdtempSync(join(runs.scratch, `probe-${i}-`));
          out.set(
            p.symbol,
            await runs.runMutant(
              p.probe,
              opts.command,
              timeoutMs,
              [...opts.eligible].sort(),
              logDir,
              ahead.probes?.get(runs.key(p.probe.id, opts.command, p.probe.edits)),
            ),
          );
        }),
      );
      return out;
    };
    const [probes, control] = await Promise.all([runProbes(), runControl()]);
    return { traced: { control, reach: null }, control, probes };
  }
  if (shape === 'trace-and-control') {
    const [traced, control] = await Promise.all([runTrace(), runControl()]);
    return { traced, control, probes: null };
  }
  const traced = await runTrace();
  return { traced, control: await runControl(), probes: null };
}

/**
 * The first round, and again without fastEnv when the control with it did not pass every eligible
 * test (fastEnv only stays when it changed nothing the sealed run showed). Then later runs start
 * with the runner caches its control left.
 */
export async function runFirstRound(
  plans: readonly SymbolPlan[],
  opts: OracleOptions,
  runs: JudgingRuns,
  shape: FirstRound,
  ahead: MadeAhead,
  tally: Tally,
): Promise<FirstRoundRuns> {
  let first = await once(plans, opts, runs, shape, ahead);
  const passed = new Set(first.control.passed);
  if (runs.fast === 'kept' && !(first.control.status === 'ok' && [...opts.eligible].every((t) => passed.has(t)))) {
    // The runner caches came from a run made the other way: the control made again keeps its own, or none.
    runs.dropFastEnv();
    tally.total += shape === 'probes-and-control' ? plans.length + 1 : 2;
    first = await once(plans, opts, runs, shape, ahead);
  }
  runs.keepRunnerCaches();
  return first;
}

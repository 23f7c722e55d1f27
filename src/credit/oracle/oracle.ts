// The mutation oracle: the runs that tell, for every changed symbol, which tests fail when its behaviour changes.
import type { SymbolPlan } from '../mutants/plan.js';
import { makeScratch } from '../runs/test-run.js';
import { aheadKey, takeAhead } from '../speedups/ahead.js';
import { baseByteCode, type PreparedBase } from '../speedups/prepared.js';
import type { PrecompileResult } from '../lang/python/pycache.js';
import { runFirstRound } from './first-round.js';
import { Judging } from './judging.js';
import { JudgingRuns } from './judging-runs.js';
import { planOracle } from './plan.js';
import { reachOf } from './probes.js';
import { Tally } from './progress.js';
import { behaviouralTimeoutMs, mutantTimeoutMs } from './timeouts.js';
import type { MutantRun, OracleOptions, OracleResult } from './types.js';
import { runWorkers } from './workers.js';

/**
 * The mutation oracle, phase by phase: 0 the speed-ups before any run, taken only when made from
 * the very same inputs; 1 the first round (the control, with the trace or every probe beside it);
 * 2 the usable tests; 3 the tests that reach each symbol (its probe, or the trace); 4 per symbol,
 * its revert, null and behavioural mutants in a seeded order, on its reaching tests; 5 the control
 * again. Every run is made the same way (JudgingRuns), and cached.
 */
export async function runOracle(plans: readonly SymbolPlan[], opts: OracleOptions): Promise<OracleResult> {
  const tally = new Tally(0, opts.now ?? (() => performance.now()), opts.progress);
  const scratch = makeScratch();
  const runs = new JudgingRuns(opts, scratch.dir, tally);
  let prepared: PreparedBase | null = null;
  try {
    // 0. Byte code for the base copy (pycache.ts), and the first round made ahead: taken only when
    // made from every input this round would use, the base copy included; otherwise ended now,
    // before its copy can go.
    const madeAhead = opts.prepared === undefined ? null : await opts.prepared;
    let bytecode: PrecompileResult | null = null;
    if (opts.precompile !== false) {
      ({ bytecode, prepared } = await baseByteCode(
        plans.map((p) => p.path),
        opts,
        runs.env,
        madeAhead,
        runs.baseRoot,
      ));
      if (prepared !== null) runs.useBase({ root: prepared.root, dispose: prepared.dispose });
    }
    const taken = await takeAhead(opts.ahead, () => aheadKey(opts, prepared?.key ?? null));
    if (prepared === null) madeAhead?.dispose();
    const plan = planOracle(plans, opts, taken.runs === null ? null : taken.probes !== null ? 'probes' : 'trace');
    const probesFirst = plan.firstRound === 'probes-and-control';

    // 1. The first round.
    tally.total = plan.runs;
    tally.tell();
    if (probesFirst) tally.total += plans.length - 1;
    const first = await runFirstRound(plans, opts, runs, plan.firstRound, taken, tally);

    // 2. The usable tests.
    const control = first.control;
    const usable = new Set(control.status === 'ok' ? control.passed.filter((t) => opts.eligible.has(t)) : []);
    tally.done += probesFirst ? 1 + plans.length : 2;
    const controlOut = {
      status: control.status,
      detail: control.detail,
      durationMs: control.durationMs,
      cached: control.cached,
    };
    if (control.status !== 'ok' || usable.size === 0) {
      tally.finish();
      return {
        control: controlOut,
        usable,
        probes: new Map(),
        traced: new Map(),
        mutants: new Map(),
        after: null,
        mutantsRun: tally.mutantsRun,
        mutantsCached: tally.mutantsCached,
        mutantsSettled: 0,
        mutantsAhead: 0,
        fastEnv: runs.fast,
        bytecode,
        ahead: taken.use,
      };
    }
    const timeoutMs = mutantTimeoutMs(opts.baselineMs, control.durationMs, opts.timeoutFactor);
    const times = control.times;
    const behaviouralTimeout = (tests: readonly string[]): number =>
      times === undefined
        ? timeoutMs
        : behaviouralTimeoutMs(control.durationMs, times, tests, timeoutMs, opts.timeoutFactor);

    // 3. The reaching tests, where the first round tells them; the other probes run with the judging runs.
    tally.phase = 'probes';
    const reach = reachOf(plans, first, usable, opts, tally);

    // 4 and 5. The judging runs on the workers, then the control after.
    const judging = new Judging(plans, opts, reach, first.probes !== null, control.cached, tally);
    const after = await runWorkers(
      { opts, runs, judging, reach, first, usable, timeoutMs, behaviouralTimeout, tally },
      plan.workers,
    );
    const queue = judging.queue;
    tally.total -= queue.skipped + queue.moot;
    const mutants = new Map<string, MutantRun[]>(
      queue.symbols.map((w) => [w.plan.symbol, w.runs.filter((r): r is MutantRun => r !== undefined)]),
    );
    tally.finish();
    return {
      control: controlOut,
      usable,
      probes: reach.probes,
      traced: reach.traced,
      mutants,
      after,
      mutantsRun: tally.mutantsRun,
      mutantsCached: tally.mutantsCached,
      mutantsSettled: queue.deferredLeft + queue.moot,
      mutantsAhead: queue.unused,
      fastEnv: runs.fast,
      bytecode,
      ahead: taken.use,
    };
  } finally {
    prepared?.dispose();
    scratch.dispose();
  }
}

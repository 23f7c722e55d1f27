// Which tests reach each symbol: those that fail its probe (it throws on entry), or those the trace saw enter it.
import type { SymbolPlan } from '../mutants/plan.js';
import type { FirstRoundRuns } from './first-round.js';
import type { JudgingRuns } from './judging-runs.js';
import type { Tally } from './progress.js';
import type { MutantRun, OracleOptions } from './types.js';

/** What the first round tells of each symbol's reaching tests. */
export interface Reach {
  /** Symbols whose probe ran, with its run (only usable tests counted). */
  readonly probes: Map<string, MutantRun>;
  /** Symbols whose reaching tests the trace named, so no probe runs for them: those tests. */
  readonly traced: Map<string, readonly string[]>;
}

/**
 * The reaching tests the first round shows: the probes it made whole (they ran against every
 * eligible test: only the usable ones count, as a narrowed probe's would), or the tests the
 * trace named one by one (pytest node ids; jest and vitest tests by file and name, or every
 * test of a file it loaded in: testsOfTargets). A symbol the trace could not tell gets its
 * probe later.
 */
export function reachOf(
  plans: readonly SymbolPlan[],
  first: FirstRoundRuns,
  usable: ReadonlySet<string>,
  opts: OracleOptions,
  tally: Tally,
): Reach {
  const probes = new Map<string, MutantRun>();
  const traced = new Map<string, readonly string[]>();
  if (first.probes !== null) {
    for (const [sym, r] of first.probes) {
      const run = {
        ...r,
        failed: r.failed.filter((t) => usable.has(t)),
        ranAgainst: r.ranAgainst.filter((t) => usable.has(t)),
      };
      probes.set(sym, run);
      if (run.failed.length > 0) tally.kills++;
    }
    tally.tell();
    return { probes, traced };
  }
  const reach = first.traced.reach;
  const usableSorted = [...usable].sort();
  for (const p of plans) {
    const targets = reach?.get(p.symbol);
    if (targets === null || targets === undefined || targets.size === 0 || opts.testsOfTargets === undefined) continue;
    const tests = opts.testsOfTargets([...targets].sort(), usableSorted);
    if (tests === null || tests.length === 0) continue;
    traced.set(p.symbol, tests);
    tally.done++;
  }
  if (traced.size > 0) tally.tell();
  return { probes, traced };
}

/**
 * A symbol's probe on the usable tests, narrowed to the test files the trace saw enter it (the
 * whole command where it saw none it could tell); a symbol no test entered in the trace run
 * reaches no test, and no probe runs.
 */
export async function probeRun(
  p: SymbolPlan,
  first: FirstRoundRuns,
  usable: ReadonlySet<string>,
  opts: OracleOptions,
  runs: JudgingRuns,
  timeoutMs: number,
  logDir: string,
): Promise<MutantRun> {
  const targets = first.traced.reach?.get(p.symbol);
  if (targets?.size === 0)
    return {
      mutant: p.probe,
      status: 'ok',
      detail: 'no test entered it in the trace run',
      failed: [],
      ranAgainst: [],
      cached: false,
    };
  const command = targets
    ? (opts.narrowTargets([...new Set([...targets].map((t) => t.split('\t')[0] as string))].sort()) ?? opts.command)
    : opts.command;
  return runs.runMutant(p.probe, command, timeoutMs, [...usable].sort(), logDir);
}

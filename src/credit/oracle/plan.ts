// The oracle's plan as data: the shape of its first round, and each symbol's judging runs in their seeded order.
import { sha256Hex } from '../../core/ids.js';
import type { Mutant } from '../mutants/mutant.js';
import { judgingRuns, type SymbolPlan } from '../mutants/plan.js';
import { probesFirst } from '../runs/round.js';

/**
 * The seeded order of a symbol's judging runs: the null mutants where a seeded shuffle of every
 * run puts them (each as likely to come first as any other run), the other slots the revert first
 * and then the behavioural mutants in the seed's order. With `revert-and-nulls` (only the revert
 * can earn) the revert and the nulls are shuffled among themselves.
 */
export function judgingOrder(
  seed: string,
  mutants: readonly Mutant[],
  only: 'all' | 'revert-and-nulls' = 'all',
): Mutant[] {
  const rank = (m: Mutant): string => sha256Hex(`${seed}\u0000order\u0000${m.id}`);
  const ranked = (ms: readonly Mutant[]): Mutant[] => {
    const keyed = ms.map((m) => ({ m, r: rank(m) }));
    keyed.sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0));
    return keyed.map((k) => k.m);
  };
  if (only === 'revert-and-nulls') {
    const judged = ranked(mutants.filter((m) => m.kind === 'revert' || m.kind === 'null'));
    return [...judged, ...ranked(mutants.filter((m) => m.kind !== 'revert' && m.kind !== 'null'))];
  }
  const real = [
    ...mutants.filter((m) => m.kind === 'revert'),
    ...ranked(mutants.filter((m) => m.kind !== 'revert' && m.kind !== 'null')),
  ];
  let next = 0;
  return ranked(mutants).map((m) => (m.kind === 'null' ? m : (real[next++] as Mutant)));
}

/** Only a symbol's revert can earn it (a modified symbol under require "revert"): its behavioural mutants are moot. */
export const revertOnly = (require: 'change' | 'revert', p: Pick<SymbolPlan, 'change'>): boolean =>
  require === 'revert' && p.change !== 'added';

/** A symbol's judging runs (its revert, null and behavioural mutants) in the seed's order. */
export function orderOf(seed: string, require: 'change' | 'revert', p: SymbolPlan): Mutant[] {
  return judgingOrder(
    seed,
    [...(p.revert ? [p.revert] : []), ...p.nulls, ...p.mutants],
    revertOnly(require, p) ? 'revert-and-nulls' : 'all',
  );
}

/** The first round: every probe whole beside the control (no trace), or the trace beside the control, or one after the other. */
export type FirstRound = 'probes-and-control' | 'trace-and-control' | 'trace-then-control';

export interface OraclePlan {
  readonly firstRound: FirstRound;
  /** Runs at once. */
  readonly workers: number;
  /** Per symbol, its judging runs by mutant id in the order they count (for drafts, the checked plans add the revert and the behavioural mutants). */
  readonly symbols: readonly { readonly symbol: string; readonly order: readonly string[] }[];
  /** The runs planned before any ran, the first round counted as a trace and a control: a probe per symbol, every judging run, and the control after. */
  readonly runs: number;
}

/**
 * The oracle's plan for `plans`, before any run. `madeAhead`: what the first round made ahead
 * made, when it is taken (the trace, or the probes: the oracle's first round is then that one).
 */
export function planOracle(
  plans: readonly SymbolPlan[],
  o: {
    readonly workers: number;
    readonly earlyProbes?: boolean;
    readonly seed: string;
    readonly require?: 'change' | 'revert';
  },
  madeAhead: 'trace' | 'probes' | null = null,
): OraclePlan {
  const workers = Math.max(1, o.workers);
  const probes = madeAhead !== 'trace' && (o.earlyProbes ?? true) && probesFirst(plans.length, workers);
  return {
    firstRound: probes ? 'probes-and-control' : workers >= 2 ? 'trace-and-control' : 'trace-then-control',
    workers,
    symbols: plans.map((p) => ({
      symbol: p.symbol,
      order: orderOf(o.seed, o.require ?? 'change', p).map((m) => m.id),
    })),
    runs: 2 + plans.length + judgingRuns(plans) + 1,
  };
}

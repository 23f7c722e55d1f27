// One changed symbol as the oracle judges it: its probe, trace, null mutant, revert and behavioural mutants.
import type { Edit, Mutant } from './mutant.js';

/** One changed symbol ready for the oracle. */
export interface SymbolPlan {
  readonly symbol: string;
  readonly path: string;
  readonly probe: Mutant;
  /** Entry-recording edits for the one trace run that narrows each probe to the tests that call the symbol. */
  readonly trace: readonly Edit[];
  /** Behavioural mutants chosen for the run (at most the budget). */
  readonly mutants: readonly Mutant[];
  /** How many behavioural mutants were possible before the budget. */
  readonly candidates: number;
  /** added: no base version; modified: it has one. */
  readonly change: 'added' | 'modified';
  /** The base version put back (modified symbols), or null. */
  readonly revert: Mutant | null;
  /** Why a modified symbol has no (or only a partial) revert. */
  readonly noRevert?: string;
  /** Byte changes that keep the behaviour (one mutant: every null change at once, nullMutant); a test failing on it earns nothing for the symbol. */
  readonly nulls: readonly Mutant[];
  /** Why the built revert was left out: it does not parse, compile or type-check in the patched tree. */
  readonly revertInvalid?: string;
  /** Mutants left out before running because they do not compile, parse or type-check. */
  readonly discarded?: readonly { readonly mutant: string; readonly reason: string }[];
}

/** How many judging runs the plans hold at most: every revert, null and behavioural mutant. */
export function judgingRuns(plans: readonly SymbolPlan[]): number {
  return plans.reduce((n, p) => n + p.mutants.length + p.nulls.length + (p.revert ? 1 : 0), 0);
}

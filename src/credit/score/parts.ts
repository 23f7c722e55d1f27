// What the score is assembled from: the oracle's observations and the static verdicts, and one symbol's reading of them.

import type { Results } from '../../runner/results.js';
import type { Changed } from '../../symbols/schema.js';
import type { Mutant } from '../mutants/mutant.js';
import type { SymbolPlan } from '../mutants/plan.js';
import type { OracleResult, MutantRun } from '../oracle/types.js';
import type { RevertEvidence } from '../schema.js';
import type { Verdict } from '../tests/classify.js';

/** Everything the credit is assembled from; no I/O. */
export interface ScoreParts {
  readonly changed: Changed;
  readonly results: Results;
  /** SHA-256 of the results.json bytes scored (the gate checks the same bytes). */
  readonly resultsSha256?: string;
  /** Result cases no test file defines: never credited, listed in the credit. */
  readonly undefinedTests?: readonly string[];
  readonly digest: string;
  readonly runnerJob: string;
  readonly proposalId: string;
  /** The runner's tree id (base + patch), when it built one. */
  readonly treeId?: string;
  /** Static verdict of each results case (by id); absent when its source was not found. */
  readonly verdicts: ReadonlyMap<string, Verdict | null>;
  readonly plans: readonly SymbolPlan[];
  /** Changed symbols the oracle cannot mutate, with why. */
  readonly unsupported: ReadonlyMap<string, string>;
  /** Why the baseline gives no usable passes, or null when it does. */
  readonly baselineProblem: string | null;
  readonly oracle: OracleResult | null;
  /** credit.require (default "change"). */
  readonly require?: 'change' | 'revert';
}

export type Kind = Mutant['kind'];

export interface SymbolInfo {
  killers: Set<string>;
  killed: { test: string; mutant: string; kind: Kind }[];
  reached: string[];
  /** How the reaching tests were found: the symbol's probe, or the trace run alone. */
  reachedBy: 'probe' | 'trace' | null;
  byProbe: boolean;
  runs: MutantRun[];
  sensitive: Map<string, string>;
  revert: RevertEvidence;
  change: 'added' | 'modified';
  /** Behavioural mutants of the plan that did not run. */
  untried: number;
}

// The oracle's inputs, grouped by what they are for, and what it returns.
import type { Box } from '../../sandbox/run.js';
import type { PrecompileResult } from '../lang/python/pycache.js';
import type { Mutant } from '../mutants/mutant.js';
import type { SymbolPlan } from '../mutants/plan.js';
import type { RunStatus } from '../runs/test-run.js';
import type { AheadRound } from '../speedups/ahead.js';
import type { PreparedBase } from '../speedups/prepared.js';

/** How every run is made: the tree it copies, the command and its reports, the environment, the sandbox. */
export interface RunSetup {
  /** The runner's pristine tree to copy (never modified, never run in). */
  readonly workTree: string;
  /** Where dependency folders (node_modules, .venv) are linked from: the user's repository. */
  readonly depsFrom?: string;
  readonly command: readonly string[];
  readonly junit: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The sandbox every run goes through (src/sandbox/). */
  readonly sandbox: Box;
  /** Wall-clock limit for the unmutated control run. */
  readonly controlTimeoutMs: number;
}

/** What is judged and by which rules: the plans, the sealed seed and baseline, the tests that may earn, the policy. */
export interface JudgingInputs {
  /**
   * The plans with their valid mutants, when the plans given are drafts (probe, trace and null
   * mutant only): the first runs go on the drafts meanwhile, and the judging runs wait for
   * these. Same symbols, same order.
   */
  readonly judged?: Promise<readonly SymbolPlan[]>;
  /** The sealed seed: it orders the null and real mutants of each symbol. */
  readonly seed: string;
  /** Tests that passed on the sealed baseline run. */
  readonly eligible: ReadonlySet<string>;
  /** Tests whose failures never earn credit (static tautologies): not run against behavioural mutants. */
  readonly ignore: ReadonlySet<string>;
  /** Baseline duration the per-mutant timeout is derived from. */
  readonly baselineMs: number;
  /** Per-mutant timeout: this many times the slower of baseline and control (default 3); a behavioural mutant's, this many times its own tests' durations. */
  readonly timeoutFactor?: number;
  /** credit.require: which kills settle a symbol's credit, so its remaining behavioural mutants need not run (default "change"). */
  readonly require?: 'change' | 'revert';
}

/** How a run is narrowed to the tests that reach a symbol (by file or node id, by name, by trace target). */
export interface Narrowing {
  /** Narrowed command for a set of reaching tests (by file, or pytest node id), or null to run the whole command. */
  readonly narrow: (testIds: readonly string[]) => readonly string[] | null;
  /**
   * Narrowed further, by test name (vitest, jest, node:test), or null when a name cannot be
   * matched exactly. A run by name that leaves out a reaching test falls back to `narrow`.
   */
  readonly narrowByName?: (testIds: readonly string[]) => readonly string[] | null;
  /** Narrowed command for trace targets (test files, or pytest node ids), or null. */
  readonly narrowTargets: (targets: readonly string[]) => readonly string[] | null;
  /**
   * The tests of `tests` that trace targets name one by one, or null when a target is a whole
   * file, names none of them or cannot be told: then the probe runs. Without it every symbol
   * gets its probe run.
   */
  readonly testsOfTargets?: (targets: readonly string[], tests: readonly string[]) => string[] | null;
  /** A test's candidate files (repository-relative), to tell which tests a file that failed to load held. */
  readonly filesOf?: (testId: string) => readonly string[];
}

/** How the work is spread and told. */
export interface Scheduling {
  readonly workers: number;
  /** Whether the first round makes every probe whole instead of the trace where they fit beside the control (probesFirst; default true). */
  readonly earlyProbes?: boolean;
  readonly progress?: (p: Progress) => void;
  readonly now?: () => number;
}

/** What makes the oracle faster without changing what it decides. */
export interface SpeedUps {
  /**
   * Variables added to every run's `env` to skip work that cannot change a test's outcome
   * (judgingEnvFor): kept only when the first control with them passes every eligible test,
   * else the trace and the control run again without them and so does every later run.
   */
  readonly fastEnv?: Readonly<Record<string, string>> | null;
  /** Cache folder, or null for none; keys bind digest, patch hash and mutant id. */
  readonly cacheDir: string | null;
  readonly cacheSalt: string;
  /** Byte code for the base copy's files before the first run (a language's byte-code step; default true). */
  readonly precompile?: boolean;
  /** The copy with its byte code made ahead (PreparedBase), or null; used only when made from the very same inputs. */
  readonly prepared?: Promise<PreparedBase | null>;
  /** The first round made ahead (startAhead), or null; taken only when made from the very same inputs (aheadKey), else ended. */
  readonly ahead?: Promise<AheadRound | null>;
}

export type OracleOptions = RunSetup & JudgingInputs & Narrowing & Scheduling & SpeedUps;

export interface MutantRun {
  readonly mutant: Mutant;
  readonly status: RunStatus;
  readonly detail: string;
  /** Eligible tests that failed or errored on the mutant (only when status is ok). */
  readonly failed: readonly string[];
  /** The tests the run was narrowed to (the reaching tests still open for the symbol). */
  readonly ranAgainst: readonly string[];
  /** Taken from the cache: no test ran for it this time. */
  readonly cached: boolean;
  /** The command it ran (the same for every judging run of a symbol). */
  readonly command?: readonly string[];
}

export interface Progress {
  readonly phase: 'control' | 'probes' | 'mutants' | 'done';
  readonly done: number;
  readonly total: number;
  readonly kills: number;
  readonly elapsedMs: number;
  /** Estimated time left, or null before anything ran. */
  readonly etaMs: number | null;
}

export interface ControlRun {
  readonly status: RunStatus;
  readonly detail: string;
  readonly durationMs: number;
  readonly cached: boolean;
}

/** The control run again after the mutants: `failed` holds the reaching tests that failed it or did not run again. */
export type AfterRun = ControlRun & { readonly failed: readonly string[]; readonly ranAgainst: readonly string[] };

export interface OracleResult {
  readonly control: ControlRun;
  /** Eligible tests that also passed in the unmutated isolated copy. */
  readonly usable: ReadonlySet<string>;
  readonly probes: ReadonlyMap<string, MutantRun>;
  /**
   * Symbols whose reaching tests the trace run named (every entry it recorded names a usable
   * test), so no probe ran for them: the usable tests it saw enter each.
   */
  readonly traced: ReadonlyMap<string, readonly string[]>;
  /** Per symbol: its revert, null and behavioural mutant runs, in the order they ran. */
  readonly mutants: ReadonlyMap<string, readonly MutantRun[]>;
  /** The unmutated control run again after the mutants, null when none ran. */
  readonly after: AfterRun | null;
  readonly mutantsRun: number;
  readonly mutantsCached: number;
  /** Behavioural mutants not run because their symbol's credit was settled before them. */
  readonly mutantsSettled: number;
  /** Runs made ahead of their place's decision (a worker would have waited) that did not count: their place did not need them. */
  readonly mutantsAhead: number;
  /** What became of `fastEnv`: null when there was none. */
  readonly fastEnv: 'kept' | 'dropped' | null;
  /** The byte code made for the runs' base copy before the first; null: no changed file's language has a byte-code step. */
  readonly bytecode: PrecompileResult | null;
  /** The first round made ahead (OracleOptions.ahead): used as this oracle's own, ended unused (made from other inputs), or null when there was none. */
  readonly ahead: 'used' | 'ended' | null;
}

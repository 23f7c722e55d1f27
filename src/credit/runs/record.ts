// What one credit run leaves: its record (kept by the cache, taken from the first round made ahead).
import type { RunStatus } from './test-run.js';

/**
 * One run as it is kept. For a mutant or the control after the mutants, `failed` is the tests
 * that failed or errored; for the control and the trace, the tests that passed (asControl).
 */
export interface RunRecord {
  readonly status: RunStatus;
  readonly detail: string;
  readonly failed: readonly string[];
  readonly durationMs: number;
  /** The tests the report shows ran (not skipped), or failed to load. */
  readonly ran?: readonly string[];
  /** The trace run's records. */
  readonly lines?: readonly string[];
  /** The control's per-test durations (ms), for the behavioural mutants' timeouts. */
  readonly times?: Readonly<Record<string, number>>;
}

/** An unmutated run (the control, or the trace): the tests that passed, and whether it came from the cache. */
export interface ControlRan {
  readonly status: RunStatus;
  readonly detail: string;
  readonly passed: readonly string[];
  readonly durationMs: number;
  readonly lines?: readonly string[];
  readonly times?: Readonly<Record<string, number>>;
  readonly cached: boolean;
}

/** An unmutated run's record read as what it is: its `failed` list holds the tests that passed. */
export function asControl(r: RunRecord, cached: boolean): ControlRan {
  const { failed, ...rest } = r;
  return { ...rest, passed: failed, cached };
}

/** The cache of run records, by key: a miss is null, a damaged entry too. */
export interface RunCache {
  read(key: string): RunRecord | null;
  write(key: string, v: RunRecord): void;
}

/** The cache key of a run: what it is, its edits, its command (or narrowed selection), and the environment when fastEnv is kept. */
export type Keyer = (what: string, selection: readonly string[] | null, edits: unknown) => string;

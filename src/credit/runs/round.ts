// What the oracle's first round is made with, by the oracle itself or ahead of it, and its shape.
import type { Box } from '../../sandbox/run.js';
import type { Keyer, RunCache, RunRecord } from './record.js';

/** How the first round's runs are made: the tree, the command and its reports, the sandbox, the limit. */
export interface RoundSetup {
  readonly workTree: string;
  readonly command: readonly string[];
  readonly junit: readonly string[];
  readonly controlTimeoutMs: number;
  readonly sandbox: Box;
}

/** What the first round's control and trace are made with. */
export interface RoundRuns {
  readonly setup: RoundSetup;
  readonly cache: RunCache;
  readonly env: Readonly<Record<string, string>>;
  readonly key: Keyer;
  readonly baseRoot: () => string;
  readonly scratch: string;
  /** These very runs made ahead (AheadRound), by key: taken as this round's own runs. */
  readonly ahead?: ReadonlyMap<string, RunRecord>;
  /** Told of every run really made (not a cache hit, not taken from `ahead`, not ended by `signal`). */
  readonly onRecord?: (key: string, v: RunRecord) => void;
  readonly signal?: AbortSignal;
  /** Where the control's runner caches go (keepRunnerCaches), for the runs after the first round. */
  readonly keepTmp?: string;
  /** The niceness of its runs (made ahead: they yield the cores to the sealed run). */
  readonly nice?: number;
}

/** A finished run's record, cached and told, unless `signal` ended it (then it is no result). */
export function recordFinished(c: RoundRuns, key: string, v: RunRecord): void {
  if (c.signal?.aborted === true) return;
  c.cache.write(key, v);
  c.onRecord?.(key, v);
}

/**
 * Does the first round make every probe whole beside the control, instead of the trace (whose
 * only use is to narrow the probes)? Where every symbol's probe fits beside the control on the
 * workers (fewer symbols than workers): one round fewer.
 */
export function probesFirst(symbols: number, workers: number): boolean {
  return workers >= 2 && symbols > 0 && symbols < workers;
}

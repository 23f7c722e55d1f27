// The oracle's first round made ahead, beside the sealed run: taken as the oracle's own only when made from the very same inputs.
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Box } from '../../sandbox/run.js';
import { applyEdits } from '../mutants/mutant.js';
import type { SymbolPlan } from '../mutants/plan.js';
import { controlRun } from '../runs/control.js';
import type { RunRecord } from '../runs/record.js';
import { probesFirst, type RoundRuns } from '../runs/round.js';
import { makeScratch, makeWorkspace, runTestCommand, type TestRun } from '../runs/test-run.js';
import { traceRecord } from '../runs/trace.js';
import { fileCache, keyer } from './cache.js';
import type { PreparedBase } from './prepared.js';

/**
 * The oracle's first round (the control, and the trace or the probes) made by the credit prelude
 * while the sealed run goes on: no input of these runs is a test result. The oracle takes their
 * results as its own runs only when it would make the very same runs (`key`, aheadKey, the
 * base copy included), and ends them otherwise (`cancel`).
 */
export interface AheadRound {
  /** aheadKey of its runs, once their base copy is known; null when it makes none. */
  readonly key: Promise<string | null>;
  /** The runs it really made (neither cache hits nor ended ones), by cache key; null when it made none. Never rejects. */
  readonly runs: Promise<ReadonlyMap<string, RunRecord> | null>;
  /**
   * The probes it made whole, as runs (probesFirst), by cache key (those the cache held it did
   * not make). Kept as runs, since which tests they show depends on the sealed run's results.
   * Null when it made the trace instead, or nothing. Never rejects.
   */
  readonly probes: Promise<ReadonlyMap<string, TestRun> | null>;
  /** End its runs at once (their results are not wanted) and wait until they are gone. */
  readonly cancel: () => Promise<void>;
}

/** What the first round's runs are made with; `workers`: how many at once (1: the control, then the trace), as the credit step's own. */
export interface AheadOptions {
  readonly workTree: string;
  readonly depsFrom?: string;
  readonly command: readonly string[];
  readonly junit: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly fastEnv?: Readonly<Record<string, string>> | null;
  readonly sandbox: Box;
  readonly controlTimeoutMs: number;
  readonly cacheDir: string | null;
  readonly cacheSalt: string;
  readonly workers?: number;
}

/** Every input of the first round's runs besides those their cache keys hold: the tree, its dependencies, the reports, the whole environment, the sandbox, the time limit, the cache, and the base copy's byte code (PreparedBase.key, or null). */
export function aheadKey(o: AheadOptions, prepared: string | null): string {
  return JSON.stringify([
    'sealgate-ahead-v1',
    o.workTree,
    o.depsFrom ?? o.workTree,
    o.command,
    o.junit,
    o.env,
    o.fastEnv ?? null,
    o.controlTimeoutMs,
    o.sandbox,
    o.cacheDir,
    o.cacheSalt,
    prepared,
  ]);
}

/**
 * The niceness of the runs made ahead, beside the sealed run: they take only the CPU it leaves
 * idle, so the sealed run, whose results are the verdict (and whose tests have timeouts of
 * their own), goes as fast as it would alone.
 */
export const AHEAD_NICE = 10;

/**
 * A run made ahead, as the oracle's own run with `timeoutMs` would have ended: a timeout when it
 * took longer; none (run it again) when it was stopped by its own shorter limit first.
 */
export function asMadeWithin(run: TestRun | undefined, timeoutMs: number): TestRun | null {
  if (run === undefined) return null;
  if (run.durationMs > timeoutMs)
    return {
      status: 'timeout',
      detail: `timed out after ${Math.round(timeoutMs)} ms`,
      durationMs: run.durationMs,
      cases: [],
      cwd: run.cwd,
      trace: null,
    };
  return run.status === 'timeout' ? null : run;
}

/** What the oracle takes of a first round made ahead: its runs and probes when made with `key`, else nothing, the round ended. */
export interface AheadTaken {
  /** used: its runs are the oracle's own; ended: made from other inputs, ended unused; null: there was none. */
  readonly use: 'used' | 'ended' | null;
  readonly runs: ReadonlyMap<string, RunRecord> | null;
  readonly probes: ReadonlyMap<string, TestRun> | null;
}

/** Take the round made ahead when it was made with `key()` (aheadKey of the oracle's own inputs); otherwise end it now. */
export async function takeAhead(round: Promise<AheadRound | null> | undefined, key: () => string): Promise<AheadTaken> {
  if (round === undefined) return { use: null, runs: null, probes: null };
  const ahead = await round.catch(() => null);
  const made = ahead === null ? null : await ahead.key;
  let runs: ReadonlyMap<string, RunRecord> | null = null;
  let probes: ReadonlyMap<string, TestRun> | null = null;
  if (ahead !== null && made !== null && made === key()) {
    runs = await ahead.runs;
    if (runs !== null) probes = await ahead.probes;
  }
  if (runs === null) await ahead?.cancel();
  return { use: runs !== null ? 'used' : ahead !== null ? 'ended' : null, runs, probes };
}

/**
 * Start the first round ahead, the one the oracle would make: the control and the trace of
 * `plans`, or, with fewer symbols than workers, the control and every probe whole (drafts do:
 * their trace and probe edits are all it takes of them); on the prepared copy when there is one
 * to wait for (Python: the copy the oracle takes), else on a copy of its own.
 */
export function startAhead(
  plans: readonly SymbolPlan[],
  o: AheadOptions,
  prepared: Promise<PreparedBase | null> | null,
): AheadRound {
  const stop = new AbortController();
  let setKey: (m: string | null) => void = () => undefined;
  const key = new Promise<string | null>((r) => (setKey = r));
  let probeRuns: Map<string, TestRun> | null = null;
  const cache = fileCache(o.cacheDir);
  const runs = (async (): Promise<ReadonlyMap<string, RunRecord> | null> => {
    const scratch = makeScratch();
    try {
      let root: string;
      let preparedKey: string | null = null;
      if (prepared !== null) {
        const b = await prepared.catch(() => null);
        if (b === null || stop.signal.aborted) return null;
        root = b.root;
        preparedKey = b.key;
      } else root = makeWorkspace(o.workTree, scratch.dir, o.depsFrom ?? o.workTree).root;
      setKey(aheadKey(o, preparedKey));
      const env = o.fastEnv ? { ...o.env, ...o.fastEnv } : o.env;
      const out = new Map<string, RunRecord>();
      const c: RoundRuns = {
        setup: o,
        cache,
        env,
        key: keyer(o.cacheSalt, o.command, o.fastEnv ? env : null),
        baseRoot: () => root,
        scratch: scratch.dir,
        onRecord: (k, v) => out.set(k, v),
        signal: stop.signal,
        nice: AHEAD_NICE,
      };
      const workers = o.workers ?? 2;
      if (probesFirst(plans.length, workers)) {
        // What the oracle's first round makes here: the control and every probe whole, no trace.
        const probesMade = new Map<string, TestRun>();
        probeRuns = probesMade;
        const probes = async (): Promise<void> => {
          await Promise.all(
            plans.map(async (p, i) => {
              const k = c.key(p.probe.id, o.command, p.probe.edits);
              if (cache.read(k)) return;
              const logDir = mkdtempSync(join(scratch.dir, `probe-${i}-`));
              const files = new Map([
                [p.path, applyEdits(readFileSync(join(o.workTree, p.path), 'utf8'), p.probe.edits)] as const,
              ]);
              const run = await runTestCommand(root, o.command, o.junit, env, o.controlTimeoutMs, logDir, o.sandbox, {
                files,
                signal: stop.signal,
                nice: AHEAD_NICE,
              });
              if (!stop.signal.aborted) probesMade.set(k, run);
            }),
          );
        };
        await Promise.all([controlRun(c), probes()]);
      } else if (workers >= 2) await Promise.all([controlRun(c), traceRecord(plans, c)]);
      else {
        await controlRun(c);
        if (!stop.signal.aborted) await traceRecord(plans, c);
      }
      return stop.signal.aborted ? null : out;
    } catch {
      return null;
    } finally {
      setKey(null);
      scratch.dispose();
    }
  })();
  return {
    key,
    runs,
    probes: runs.then((r) => (r === null ? null : probeRuns)),
    cancel: async () => {
      stop.abort();
      await runs;
    },
  };
}

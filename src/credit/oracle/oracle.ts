import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { sha256Hex } from '../../core/ids.js';
import { applyEdits, type Edit, type Mutant } from '../mutants/mutant.js';
import type { Box } from '../../sandbox/run.js';
import { checkRuntimeValidity } from './judge.js';
import {
  makeScratch,
  makeWorkspace,
  runTestCommand,
  type RunStatus,
  type TestRun,
  type Workspace,
} from '../runs/test-run.js';
import type { PrecompileResult } from '../lang/python/pycache.js';
import { byteCodeFor } from '../lang/index.js';
import { SANDBOX_WORK } from '../../sandbox/plan.js';
import { stampTree } from '../../core/times.js';
import { loadFailureFiles, loadFailureOf } from '../../test-runners/index.js';

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
  /** Mutants left out before running because they do not compile, parse or type-check (src/credit/valid.ts). */
  readonly discarded?: readonly { readonly mutant: string; readonly reason: string }[];
}

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

/**
 * A copy of the tree with its Python byte code already made (the credit prelude makes it while
 * the sealed run goes on), and what it was made with (`made`, preparedKey). The oracle uses it
 * as the copy every run is copied from only when it would make the very same; otherwise it
 * disposes of it and makes its own.
 */
export interface PreparedBase {
  readonly root: string;
  readonly dispose: () => void;
  readonly made: string;
  readonly bytecode: PrecompileResult;
}

/** Every input of the byte code step: the tree, where dependencies come from, the changed Python files, the runs' working directory, and whether pytest's rewrite is left out. */
export function preparedKey(
  workTree: string,
  depsFrom: string,
  changedPy: Iterable<string>,
  cwd: string | null,
  noRewrite: boolean,
): string {
  return JSON.stringify([workTree, depsFrom, [...changedPy].sort(), cwd, noRewrite]);
}

export interface OracleOptions {
  /** The runner's pristine tree to copy (never modified, never run in). */
  readonly workTree: string;
  /** Where dependency folders (node_modules, .venv) are linked from: the user's repository. */
  readonly depsFrom?: string;
  readonly command: readonly string[];
  readonly junit: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /**
   * Variables added to every run's `env` to skip work that cannot change a test's outcome
   * (`judgingEnvFor`): kept only when the first control with them passes every eligible test,
   * else the trace and the control run again without them and so does every later run.
   */
  readonly fastEnv?: Readonly<Record<string, string>> | null;
  /**
   * The plans with their valid mutants, when `plans` are drafts (draftSymbols: probe, trace and
   * null mutant only): the trace, the control and the probes run on the drafts meanwhile, and
   * the judging runs wait for these. Same symbols, same order.
   */
  readonly judged?: Promise<readonly SymbolPlan[]>;
  /** The sandbox every run goes through (src/sandbox/). */
  readonly sandbox: Box;
  /**
   * When every symbol's probe fits beside the control on the workers (symbols < workers), the
   * probes run whole in the first round instead of the trace, whose only use is to narrow them:
   * one round fewer. Default true; false always traces first.
   */
  readonly earlyProbes?: boolean;
  /** Byte code for the base copy's Python files before the first run (pycache.ts; default true). */
  readonly precompile?: boolean;
  /** The copy with its byte code made ahead (PreparedBase), or null; used only when made from the very same inputs. */
  readonly prepared?: Promise<PreparedBase | null>;
  /** The first round made ahead (startAhead), or null; taken only when made from the very same inputs (aheadKey), else ended. */
  readonly ahead?: Promise<AheadRound | null>;
  /** Wall-clock limit for the unmutated control run. */
  readonly controlTimeoutMs: number;
  /** Baseline duration the per-mutant timeout is derived from. */
  readonly baselineMs: number;
  /** Per-mutant timeout: this many times the slower of baseline and control (default 3); a behavioural mutant's, this many times its own tests' durations. */
  readonly timeoutFactor?: number;
  /** credit.require: which kills settle a symbol's credit, so its remaining behavioural mutants need not run (default "change"). */
  readonly require?: 'change' | 'revert';
  readonly workers: number;
  /** The sealed seed: it orders the null and real mutants of each symbol. */
  readonly seed: string;
  /** Tests that passed on the sealed baseline run. */
  readonly eligible: ReadonlySet<string>;
  /** Tests whose failures never earn credit (static tautologies): not run against behavioural mutants. */
  readonly ignore: ReadonlySet<string>;
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
   * The tests of `tests` that trace targets name one by one (a pytest node id's test), or null
   * when a target is a whole file, names none of them or cannot be told: then the probe runs.
   * Without it every symbol gets its probe run.
   */
  readonly testsOfTargets?: (targets: readonly string[], tests: readonly string[]) => string[] | null;
  /** A test's candidate files (repository-relative), to tell which tests a file that failed to load held. */
  readonly filesOf?: (testId: string) => readonly string[];
  /** Cache folder, or null for none; keys bind digest, patch hash and mutant id. */
  readonly cacheDir: string | null;
  readonly cacheSalt: string;
  readonly progress?: (p: Progress) => void;
  readonly now?: () => number;
}

export interface ControlRun {
  readonly status: RunStatus;
  readonly detail: string;
  readonly durationMs: number;
  readonly cached: boolean;
}

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
  readonly after: (ControlRun & { readonly failed: readonly string[]; readonly ranAgainst: readonly string[] }) | null;
  readonly mutantsRun: number;
  readonly mutantsCached: number;
  /** Behavioural mutants not run because their symbol's credit was settled before them. */
  readonly mutantsSettled: number;
  /** Runs made ahead of their place's decision (a worker would have waited) that did not count: their place did not need them. */
  readonly mutantsAhead: number;
  /** What became of `fastEnv`: null when there was none. */
  readonly fastEnv: 'kept' | 'dropped' | null;
  /** The byte code made for the runs' base copy before the first (pycache.ts); null: no Python symbol. */
  readonly bytecode: PrecompileResult | null;
  /** The first round made ahead (OracleOptions.ahead): used as this oracle's own, ended unused (made from other inputs), or null when there was none. */
  readonly ahead: 'used' | 'ended' | null;
}

interface Cached {
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

/** What the last run in `logDir` printed (each capped by the sandbox), or '' when unreadable. */
function readLogs(logDir: string): string {
  let out = '';
  for (const f of ['stdout.log', 'stderr.log']) {
    try {
      out += readFileSync(join(logDir, f), 'utf8') + '\n';
    } catch {
      /* no log: nothing to read */
    }
  }
  return out;
}

/**
 * The tests of `against` a usable run really ran: those its report shows ran (not skipped), and
 * those a load failure failed. A test asked for but absent from the report, or skipped in it,
 * did not run against the mutant, so the mutant did not survive it (honest evidence). Runs
 * that timed out or crashed say so in their status and keep the tests asked for.
 */
export function ranAgainst(
  run: TestRun,
  against: readonly string[],
  seen: { readonly status: RunStatus; readonly failed: readonly string[] },
): string[] {
  if (seen.status !== 'ok') return [...against];
  const reported = new Set([...run.cases.filter((c) => c.status !== 'skipped').map((c) => c.id), ...seen.failed]);
  return against.filter((t) => reported.has(t));
}

/**
 * The per-mutant timeout: `factor` (default three) times the slower of baseline and control, plus
 * ten seconds of slack for a loaded machine. A mutant that loops forever costs this much; a
 * timeout is never a kill.
 */
export function mutantTimeoutMs(baselineMs: number, controlMs: number, factor = 3): number {
  return Math.ceil(Math.max(baselineMs, controlMs) * factor + 10_000);
}

/**
 * A behavioural mutant's timeout, from the tests it runs: `factor` times the control's fixed
 * cost (its duration less its tests' own) plus those tests' durations in the control, plus two
 * seconds; never more than `ceilingMs` (mutantTimeoutMs). A timeout is never a kill, so a
 * mutant that loops costs this much instead of the whole suite's budget. Controls, the
 * revert and the null mutants keep the ceiling: a timeout there would take credit away.
 */
export function behaviouralTimeoutMs(
  controlMs: number,
  times: Readonly<Record<string, number>>,
  tests: readonly string[],
  ceilingMs: number,
  factor = 3,
): number {
  const all = Object.values(times).reduce((n, t) => n + t, 0);
  const fixed = Math.max(0, controlMs - all);
  const own = tests.reduce((n, t) => n + (times[t] ?? 0), 0);
  return Math.min(ceilingMs, Math.ceil((fixed + own) * factor + 2_000));
}

export interface SettleState {
  /** The revert and null mutants not yet finished. */
  readonly pending: number;
  /** A null mutant run that timed out or crashed (every test it ran against is sensitive). */
  readonly nullBroken: boolean;
  /** Tests that failed a null mutant. */
  readonly nullFailed: ReadonlySet<string>;
  /** Tests that failed a mutant whose kill earns credit (under `require: "revert"`, a modified symbol's revert only). */
  readonly earners: ReadonlySet<string>;
}

/**
 * May the symbol's remaining behavioural mutants wait? Yes once a test failed a
 * credit-earning mutant and no null mutant run so far has failed it. They wait, not vanish:
 * the revert and every null mutant still run, and unless the credit is then settled
 * (isSettled), the waiting mutants run after all, so the credit is the one the full set gives.
 */
export function mayDefer(s: SettleState): boolean {
  if (s.nullBroken) return false;
  for (const t of s.earners) if (!s.nullFailed.has(t)) return true;
  return false;
}

/** Is the symbol's credit settled: its revert and every null mutant ran, and a test that failed a credit-earning mutant failed none of them? */
export function isSettled(s: SettleState): boolean {
  return s.pending === 0 && mayDefer(s);
}

function readCache(dir: string | null, key: string): Cached | null {
  if (dir === null) return null;
  const p = join(dir, `${key}.json`);
  if (!existsSync(p)) return null;
  try {
    const v = JSON.parse(readFileSync(p, 'utf8')) as Cached;
    if (
      (v.status === 'ok' || v.status === 'timeout' || v.status === 'crash') &&
      Array.isArray(v.failed) &&
      v.failed.every((x) => typeof x === 'string') &&
      (v.ran === undefined || (Array.isArray(v.ran) && v.ran.every((x) => typeof x === 'string')))
    )
      return v;
  } catch {
    /* a damaged entry is a miss */
  }
  return null;
}

function writeCache(dir: string | null, key: string, v: Cached): void {
  if (dir === null) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${key}.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(v), { mode: 0o600 });
  renameSync(tmp, join(dir, `${key}.json`));
}

interface SymbolWork {
  readonly plan: SymbolPlan;
  readonly reached: readonly string[];
  readonly order: Mutant[];
  /** Runs under way. */
  running: number;
  /**
   * The places of the order decided so far, in order: [0, decided) each ran and counted, or
   * was left out (no open test, moot, deferred). A place is decided from the places before it
   * alone, never from a run that happened to end first, so the runs that count are the same
   * with any number of workers and any timing.
   */
  decided: number;
  /** The behavioural places that may be put off: those of the seeded order (not given back). */
  readonly planned: number;
  /** Mutants handed out since the last restart, by id (under way or finished). */
  readonly started: Set<string>;
  /** Finished runs, by mutant id, against every reaching test: counted when their place is decided. */
  readonly raw: Map<string, MutantRun>;
  /** The revert and null mutants not yet counted. */
  pending: number;
  /** The runs that count, by their place in the order (failed and ran against: the place's open tests). */
  readonly runs: (MutantRun | undefined)[];
  readonly killers: Set<string>;
  readonly earners: Set<string>;
  readonly nullFailed: Set<string>;
  nullBroken: boolean;
  /** Behavioural mutants put off while the credit looked settled (mayDefer), by their place in the order. */
  readonly deferred: number[];
  /** The seeded order as given (restart goes back to it). */
  readonly initial: readonly Mutant[];
  /** Bumped by restart: a run taken before it is no evidence. */
  gen: number;
}

export interface JudgingJob {
  readonly symbol: string;
  readonly m: Mutant;
  /** The tests to run it against: every test that reaches the symbol (the queue counts the run on its place's open tests). */
  readonly against: readonly string[];
  /** Its place in the order when handed out. */
  readonly at: number;
  /** The symbol's generation when the run was taken (see restart). */
  readonly gen: number;
  /** Taken ahead of its place's decision (it may turn out not to be needed). */
  readonly ahead: boolean;
}

/** A symbol's judging work: its plan, the tests that reach it, and its seeded order. */
export interface JudgingItem {
  readonly plan: SymbolPlan;
  readonly reached: readonly string[];
  readonly order: readonly Mutant[];
}

/**
 * The judging runs of every symbol, handed out one at a time (pure: no run is made here).
 * Each symbol's order is decided place by place, each place from the runs before it only:
 * a behavioural mutant with no test left to fail is left out, one is put off once a clean
 * test earned the symbol (mayDefer), and a symbol whose order is decided without settling its
 * credit gets its deferred mutants back. So the runs that count, and the credit, are those one
 * worker would get, whatever the number of workers and whichever run ends first.
 *
 * `take` hands out, from the symbol with the fewest runs under way: first the run its next
 * undecided place needs, then any revert or null mutant not yet started (they always count);
 * and, where a worker would otherwise wait, a behavioural mutant ahead of its place's decision
 * while the credit is not settled and its symbol's revert (if it has one) has ended failing no
 * test, so the mutant is likely needed. A run taken ahead counts only if its place, decided in
 * turn, needs it. `finish` records a run's result.
 */
export class JudgingQueue {
  /** Runs left out because every reaching test had already failed. */
  skipped = 0;
  /** Behavioural mutants left out because only the revert can earn their symbol (require "revert", a modified symbol). */
  moot = 0;

  readonly symbols: SymbolWork[] = [];

  constructor(
    items: readonly JudgingItem[],
    private readonly require: 'change' | 'revert',
    private readonly ahead = true,
  ) {
    for (const i of items) this.add(i);
  }

  /**
   * A symbol whose reaching tests are now known joins the queue (its runs are decided from its
   * own runs alone, so when it joins changes which worker makes them, never what counts).
   */
  add(i: JudgingItem): SymbolWork {
    if (this.symbols.some((w) => w.plan.symbol === i.plan.symbol))
      throw new Error(`internal: ${i.plan.symbol} is already queued`);
    const w: SymbolWork = {
      plan: i.plan,
      reached: i.reached,
      order: [...i.order],
      running: 0,
      decided: 0,
      planned: i.order.length,
      started: new Set(),
      raw: new Map(),
      pending: i.order.filter((m) => m.kind === 'null' || m.kind === 'revert').length,
      runs: [],
      killers: new Set(),
      earners: new Set(),
      nullFailed: new Set(),
      nullBroken: false,
      deferred: [],
      initial: [...i.order],
      gen: 0,
    };
    this.symbols.push(w);
    this.advance(w);
    return w;
  }

  /** How many runs at most. */
  get size(): number {
    return this.symbols.reduce((n, w) => n + w.order.length, 0);
  }

  /** Deferred mutants that never had to run. */
  get deferredLeft(): number {
    return this.symbols.reduce((n, w) => n + w.deferred.length, 0);
  }

  /** Runs made ahead of their place's decision that did not count. */
  get unused(): number {
    let n = 0;
    for (const w of this.symbols) {
      const counted = new Set(w.runs.filter((r): r is MutantRun => r !== undefined).map((r) => r.mutant.id));
      for (const id of w.raw.keys()) if (!counted.has(id)) n++;
    }
    return n;
  }

  /**
   * Could a run under way still lead to more runs (a place it decides, deferred mutants it
   * gives back)? Not once a symbol's places are all decided and its credit settled: a run of
   * it still under way was taken ahead and changes nothing.
   */
  mayGiveBack(): boolean {
    return this.symbols.some(
      (w) => w.running > 0 && (w.decided < w.order.length || (w.deferred.length > 0 && !isSettled(w))),
    );
  }

  private moots(w: SymbolWork, m: Mutant): boolean {
    return m.kind === 'behavioural' && this.require === 'revert' && w.plan.change !== 'added';
  }

  /** Decide the symbol's places in order, as far as the runs that ended allow. */
  private advance(w: SymbolWork): void {
    for (;;) {
      if (w.decided >= w.order.length) {
        if (w.deferred.length === 0 || isSettled(w)) return;
        // Decided to its end without settling: the deferred mutants come back, in their order.
        w.order.push(...w.deferred.map((i) => w.order[i] as Mutant));
        w.deferred.length = 0;
        continue;
      }
      const at = w.decided;
      const m = w.order[at] as Mutant;
      let open: readonly string[] = w.reached;
      if (m.kind === 'behavioural') {
        open = w.reached.filter((t) => !w.killers.has(t));
        if (open.length === 0) {
          this.skipped++;
          w.decided++;
          continue;
        }
        // Under require "revert" a modified symbol is earned by a kill of its revert only: a
        // behavioural kill counts for nothing (score.ts), so its behavioural mutants need not run.
        if (this.moots(w, m)) {
          this.moot++;
          w.decided++;
          continue;
        }
        // Deferred once at most: a mutant given back runs.
        if (at < w.planned && mayDefer(w)) {
          w.deferred.push(at);
          w.decided++;
          continue;
        }
      }
      const r = w.raw.get(m.id);
      if (r === undefined) return;
      this.count(w, at, r, open);
      w.decided++;
    }
  }

  /** Count a run at its place, on the place's open tests. */
  private count(w: SymbolWork, at: number, raw: MutantRun, open: readonly string[]): void {
    const inOpen = new Set(open);
    const r: MutantRun = {
      ...raw,
      failed: raw.failed.filter((t) => inOpen.has(t)),
      ranAgainst: raw.ranAgainst.filter((t) => inOpen.has(t)),
    };
    w.runs[at] = r;
    if (r.mutant.kind === 'null') {
      w.pending--;
      if (r.status !== 'ok') w.nullBroken = true;
      else for (const t of r.failed) w.nullFailed.add(t);
      return;
    }
    if (r.mutant.kind === 'revert') w.pending--;
    if (r.status !== 'ok') return;
    for (const t of r.failed) w.killers.add(t);
    if (r.mutant.kind === 'revert' || this.require === 'change' || w.plan.change === 'added')
      for (const t of r.failed) w.earners.add(t);
  }

  private hand(w: SymbolWork, at: number, ahead: boolean): JudgingJob {
    const m = w.order[at] as Mutant;
    w.started.add(m.id);
    w.running++;
    return { symbol: w.plan.symbol, m, against: w.reached, at, gen: w.gen, ahead };
  }

  take(): JudgingJob | null {
    const bySlack = [...this.symbols].sort((a, b) => a.running - b.running);
    // What counts for sure: the next undecided place's run, then any revert or null mutant.
    for (const w of bySlack) {
      if (w.decided >= w.order.length) continue;
      if (!w.started.has((w.order[w.decided] as Mutant).id)) return this.hand(w, w.decided, false);
      for (let at = w.decided + 1; at < w.order.length; at++) {
        const m = w.order[at] as Mutant;
        if ((m.kind === 'null' || m.kind === 'revert') && !w.started.has(m.id)) return this.hand(w, at, false);
      }
    }
    if (!this.ahead) return null;
    // Ahead of its decision: a behavioural mutant of a symbol whose revert has ended (or that
    // has none) with the credit not settled, so the mutant is likely needed.
    for (const w of bySlack) {
      if (w.decided >= w.order.length || mayDefer(w)) continue;
      const revert = w.order.find((m) => m.kind === 'revert');
      const reverted = revert === undefined ? undefined : w.raw.get(revert.id);
      // Its revert still running, or killed (the credit will likely settle): wait for the decision.
      if (revert !== undefined && (reverted === undefined || (reverted.status === 'ok' && reverted.failed.length > 0)))
        continue;
      for (let at = w.decided + 1; at < w.order.length; at++) {
        const m = w.order[at] as Mutant;
        if (m.kind === 'behavioural' && !this.moots(w, m) && !w.started.has(m.id)) return this.hand(w, at, true);
      }
    }
    return null;
  }

  /**
   * Start the symbol's judging runs again from the first (its runs so far, and those still
   * under way, count for nothing): they were made with a command that left out a reaching
   * test, and every run of a symbol must be made with the same command. Returns the work.
   */
  restart(symbol: string): SymbolWork {
    const w = this.work(symbol);
    w.gen++;
    w.order.length = 0;
    w.order.push(...w.initial);
    w.decided = 0;
    w.started.clear();
    w.raw.clear();
    w.pending = w.initial.filter((m) => m.kind === 'null' || m.kind === 'revert').length;
    w.runs.length = 0;
    w.killers.clear();
    w.earners.clear();
    w.nullFailed.clear();
    w.nullBroken = false;
    w.deferred.length = 0;
    this.advance(w);
    return w;
  }

  private work(symbol: string): SymbolWork {
    const w = this.symbols.find((x) => x.plan.symbol === symbol);
    if (w === undefined) throw new Error(`internal: no judging work for ${symbol}`);
    return w;
  }

  finish(job: JudgingJob, r: MutantRun): void {
    const w = this.work(job.symbol);
    w.running--;
    if (job.gen !== w.gen) return;
    w.raw.set(job.m.id, r);
    this.advance(w);
  }
}

/**
 * The seeded order of a symbol's judging runs, the same for the same seed. The null mutants sit
 * where a seeded shuffle of every run puts them, so each is as likely to come first as any other
 * run; the slots left hold the real mutants, the revert first and then the behavioural ones in
 * the seed's order. Under `require: "change"` any real mutant's kill earns the symbol, so no
 * test gains by knowing which real mutant a slot holds: what a test could exploit (telling a
 * null run from the others by its place) is exactly what a shuffle of every run gives. Putting
 * the revert first means a tested change is usually settled by its revert and its null mutant,
 * and its behavioural mutants never have to run (mayDefer). Where only the revert can earn
 * (require "revert" on a modified symbol; its behavioural mutants are moot), the revert and the
 * null mutants are shuffled among themselves, so a null is as likely as the revert to come first.
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

/**
 * The mutation oracle. 1: one tracing run (it never judges) tells which tests enter which
 * symbol. 2: the unmutated control, in a fresh copy. 3: one probe per symbol on the traced
 * tests; the tests that fail are those that reach it. 4: per symbol, its revert, its null
 * mutant and its behavioural mutants in a seeded order, each on the reaching tests. 5: the
 * unmutated control again. With fewer symbols than workers, 1 and 3 are one round: every
 * probe runs whole beside the control, and no trace (it only narrows the probes). Every
 * judging run (2, 4, 5) is made the same way: a fresh copy of the tree at the one fixed path,
 * the same environment, through runTestCommand. Every result is cached.
 */
/** How many judging runs the plans hold at most: every revert, null and behavioural mutant. */
function judgingRuns(plans: readonly SymbolPlan[]): number {
  return plans.reduce((n, p) => n + p.mutants.length + p.nulls.length + (p.revert ? 1 : 0), 0);
}

export async function runOracle(plans: readonly SymbolPlan[], opts: OracleOptions): Promise<OracleResult> {
  const now = opts.now ?? (() => performance.now());
  const t0 = now();
  const scratch = makeScratch();
  const originals = new Map<string, string>();
  const original = (path: string): string => {
    let t = originals.get(path);
    if (t === undefined) {
      t = readFileSync(join(opts.workTree, path), 'utf8');
      originals.set(path, t);
    }
    return t;
  };
  let mutantsRun = 0;
  let mutantsCached = 0;
  let mutantsSettled = 0;
  let mutantsAhead = 0;
  let done = 0;
  const slots = Math.max(1, opts.workers);
  let total = 2 + plans.length + judgingRuns(plans) + 1;
  let kills = 0;
  let phase: Progress['phase'] = 'control';
  const report = (): void => {
    const elapsedMs = now() - t0;
    opts.progress?.({
      phase,
      done,
      total,
      kills,
      elapsedMs,
      etaMs: done > 0 ? (elapsedMs / done) * (total - done) : null,
    });
  };
  // Every run after the first control uses one environment: with fastEnv, or (dropped) without.
  let fast: 'kept' | 'dropped' | null = opts.fastEnv ? 'kept' : null;
  let env: Readonly<Record<string, string>> = opts.fastEnv ? { ...opts.env, ...opts.fastEnv } : opts.env;
  const key: Keyer = (what, selection, edits) =>
    keyer(opts.cacheSalt, opts.command, fast === 'kept' ? env : null)(what, selection, edits);
  /** The one copy of the tree every run is copied from (never run in, never changed): the sandbox gives each run a fresh copy at one fixed path. */
  let base: Workspace | undefined;
  const baseRoot = (): string =>
    (base ??= makeWorkspace(opts.workTree, scratch.dir, opts.depsFrom ?? opts.workTree)).root;

  /**
   * The runner caches the first control left in its TMPDIR (jest's and tsx's transform caches:
   * keepRunnerCaches), or null: every run after the first round starts with a copy of them, so
   * none transforms the files no mutant changes again. Every one of those runs starts with the
   * same copy, so no test can tell a null run from a real one by it.
   */
  const warmDir = join(scratch.dir, 'runner-caches');
  let warm: string | null = null;
  /** One run on a fresh copy; `failed` is the tests of the report that failed or errored. */
  // `slot` is the worker; every run, whichever worker makes it, sees the same path inside the sandbox.
  const runFresh = async (
    _slot: number,
    files: ReadonlyMap<string, string>,
    command: readonly string[],
    env: Readonly<Record<string, string>>,
    timeoutMs: number,
    logDir: string,
  ): Promise<TestRun> =>
    runTestCommand(baseRoot(), command, opts.junit, env, timeoutMs, logDir, opts.sandbox, { files, seedTmp: warm });

  /** `made`: this very run, made ahead (a probe beside the sealed run, AheadRound), taken instead of running it. */
  const runMutant = async (
    m: Mutant,
    command: readonly string[],
    timeoutMs: number,
    against: readonly string[],
    slot: number,
    logDir: string,
    made?: TestRun,
  ): Promise<MutantRun> => {
    const k = key(m.id, command, m.edits);
    const hit = readCache(opts.cacheDir, k);
    const open = new Set(against);
    if (hit) {
      mutantsCached++;
      return {
        mutant: m,
        status: hit.status,
        detail: hit.detail,
        failed: hit.failed.filter((t) => open.has(t)),
        ranAgainst: ranOf(hit.status, against, hit.ran),
        cached: true,
        command,
      };
    }
    const run =
      (m.kind === 'probe' ? asMadeWithin(made, timeoutMs) : null) ??
      (await runFresh(
        slot,
        new Map([[m.path, applyEdits(original(m.path), m.edits)]]),
        command,
        env,
        timeoutMs,
        logDir,
      ));
    mutantsRun++;
    const found = toFailures(run, against, run.cwd, command, opts.filesOf);
    // Invalid is never a kill: a load failure from a mutant the runner could not compile is a crash.
    const seen =
      m.kind === 'behavioural' || m.kind === 'revert'
        ? checkRuntimeValidity(
            found,
            new Set(run.cases.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => c.id)),
            readLogs(logDir),
            m.path,
          )
        : found;
    const ran = ranAgainst(run, against, seen);
    writeCache(opts.cacheDir, k, {
      status: seen.status,
      detail: seen.detail,
      failed: seen.failed,
      durationMs: run.durationMs,
      ran,
    });
    return {
      mutant: m,
      status: seen.status,
      detail: seen.detail,
      failed: seen.failed.filter((t) => open.has(t)),
      ranAgainst: ran,
      cached: false,
      command,
    };
  };

  let bytecode: PrecompileResult | null = null;
  let prepared: PreparedBase | null = null;
  try {
    // 0. Byte code for every Python file of the base copy that no run changes, before any run:
    // every judging run then finds the same __pycache__ (none for a file a mutant changes), and
    // none compiles the rest again (pycache.ts). pytest's rewritten byte code holds the file's
    // path, so it is made only where every run has the same working directory (the sandbox's).
    const byteCode = byteCodeFor(plans.map((p) => p.path));
    const ready = opts.prepared === undefined ? null : await opts.prepared;
    if (byteCode !== null && opts.precompile !== false) {
      const cwd = opts.sandbox.isolation === 'bwrap' ? SANDBOX_WORK : null;
      const depsFrom = opts.depsFrom ?? opts.workTree;
      // Made ahead from the very inputs this step would use (the copy's config files are the tree's): that copy is the base.
      if (
        ready !== null &&
        ready.made ===
          preparedKey(
            opts.workTree,
            depsFrom,
            byteCode.files,
            cwd,
            byteCode.step.configured(ready.root, [...opts.command, ...Object.values(env)]),
          )
      ) {
        prepared = ready;
        base = { root: ready.root, dispose: ready.dispose };
        bytecode = ready.bytecode;
      } else {
        const root = baseRoot();
        bytecode = await byteCode.step.precompile(root, byteCode.files, {
          cwd,
          noRewrite: byteCode.step.configured(root, [...opts.command, ...Object.values(env)]),
        });
        // The folders and files made now get the tree's one time too (core/times.ts).
        stampTree(root);
      }
    }
    // The first round made ahead (AheadRound): taken only when made from every input this round
    // would use, the base copy included; otherwise ended now, before its copy can go.
    let ahead: AheadRound | null = null;
    let aheadUse: OracleResult['ahead'] = null;
    let aheadRuns: ReadonlyMap<string, Cached> | null = null;
    let aheadProbes: ReadonlyMap<string, TestRun> | null = null;
    if (opts.ahead !== undefined) {
      ahead = await opts.ahead.catch(() => null);
      const made = ahead === null ? null : await ahead.made;
      if (ahead !== null && made !== null && made === aheadKey(opts, prepared?.made ?? null)) {
        aheadRuns = await ahead.runs;
        if (aheadRuns !== null) aheadProbes = await ahead.probes;
      }
      if (aheadRuns === null) await ahead?.cancel();
      aheadUse = aheadRuns !== null ? 'used' : ahead !== null ? 'ended' : null;
    }
    if (prepared === null) ready?.dispose();
    // 1. The trace: an entry recorder in every changed symbol (it only appends to a file outside
    // the copy) tells which test files (or pytest tests) enter each symbol, so each probe runs
    // only those. It never judges a test.
    report();
    // 2. The control: the unmutated suite, made like every mutant run. It and the trace are
    // independent: with two workers or more they run side by side.
    const round = (): RoundRuns => ({
      opts,
      env,
      key,
      baseRoot,
      scratch: scratch.dir,
      keepTmp: warmDir,
      ...(aheadRuns !== null ? { ahead: aheadRuns } : {}),
    });
    const runControl = (): Promise<Ran> => controlRun(round());
    const known =
      opts.filesOf === undefined
        ? null
        : new Set([...opts.eligible].flatMap((id) => (opts.filesOf as (t: string) => readonly string[])(id)));
    const runTrace = (): Promise<Traced> => traceRun(plans, round(), known);
    // Early probes: the control and every probe (whole, against every eligible test: the usable
    // ones are known only after the control) side by side, and no trace.
    // Made ahead, the first round is the one the prelude made: the probes where it made them (earlyRound), else the trace.
    const early =
      (aheadRuns === null || aheadProbes !== null) && (opts.earlyProbes ?? true) && earlyRound(plans.length, slots);
    const earlyTimeoutMs = mutantTimeoutMs(opts.baselineMs, opts.baselineMs, opts.timeoutFactor);
    const runEarlyProbes = async (): Promise<Map<string, MutantRun>> => {
      const out = new Map<string, MutantRun>();
      await Promise.all(
        plans.map(async (p, i) => {
          const logDir = mkdtempSync(join(scratch.dir, `probe-${i}-`));
          out.set(
            p.symbol,
            await runMutant(
              p.probe,
              opts.command,
              earlyTimeoutMs,
              [...opts.eligible].sort(),
              i + 1,
              logDir,
              aheadProbes?.get(key(p.probe.id, opts.command, p.probe.edits)),
            ),
          );
        }),
      );
      return out;
    };
    const firstRound = async (): Promise<FirstRound> => {
      if (early) {
        const [earlyRuns, control] = await Promise.all([runEarlyProbes(), runControl()]);
        return { traced: { control, reach: null }, control, earlyRuns };
      }
      if (slots >= 2) {
        const [traced, control] = await Promise.all([runTrace(), runControl()]);
        return { traced, control, earlyRuns: null };
      }
      const traced = await runTrace();
      return { traced, control: await runControl(), earlyRuns: null };
    };
    if (early) total += plans.length - 1;
    let first = await firstRound();
    // fastEnv only stays when it changed nothing the sealed run showed: every eligible test passed.
    const passed = new Set(first.control.failed);
    if (fast === 'kept' && !(first.control.status === 'ok' && [...opts.eligible].every((t) => passed.has(t)))) {
      fast = 'dropped';
      env = opts.env;
      // The runner caches came from a run made the other way: the control made again keeps its own, or none.
      rmSync(warmDir, { recursive: true, force: true });
      total += early ? plans.length + 1 : 2;
      first = await firstRound();
    }
    const { traced, control, earlyRuns } = first;
    if (existsSync(warmDir)) warm = warmDir;
    // For the control, `failed` holds the tests that passed.
    const usable = new Set(control.status === 'ok' ? control.failed.filter((t) => opts.eligible.has(t)) : []);
    done += early ? 1 + plans.length : 2;
    const controlOut = {
      status: control.status,
      detail: control.detail,
      durationMs: control.durationMs,
      cached: control.cached,
    };
    if (control.status !== 'ok' || usable.size === 0) {
      phase = 'done';
      total = done;
      report();
      return {
        control: controlOut,
        usable,
        probes: new Map(),
        traced: new Map(),
        mutants: new Map(),
        after: null,
        mutantsRun,
        mutantsCached,
        mutantsSettled,
        mutantsAhead,
        fastEnv: fast,
        bytecode,
        ahead: aheadUse,
      };
    }
    const timeoutMs = mutantTimeoutMs(opts.baselineMs, control.durationMs, opts.timeoutFactor);
    const times = control.times;
    const behaviouralTimeout = (tests: readonly string[]): number =>
      times === undefined
        ? timeoutMs
        : behaviouralTimeoutMs(control.durationMs, times, tests, timeoutMs, opts.timeoutFactor);
    const reach = traced.reach;

    // 3. Probes: the tests that fail when the symbol throws on entry are the tests that reach it.
    // Where the trace named them (pytest node ids; jest and vitest tests by file and name, or
    // every test of a file it loaded in: testsOfTargetsFor), those are the reaching tests and no
    // probe runs; the probe stays for a symbol the trace could not tell (node:test files, an
    // unknown test), and runs after all for one only its probe can credit (no valid mutant, no
    // revert: known once the mutants are checked, joinReady below).
    phase = 'probes';
    const probes = new Map<string, MutantRun>();
    const tracedReach = new Map<string, readonly string[]>();
    const usableSorted = [...usable].sort();
    const fromTrace = (p: SymbolPlan): string[] | null => {
      const targets = reach?.get(p.symbol);
      if (targets === null || targets === undefined || targets.size === 0 || opts.testsOfTargets === undefined)
        return null;
      const tests = opts.testsOfTargets([...targets].sort(), usableSorted);
      return tests !== null && tests.length > 0 ? tests : null;
    };
    if (earlyRuns !== null) {
      // They ran against every eligible test: only the usable ones count (as a narrowed probe's would).
      for (const [sym, r] of earlyRuns) {
        const run = {
          ...r,
          failed: r.failed.filter((t) => usable.has(t)),
          ranAgainst: r.ranAgainst.filter((t) => usable.has(t)),
        };
        probes.set(sym, run);
        if (run.failed.length > 0) kills++;
      }
      report();
    }
    if (earlyRuns === null) {
      for (const p of plans) {
        const tests = fromTrace(p);
        if (tests === null) continue;
        tracedReach.set(p.symbol, tests);
        done++;
      }
      if (tracedReach.size > 0) report();
    }
    // 4. Per symbol, in the seed's order: its revert, null and behavioural mutants, every one
    // with the same command (narrowed to the symbol's reaching tests by name where each can be
    // named exactly, else by file), so no test can tell a mutant run from a null one by its
    // command line; a run by name that leaves out a reaching test starts the symbol again by
    // file. A behavioural mutant counts only on the reaching tests that have not yet failed on
    // one of the symbol's mutants, and once every reaching test has, the rest are not needed.
    // Once a clean test has earned the symbol (mayDefer), the remaining behavioural mutants
    // wait; they run after all unless the revert and the null mutants leave the credit settled.
    // Tautologies never count, so they are not run.
    // The probes and the judging runs share the workers: a worker takes a probe not yet
    // started, else a judging run of a symbol whose reaching tests are known (its probe ended
    // or the trace named them) and whose mutants are checked; each takes the next run of the
    // symbol with the fewest runs under way. When a symbol joins changes which worker makes its
    // runs, never which runs count (each symbol's are decided from its own runs alone).
    const queue = new JudgingQueue(
      [],
      opts.require ?? 'change',
      // Runs ahead of their decision only where results take time: a control from the cache is a
      // rerun, whose runs that count all come from the cache, and one taken ahead could be a new run.
      !control.cached,
    );
    // One command per symbol: by name where every reaching test can be named exactly, else by file.
    const commands = new Map<string, { command: readonly string[]; strict: boolean }>();
    // The plans with their valid mutants (checked while the runs above go on), else the plans as given.
    let judgedPlans: readonly SymbolPlan[] | null = opts.judged ? null : plans;
    let judgedError: { error: unknown } | null = null;
    const waiters: (() => void)[] = [];
    const wakeAll = (): void => {
      for (const wake of waiters.splice(0)) wake();
    };
    const joined = new Set<string>();
    /** Queue every symbol whose reaching tests and checked mutants are both known. */
    const joinReady = (): void => {
      if (judgedPlans === null) return;
      for (const p of judgedPlans) {
        if (joined.has(p.symbol)) continue;
        const probed = probes.get(p.symbol);
        // One only its probe can credit (no valid mutant, no revert) gets its probe after all.
        if (probed === undefined && p.mutants.length === 0 && p.revert === null && tracedReach.has(p.symbol)) {
          if (!probeLater.has(p.symbol)) {
            probeLater.add(p.symbol);
            probeJobs.push(p);
            total++;
          }
          continue;
        }
        const known = probed?.failed ?? tracedReach.get(p.symbol);
        if (known === undefined) continue;
        joined.add(p.symbol);
        const reached = known.filter((t) => !opts.ignore.has(t));
        if (reached.length === 0) {
          total -= judgingRuns([p]);
          continue;
        }
        const w = queue.add({
          plan: p,
          reached,
          order: judgingOrder(
            opts.seed,
            [...(p.revert ? [p.revert] : []), ...p.nulls, ...p.mutants],
            (opts.require ?? 'change') === 'revert' && p.change !== 'added' ? 'revert-and-nulls' : 'all',
          ),
        });
        const byName = opts.narrowByName?.(w.reached) ?? null;
        commands.set(p.symbol, { command: byName ?? opts.narrow(w.reached) ?? opts.command, strict: byName !== null });
      }
      if (joined.size === judgedPlans.length) report();
    };
    if (opts.judged) {
      opts.judged.then(
        (ps) => {
          judgedPlans = ps;
          total += judgingRuns(ps) - judgingRuns(plans);
          joinReady();
          wakeAll();
        },
        (error: unknown) => {
          judgedError = { error };
          wakeAll();
        },
      );
    }
    const probeJobs = earlyRuns !== null ? [] : plans.filter((p) => !tracedReach.has(p.symbol));
    const probeLater = new Set<string>();
    joinReady();
    let probesRunning = 0;
    const runProbe = async (p: SymbolPlan, slot: number, logDir: string): Promise<void> => {
      const targets = reach?.get(p.symbol);
      let r: MutantRun;
      if (targets?.size === 0) {
        r = {
          mutant: p.probe,
          status: 'ok',
          detail: 'no test entered it in the trace run',
          failed: [],
          ranAgainst: [],
          cached: false,
        };
      } else {
        const command = targets
          ? (opts.narrowTargets([...new Set([...targets].map((t) => t.split('\t')[0] as string))].sort()) ??
            opts.command)
          : opts.command;
        r = await runMutant(p.probe, command, timeoutMs, [...usable].sort(), slot, logDir);
      }
      probes.set(p.symbol, r);
      done++;
      if (r.failed.length > 0) kills++;
      report();
    };
    // 5. The control again, once the last mutant has started (the first worker with no run
    // left makes it): a test that passed the first control only because it was the first run (a
    // marker file, a counter) fails here. Every run sees the same path and shares nothing with
    // the others, so one run is enough. By name where every reaching test can be named, by file
    // otherwise or when the run by name left one out; a reaching test it did not run again
    // earns nothing.
    const afterRun: { p: Promise<OracleResult['after']> | null } = { p: null };
    const runAfter = async (
      reachedAll: readonly string[],
      slot: number,
      logDir: string,
    ): Promise<OracleResult['after']> => {
      const once = async (
        command: readonly string[],
      ): Promise<{
        status: RunStatus;
        detail: string;
        failed: readonly string[];
        ran: readonly string[];
        durationMs: number;
        cached: boolean;
      }> => {
        const ak = key('control-after-0', command, []);
        const hitA = readCache(opts.cacheDir, ak);
        let r;
        if (hitA) r = { ...hitA, ran: ranOf(hitA.status, reachedAll, hitA.ran), cached: true };
        else {
          const run = await runFresh(slot, new Map(), command, env, timeoutMs, logDir);
          const seen = toFailures(run, reachedAll, run.cwd, command, opts.filesOf);
          writeCache(opts.cacheDir, ak, {
            status: seen.status,
            detail: seen.detail,
            failed: seen.failed,
            durationMs: run.durationMs,
            ran: seen.ran,
          });
          r = {
            status: seen.status,
            detail: seen.detail,
            failed: seen.failed,
            ran: ranOf(seen.status, reachedAll, seen.ran),
            durationMs: run.durationMs,
            cached: false,
          };
        }
        done++;
        report();
        return r;
      };
      const byName = opts.narrowByName?.(reachedAll) ?? null;
      let r = byName !== null ? await once(byName) : null;
      if (r !== null && r.status === 'ok' && r.ran.length < reachedAll.length) {
        total++;
        r = null;
      }
      r ??= await once(opts.narrow(reachedAll) ?? opts.command);
      const ran = new Set(r.ran);
      const unseen = r.status === 'ok' ? reachedAll.filter((t) => !ran.has(t)) : [];
      const inReach = new Set(reachedAll);
      return {
        status: r.status,
        detail:
          r.status === 'ok'
            ? `1 run(s) clean${unseen.length > 0 ? `; ${unseen.length} reaching test(s) did not run again` : ''}`
            : r.detail,
        durationMs: r.durationMs,
        cached: r.cached,
        failed: [...new Set([...r.failed, ...unseen])].filter((t) => inReach.has(t)).sort(),
        ranAgainst: reachedAll,
      };
    };
    await Promise.all(
      Array.from({ length: slots }, async (_, slot) => {
        const logDir = mkdtempSync(join(scratch.dir, `log-m${slot}-`));
        for (;;) {
          if (judgedError !== null) throw judgedError.error;
          const p = probeJobs.shift();
          if (p !== undefined) {
            probesRunning++;
            try {
              await runProbe(p, slot, logDir);
            } finally {
              probesRunning--;
            }
            joinReady();
            wakeAll();
            continue;
          }
          const job = queue.take();
          if (job === null) {
            // A probe under way, mutants not yet checked, or a symbol still running that may
            // give its deferred mutants back: wait for one of them.
            if (probesRunning > 0 || judgedPlans === null || queue.mayGiveBack()) {
              await new Promise<void>((wake) => waiters.push(wake));
              continue;
            }
            const reachedAll = [...new Set(queue.symbols.flatMap((w) => w.reached))].sort();
            if (afterRun.p === null && reachedAll.length > 0) {
              afterRun.p = runAfter(reachedAll, slot, logDir);
              await afterRun.p;
            }
            // This worker is done: one still waiting has nothing left to wait for either.
            wakeAll();
            return;
          }
          phase = 'mutants';
          const c = commands.get(job.symbol);
          if (c === undefined) throw new Error(`internal: no command for ${job.symbol}`);
          // The command runs every reaching test (job.against), so the timeout is theirs; the queue counts the run on its place's open ones.
          const r = await runMutant(
            job.m,
            c.command,
            job.m.kind === 'behavioural' ? behaviouralTimeout(job.against) : timeoutMs,
            job.against,
            slot,
            logDir,
          );
          if (
            c.strict &&
            r.status === 'ok' &&
            r.ranAgainst.length < job.against.length &&
            commands.get(job.symbol) === c
          ) {
            // A run by name left out a reaching test: the symbol starts again by file, and the
            // runs made so far (this one too) are spent on top of its total.
            const w = queue.restart(job.symbol);
            commands.set(job.symbol, { command: opts.narrow(w.reached) ?? opts.command, strict: false });
            total += w.initial.length;
          }
          queue.finish(job, r);
          done++;
          if (r.status === 'ok' && r.failed.length > 0 && job.m.kind !== 'null') kills++;
          report();
          wakeAll();
        }
      }),
    );
    total -= queue.skipped + queue.moot;
    mutantsSettled = queue.deferredLeft + queue.moot;
    mutantsAhead = queue.unused;
    const results = new Map<string, MutantRun[]>(
      queue.symbols.map((w) => [w.plan.symbol, w.runs.filter((r): r is MutantRun => r !== undefined)]),
    );

    const after = afterRun.p === null ? null : await afterRun.p;
    total = done;
    phase = 'done';
    report();
    return {
      control: controlOut,
      usable,
      probes,
      traced: tracedReach,
      mutants: results,
      after,
      mutantsRun,
      mutantsCached,
      mutantsSettled,
      mutantsAhead,
      fastEnv: fast,
      bytecode,
      ahead: aheadUse,
    };
  } finally {
    prepared?.dispose();
    scratch.dispose();
  }
}

/**
 * The tests of `against` a run really ran: those its report shows ran (or failed to load).
 * A run that did not end in a usable report ran against all of them as far as anyone can tell
 * (it is no kill either way).
 */
function ranOf(status: RunStatus, against: readonly string[], ran: readonly string[] | undefined): readonly string[] {
  if (status !== 'ok' || ran === undefined) return against;
  const seen = new Set(ran);
  return against.filter((t) => seen.has(t));
}

/**
 * The tests a run failed, reaching through load failures: a test file that failed to load
 * (node:test's failed case named for the file, a jest or vitest suite failure, a pytest
 * collection error) failed every test it holds that the report leaves out; a run the runner's
 * adapter tells was a load failure (loadFailureOf) failed every test it was asked to run, or
 * every test of the file that failed.
 */
export function toFailures(
  run: TestRun,
  against: readonly string[],
  root: string,
  command: readonly string[],
  filesOf?: (testId: string) => readonly string[],
): { status: RunStatus; detail: string; failed: string[]; ran: string[] } {
  if (run.status !== 'ok') {
    const load = loadFailureOf(run, command);
    if (load === null) return { status: run.status, detail: run.detail, failed: [], ran: [] };
    const file = load.file;
    const held =
      file === null || filesOf === undefined ? [...against] : against.filter((t) => filesOf(t).includes(file));
    return { status: 'ok', detail: load.detail, failed: held, ran: held };
  }
  // A report without a single case (a selection that matched no test file) ran nothing: it failed no test, and passed none either.
  if (run.cases.length === 0)
    return {
      status: 'crash',
      detail: `${run.detail}, but the report holds no test case: the command ran no test`,
      failed: [],
      ran: [],
    };
  const failed = run.cases.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => c.id);
  const ran = run.cases.filter((c) => c.status !== 'skipped').map((c) => c.id);
  if (filesOf === undefined) return { status: 'ok', detail: run.detail, failed, ran };
  const reported = new Set(run.cases.map((c) => c.id));
  const known = new Set(against.flatMap((t) => filesOf(t)));
  const broken = new Set<string>();
  const rel = (x: string): string => {
    const y = x.replace(/\\/g, '/');
    return isAbsolute(y) ? relative(root, y).split(sep).join('/') : y.replace(/^\.\//, '');
  };
  for (const c of run.cases) {
    if (c.status !== 'failed' && c.status !== 'error') continue;
    for (const cand of [c.file, c.name, c.suite, ...loadFailureFiles(c)]) {
      if (cand === null || cand === '') continue;
      const r = rel(cand);
      if (known.has(r)) broken.add(r);
    }
  }
  const extra =
    broken.size === 0 ? [] : against.filter((t) => !reported.has(t) && filesOf(t).some((f) => broken.has(f)));
  return {
    status: 'ok',
    detail: extra.length > 0 ? `${run.detail}; ${[...broken].sort().join(', ')} failed to load` : run.detail,
    failed: [...new Set([...failed, ...extra])],
    ran: [...new Set([...ran, ...extra])],
  };
}

/** The oracle's first round: the control, and the trace or (early probes) every probe. */
interface FirstRound {
  readonly traced: Traced;
  readonly control: Cached & { readonly cached: boolean };
  readonly earlyRuns: Map<string, MutantRun> | null;
}

type Ran = Cached & { readonly cached: boolean };

/** The cache key of a run: what it is, its edits, its command (or narrowed selection), and the environment when fastEnv is kept. */
type Keyer = (what: string, selection: readonly string[] | null, edits: unknown) => string;

function keyer(salt: string, command: readonly string[], env: Readonly<Record<string, string>> | null): Keyer {
  return (what, selection, edits) =>
    sha256Hex(
      JSON.stringify(['sealgate-credit-v4', salt, what, sha256Hex(JSON.stringify(edits)), selection ?? command, env]),
    );
}

/** What the first round's control and trace are made with. */
interface RoundRuns {
  readonly opts: Pick<OracleOptions, 'workTree' | 'command' | 'junit' | 'controlTimeoutMs' | 'sandbox' | 'cacheDir'>;
  readonly env: Readonly<Record<string, string>>;
  readonly key: Keyer;
  readonly baseRoot: () => string;
  readonly scratch: string;
  /** These very runs made ahead (AheadRound), by key: taken as this round's own runs. */
  readonly ahead?: ReadonlyMap<string, Cached>;
  /** Told of every run really made (not a cache hit, not taken from `ahead`, not ended by `signal`). */
  readonly made?: (key: string, v: Cached) => void;
  readonly signal?: AbortSignal;
  /** Where the control's runner caches go (keepRunnerCaches), for the runs after the first round. */
  readonly keepTmp?: string;
  /** The niceness of its runs (made ahead: they yield the cores to the sealed run). */
  readonly nice?: number;
}

/** A run's result, cached and told, unless `signal` ended it: then it is no result, and null. */
function keep(c: RoundRuns, key: string, v: Cached): Ran | null {
  if (c.signal?.aborted === true) return null;
  writeCache(c.opts.cacheDir, key, v);
  c.made?.(key, v);
  return { ...v, cached: false };
}

/** The unmutated control: the whole command in a fresh copy, made like every mutant run; `failed` holds the tests that passed. */
async function controlRun(c: RoundRuns): Promise<Ran> {
  const ck = c.key('control', null, []);
  const hit = readCache(c.opts.cacheDir, ck);
  if (hit) return { ...hit, cached: true };
  const ahead = c.ahead?.get(ck);
  if (ahead !== undefined) return { ...ahead, cached: false };
  const logDir = mkdtempSync(join(c.scratch, 'control-'));
  const run = await runTestCommand(
    c.baseRoot(),
    c.opts.command,
    c.opts.junit,
    c.env,
    c.opts.controlTimeoutMs,
    logDir,
    c.opts.sandbox,
    {
      files: new Map(),
      ...(c.signal ? { signal: c.signal } : {}),
      ...(c.keepTmp !== undefined ? { keepTmp: c.keepTmp } : {}),
      ...(c.nice !== undefined ? { nice: c.nice } : {}),
    },
  );
  const times = Object.fromEntries(run.cases.map((x) => [x.id, x.duration_ms] as const));
  const fresh = {
    status: run.status,
    detail: run.detail,
    failed: run.cases.filter((x) => x.status === 'passed').map((x) => x.id),
    durationMs: run.durationMs,
    times,
  };
  return keep(c, ck, fresh) ?? { ...fresh, cached: false };
}

interface Traced {
  /** The run as a control: `failed` holds the tests that passed. */
  readonly control: Ran;
  /**
   * Symbol to the test targets that entered it; null for a symbol means "entered, but the test
   * could not be told". The whole map is null when the run recorded nothing usable.
   */
  readonly reach: Map<string, Set<string> | null> | null;
}

/** The trace run (an entry recorder in every changed symbol; it never judges): `lines`, what it recorded, each target relative to the run's working directory. */
async function traceRecord(plans: readonly SymbolPlan[], c: RoundRuns): Promise<Ran> {
  const byPath = new Map<string, Edit[]>();
  for (const p of plans) byPath.set(p.path, [...(byPath.get(p.path) ?? []), ...p.trace]);
  const k = c.key(
    'trace',
    null,
    [...byPath].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
  );
  const hit = readCache(c.opts.cacheDir, k);
  if (hit) return { ...hit, lines: hit.lines ?? [], cached: true };
  const ahead = c.ahead?.get(k);
  if (ahead !== undefined) return { ...ahead, lines: ahead.lines ?? [], cached: false };
  // Its own run; the recorder appends to a file in the run's own /tmp, read after the run has ended.
  const logDir = mkdtempSync(join(c.scratch, 'trace-'));
  const files = new Map(
    [...byPath].map(([p, edits]) => [p, applyEdits(readFileSync(join(c.opts.workTree, p), 'utf8'), edits)] as const),
  );
  const run = await runTestCommand(
    c.baseRoot(),
    c.opts.command,
    c.opts.junit,
    c.env,
    c.opts.controlTimeoutMs,
    logDir,
    c.opts.sandbox,
    {
      trace: true,
      files,
      ...(c.signal ? { signal: c.signal } : {}),
      ...(c.nice !== undefined ? { nice: c.nice } : {}),
    },
  );
  const raw = (run.trace ?? '').split('\n').filter((l) => l !== '');
  const lines = run.status === 'ok' ? raw.map((l) => toTarget(l, run.cwd)) : [];
  const fresh = {
    status: run.status,
    detail: run.detail,
    failed: run.cases.filter((x) => x.status === 'passed').map((x) => x.id),
    durationMs: run.durationMs,
    lines,
  };
  return keep(c, k, fresh) ?? { ...fresh, cached: false };
}

/** The trace run and, per symbol, the test targets it saw enter it (toReach; `known`: the suite's test files). */
async function traceRun(
  plans: readonly SymbolPlan[],
  c: RoundRuns,
  known: ReadonlySet<string> | null,
): Promise<Traced> {
  const control = await traceRecord(plans, c);
  const lines = control.lines ?? [];
  if (control.status !== 'ok' || lines.length === 0) return { control, reach: null };
  return {
    control,
    reach: toReach(
      plans.map((p) => p.symbol),
      lines,
      known,
    ),
  };
}

/**
 * The oracle's first round (the control, and the trace or the probes) made by the credit prelude
 * while the sealed run goes on: no input of these runs is a test result. The oracle takes their
 * results as its own runs only when it would make the very same runs (`made`, aheadKey, the
 * base copy included), and ends them otherwise (`cancel`).
 */
export interface AheadRound {
  /** aheadKey of its runs, once their base copy is known; null when it makes none. */
  readonly made: Promise<string | null>;
  /** The runs it really made (neither cache hits nor ended ones), by cache key; null when it made none. Never rejects. */
  readonly runs: Promise<ReadonlyMap<string, Cached> | null>;
  /**
   * The probes it made whole, as runs (earlyRound): what the oracle's first round would make
   * instead of the trace; by cache key (those the cache held it did not make). Kept as runs,
   * since which tests they show depends on the sealed run's results. Null when it made the
   * trace instead, or nothing. Never rejects.
   */
  readonly probes: Promise<ReadonlyMap<string, TestRun> | null>;
  /** End its runs at once (their results are not wanted) and wait until they are gone. */
  readonly cancel: () => Promise<void>;
}

/** What the first round's runs are made with; `workers`: how many at once (1: the control, then the trace), as the credit step's own. */
export type AheadOptions = Pick<
  OracleOptions,
  | 'workTree'
  | 'depsFrom'
  | 'command'
  | 'junit'
  | 'env'
  | 'fastEnv'
  | 'sandbox'
  | 'controlTimeoutMs'
  | 'cacheDir'
  | 'cacheSalt'
> & { readonly workers?: number };

/** Every input of the first round's runs besides those their cache keys hold: the tree, its dependencies, the reports, the whole environment, the sandbox, the time limit, the cache, and the base copy's byte code (PreparedBase.made, or null). */
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

/** Does the oracle's first round make the probes whole instead of the trace (symbols fewer than workers)? */
function earlyRound(symbols: number, workers: number): boolean {
  return workers >= 2 && symbols > 0 && symbols < workers;
}

/**
 * A run made ahead, as the oracle's own run with `timeoutMs` would have ended: a timeout when it
 * took longer; none (run it again) when it was stopped by its own shorter limit first.
 */
function asMadeWithin(made: TestRun | undefined, timeoutMs: number): TestRun | null {
  if (made === undefined) return null;
  if (made.durationMs > timeoutMs)
    return {
      status: 'timeout',
      detail: `timed out after ${Math.round(timeoutMs)} ms`,
      durationMs: made.durationMs,
      cases: [],
      cwd: made.cwd,
      trace: null,
    };
  return made.status === 'timeout' ? null : made;
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
  let setMade: (m: string | null) => void = () => undefined;
  const made = new Promise<string | null>((r) => (setMade = r));
  let probeRuns: Map<string, TestRun> | null = null;
  const runs = (async (): Promise<ReadonlyMap<string, Cached> | null> => {
    const scratch = makeScratch();
    try {
      let root: string;
      let preparedMade: string | null = null;
      if (prepared !== null) {
        const b = await prepared.catch(() => null);
        if (b === null || stop.signal.aborted) return null;
        root = b.root;
        preparedMade = b.made;
      } else root = makeWorkspace(o.workTree, scratch.dir, o.depsFrom ?? o.workTree).root;
      setMade(aheadKey(o, preparedMade));
      const env = o.fastEnv ? { ...o.env, ...o.fastEnv } : o.env;
      const out = new Map<string, Cached>();
      const c: RoundRuns = {
        opts: o,
        env,
        key: keyer(o.cacheSalt, o.command, o.fastEnv ? env : null),
        baseRoot: () => root,
        scratch: scratch.dir,
        made: (k, v) => out.set(k, v),
        signal: stop.signal,
        nice: AHEAD_NICE,
      };
      const workers = o.workers ?? 2;
      if (earlyRound(plans.length, workers)) {
        // What the oracle's first round makes here: the control and every probe whole, no trace.
        const probesMade = new Map<string, TestRun>();
        probeRuns = probesMade;
        const probes = async (): Promise<void> => {
          await Promise.all(
            plans.map(async (p, i) => {
              const k = c.key(p.probe.id, o.command, p.probe.edits);
              if (readCache(o.cacheDir, k)) return;
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
      setMade(null);
      scratch.dispose();
    }
  })();
  return {
    made,
    runs,
    probes: runs.then((r) => (r === null ? null : probeRuns)),
    cancel: async () => {
      stop.abort();
      await runs;
    },
  };
}

/**
 * Per symbol, the test targets the trace lines say entered it (a file, a pytest node id, or a
 * file and a test's name: `file\t"name"`); null where a line could not tell the test. A
 * target's file must be one of the suite's test files (`known`; null: not checked): a runner's
 * own file (the main script of a vitest or jest worker) would narrow the probe to no test at
 * all, so it only says "entered, test unknown".
 */
export function toReach(
  symbols: readonly string[],
  lines: readonly string[],
  known: ReadonlySet<string> | null,
): Map<string, Set<string> | null> {
  const reach = new Map<string, Set<string> | null>(symbols.map((s) => [s, new Set<string>()]));
  for (const line of lines) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const sym = line.slice(0, tab);
    const target = line.slice(tab + 1);
    if (!reach.has(sym)) continue;
    const set = reach.get(sym);
    if (target === '' || (known !== null && !known.has(fileOfTarget(target)))) reach.set(sym, null);
    else if (set) set.add(target);
  }
  return reach;
}

/** The test file of a trace target: a file, a pytest node id (`file::...`), or `file\t"name"`. */
export function fileOfTarget(target: string): string {
  return (target.split('\t')[0] as string).split('::')[0] as string;
}

/** A trace line with its test file made relative to the run's working directory ('' when it lies outside); a test name after it stays. */
function toTarget(line: string, root: string): string {
  const [sym, where = '', ...name] = line.split('\t');
  if (sym === undefined || !line.includes('\t')) return '';
  let file = where;
  if (isAbsolute(file)) {
    const rel = relative(root, file);
    file = rel.startsWith('..') || isAbsolute(rel) ? '' : rel.split(sep).join('/');
  }
  return [sym, file, ...name].join('\t');
}

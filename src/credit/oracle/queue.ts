// The judging runs of every symbol, handed out one at a time and counted in each symbol's seeded order (pure).
import type { Mutant } from '../mutants/mutant.js';
import type { SymbolPlan } from '../mutants/plan.js';
import { revertOnly } from './plan.js';
import type { MutantRun } from './types.js';

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
  /** Taken before its place is decided, by speculation (it may turn out not to be needed). */
  readonly speculative: boolean;
}

/** A symbol's judging work: its plan, the tests that reach it, and its seeded order. */
export interface JudgingItem {
  readonly plan: SymbolPlan;
  readonly reached: readonly string[];
  readonly order: readonly Mutant[];
}

/**
 * The judging runs of every symbol, handed out one at a time (pure: no run is made here). Each
 * place of a symbol's order is decided from the runs before it only, so the runs that count, and
 * the credit, are those one worker would get, whatever the workers and whichever run ends first.
 * `take` hands out the run a place needs, else a speculative one where a worker would wait (it
 * counts only if its place turns out to need it); `finish` records a run's result.
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
    private readonly speculate = true,
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
    return m.kind === 'behavioural' && revertOnly(this.require, w.plan);
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
    if (r.mutant.kind === 'revert' || !revertOnly(this.require, w.plan)) for (const t of r.failed) w.earners.add(t);
  }

  private hand(w: SymbolWork, at: number, speculative: boolean): JudgingJob {
    const m = w.order[at] as Mutant;
    w.started.add(m.id);
    w.running++;
    return { symbol: w.plan.symbol, m, against: w.reached, at, gen: w.gen, speculative };
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
    if (!this.speculate) return null;
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

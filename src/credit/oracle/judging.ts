// The judging phase's shared state: which symbols have joined the queue, their commands, the probes still to run.
import { judgingRuns, type SymbolPlan } from '../mutants/plan.js';
import { orderOf } from './plan.js';
import type { Tally } from './progress.js';
import type { Reach } from './probes.js';
import { JudgingQueue, type JudgingJob } from './queue.js';
import type { OracleOptions } from './types.js';

/** The command a symbol's judging runs share: by name where every reaching test can be named exactly, else by file. */
interface SymbolCommand {
  readonly command: readonly string[];
  readonly strict: boolean;
}

/**
 * The probes and the judging runs share the workers: a worker takes a probe not yet started,
 * else a judging run of a symbol whose reaching tests are known (its probe ended or the trace
 * named them) and whose mutants are checked. When a symbol joins changes which worker makes its
 * runs, never which runs count (each symbol's are decided from its own runs alone).
 */
export class Judging {
  readonly queue: JudgingQueue;
  private readonly commands = new Map<string, SymbolCommand>();
  /** The plans with their valid mutants (checked while the first runs go on), or null until they are. */
  private plans: readonly SymbolPlan[] | null;
  private failure: { error: unknown } | null = null;
  private readonly waiters: (() => void)[] = [];
  private readonly joined = new Set<string>();
  /** Probes still to run: for symbols the trace could not tell, and for those only their probe can credit. */
  private readonly probeJobs: SymbolPlan[];
  private readonly probeLater = new Set<string>();
  probesRunning = 0;

  constructor(
    drafts: readonly SymbolPlan[],
    private readonly opts: OracleOptions,
    private readonly reach: Reach,
    probesRan: boolean,
    controlCached: boolean,
    private readonly tally: Tally,
  ) {
    // Runs ahead of their decision only where results take time: a control from the cache is a
    // rerun, whose runs that count all come from the cache, and one taken ahead could be a new run.
    this.queue = new JudgingQueue([], opts.require ?? 'change', !controlCached);
    this.plans = opts.judged ? null : drafts;
    if (opts.judged) {
      opts.judged.then(
        (ps) => {
          this.plans = ps;
          tally.total += judgingRuns(ps) - judgingRuns(drafts);
          this.joinReady();
          this.wakeAll();
        },
        (error: unknown) => {
          this.failure = { error };
          this.wakeAll();
        },
      );
    }
    this.probeJobs = probesRan ? [] : drafts.filter((p) => !reach.traced.has(p.symbol));
    this.joinReady();
  }

  /** Queue every symbol whose reaching tests and checked mutants are both known. */
  joinReady(): void {
    if (this.plans === null) return;
    for (const p of this.plans) {
      if (this.joined.has(p.symbol)) continue;
      const probed = this.reach.probes.get(p.symbol);
      // One only its probe can credit (no valid mutant, no revert) gets its probe after all.
      if (probed === undefined && p.mutants.length === 0 && p.revert === null && this.reach.traced.has(p.symbol)) {
        if (!this.probeLater.has(p.symbol)) {
          this.probeLater.add(p.symbol);
          this.probeJobs.push(p);
          this.tally.total++;
        }
        continue;
      }
      const known = probed?.failed ?? this.reach.traced.get(p.symbol);
      if (known === undefined) continue;
      this.joined.add(p.symbol);
      const reached = known.filter((t) => !this.opts.ignore.has(t));
      if (reached.length === 0) {
        this.tally.total -= judgingRuns([p]);
        continue;
      }
      const w = this.queue.add({ plan: p, reached, order: orderOf(this.opts.seed, this.opts.require ?? 'change', p) });
      const byName = this.opts.narrowByName?.(w.reached) ?? null;
      this.commands.set(p.symbol, {
        command: byName ?? this.opts.narrow(w.reached) ?? this.opts.command,
        strict: byName !== null,
      });
    }
    if (this.joined.size === this.plans.length) this.tally.tell();
  }

  /** The checked plans failed: every worker stops with their error. */
  throwIfFailed(): void {
    if (this.failure !== null) throw this.failure.error;
  }

  takeProbe(): SymbolPlan | undefined {
    return this.probeJobs.shift();
  }

  /** A probe under way, mutants not yet checked, or a symbol still running that may give its deferred mutants back. */
  mayGetWork(): boolean {
    return this.probesRunning > 0 || this.plans === null || this.queue.mayGiveBack();
  }

  wait(): Promise<void> {
    return new Promise<void>((wake) => this.waiters.push(wake));
  }

  wakeAll(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  commandOf(symbol: string): SymbolCommand {
    const c = this.commands.get(symbol);
    if (c === undefined) throw new Error(`internal: no command for ${symbol}`);
    return c;
  }

  /**
   * A run by name left out a reaching test (`c`, still the symbol's command): the symbol starts
   * again by file, and the runs made so far (this one too) are spent on top of its total.
   */
  restartByFile(job: JudgingJob, c: SymbolCommand): void {
    if (this.commands.get(job.symbol) !== c) return;
    const w = this.queue.restart(job.symbol);
    this.commands.set(job.symbol, { command: this.opts.narrow(w.reached) ?? this.opts.command, strict: false });
    this.tally.total += w.initial.length;
  }
}

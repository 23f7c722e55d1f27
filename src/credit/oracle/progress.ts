// The oracle's tally: runs done of how many, kills so far, and the phase, told to the caller as it goes.
import type { Progress } from './types.js';

export class Tally {
  phase: Progress['phase'] = 'control';
  done = 0;
  kills = 0;
  /** Runs made, and runs taken from the cache. */
  mutantsRun = 0;
  mutantsCached = 0;
  private readonly t0: number;

  constructor(
    /** The runs planned; it grows and shrinks as the oracle learns what it needs. */
    public total: number,
    private readonly now: () => number,
    private readonly progress: ((p: Progress) => void) | undefined,
  ) {
    this.t0 = now();
  }

  tell(): void {
    const elapsedMs = this.now() - this.t0;
    this.progress?.({
      phase: this.phase,
      done: this.done,
      total: this.total,
      kills: this.kills,
      elapsedMs,
      etaMs: this.done > 0 ? (elapsedMs / this.done) * (this.total - this.done) : null,
    });
  }

  /** Everything is done: the total is what ran. */
  finish(): void {
    this.phase = 'done';
    this.total = this.done;
    this.tell();
  }
}

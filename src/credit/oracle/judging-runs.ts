// How the oracle makes each of its runs: a fresh copy of one base, one environment, the cache, the runner caches.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { applyEdits, type Mutant } from '../mutants/mutant.js';
import type { Keyer, RunCache, RunRecord } from '../runs/record.js';
import type { RoundRuns } from '../runs/round.js';
import { makeWorkspace, runTestCommand, type TestRun, type Workspace } from '../runs/test-run.js';
import { asMadeWithin } from '../speedups/ahead.js';
import { fileCache, keyer } from '../speedups/cache.js';
import { checkRuntimeValidity, ranAgainst, ranOf, toFailures } from './judge.js';
import type { Tally } from './progress.js';
import type { MutantRun, OracleOptions } from './types.js';

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
 * Every run after the first control is made the same way: a fresh copy of one base copy of the
 * tree at the one fixed path inside the sandbox, one environment (with fastEnv, or after it was
 * dropped, without), through runTestCommand. Results are cached by what makes the run.
 */
export class JudgingRuns {
  /** What became of fastEnv: every run after the first control uses one environment. */
  fast: 'kept' | 'dropped' | null;
  env: Readonly<Record<string, string>>;
  readonly cache: RunCache;
  /**
   * Where the first control leaves its runner caches (jest's and tsx's transform caches), and,
   * once it did, what every run after the first round starts with: none transforms the files
   * no mutant changes again, and every one starts with the same copy.
   */
  readonly warmDir: string;
  warm: string | null = null;
  /** The one copy of the tree every run is copied from (never run in, never changed). */
  private base: Workspace | undefined;
  private readonly originals = new Map<string, string>();

  constructor(
    private readonly opts: OracleOptions,
    /** The oracle's scratch folder: the base copy, the runner caches and every run's logs. */
    readonly scratch: string,
    private readonly tally: Tally,
  ) {
    this.fast = opts.fastEnv ? 'kept' : null;
    this.env = opts.fastEnv ? { ...opts.env, ...opts.fastEnv } : opts.env;
    this.cache = fileCache(opts.cacheDir);
    this.warmDir = join(scratch, 'runner-caches');
  }

  readonly key: Keyer = (what, selection, edits) =>
    keyer(this.opts.cacheSalt, this.opts.command, this.fast === 'kept' ? this.env : null)(what, selection, edits);

  readonly baseRoot = (): string =>
    (this.base ??= makeWorkspace(this.opts.workTree, this.scratch, this.opts.depsFrom ?? this.opts.workTree)).root;

  /** Take a copy made ahead as the base (it must be the very copy this oracle would make). */
  useBase(ws: Workspace): void {
    this.base = ws;
  }

  /** fastEnv changed something the sealed run showed: every run from now on goes without it, and without the runner caches it made. */
  dropFastEnv(): void {
    this.fast = 'dropped';
    this.env = this.opts.env;
    rmSync(this.warmDir, { recursive: true, force: true });
  }

  /** The first round is over: later runs start with the runner caches its control left, if any. */
  keepRunnerCaches(): void {
    if (existsSync(this.warmDir)) this.warm = this.warmDir;
  }

  /** What the first round's control and trace are made with (`ahead`: those very runs made ahead). */
  round(ahead: ReadonlyMap<string, RunRecord> | null): RoundRuns {
    return {
      setup: this.opts,
      cache: this.cache,
      env: this.env,
      key: this.key,
      baseRoot: this.baseRoot,
      scratch: this.scratch,
      keepTmp: this.warmDir,
      ...(ahead !== null ? { ahead } : {}),
    };
  }

  private original(path: string): string {
    let t = this.originals.get(path);
    if (t === undefined) {
      t = readFileSync(join(this.opts.workTree, path), 'utf8');
      this.originals.set(path, t);
    }
    return t;
  }

  /** One run on a fresh copy with `files` written over it; every run sees the same path inside the sandbox. */
  runFresh(
    files: ReadonlyMap<string, string>,
    command: readonly string[],
    timeoutMs: number,
    logDir: string,
  ): Promise<TestRun> {
    return runTestCommand(this.baseRoot(), command, this.opts.junit, this.env, timeoutMs, logDir, this.opts.sandbox, {
      files,
      seedTmp: this.warm,
    });
  }

  /**
   * One mutant's run against `against`, from the cache or made now; `madeAhead`: this very probe
   * made ahead (AheadRound), taken instead of running it. Its failures count only on `against`.
   */
  async runMutant(
    m: Mutant,
    command: readonly string[],
    timeoutMs: number,
    against: readonly string[],
    logDir: string,
    madeAhead?: TestRun,
  ): Promise<MutantRun> {
    const k = this.key(m.id, command, m.edits);
    const hit = this.cache.read(k);
    const open = new Set(against);
    if (hit) {
      this.tally.mutantsCached++;
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
      (m.kind === 'probe' ? asMadeWithin(madeAhead, timeoutMs) : null) ??
      (await this.runFresh(
        new Map([[m.path, applyEdits(this.original(m.path), m.edits)]]),
        command,
        timeoutMs,
        logDir,
      ));
    this.tally.mutantsRun++;
    const found = toFailures(run, against, run.cwd, command, this.opts.filesOf);
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
    this.cache.write(k, {
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
  }
}

import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { sha256Hex } from '../core/ids.js';
import { applyEdits, type Edit, type Mutant } from './mutant.js';
import type { Box } from '../sandbox/run.js';
import { checkRuntimeValidity } from './valid.js';
import { makeScratch, makeWorkspace, runTestCommand, type RunStatus, type TestRun, type Workspace } from './workspace.js';

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
  /** Byte changes that keep the behaviour; a test failing on one earns nothing for the symbol. */
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

export interface OracleOptions {
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
  /** Baseline duration the per-mutant timeout is derived from. */
  readonly baselineMs: number;
  /** Per-mutant timeout: this many times the slower of baseline and control (default 3). */
  readonly timeoutFactor?: number;
  readonly workers: number;
  /** The sealed seed: it orders the null and real mutants of each symbol. */
  readonly seed: string;
  /** Tests that passed on the sealed baseline run. */
  readonly eligible: ReadonlySet<string>;
  /** Tests whose failures never earn credit (static tautologies): not run against behavioural mutants. */
  readonly ignore: ReadonlySet<string>;
  /** Narrowed command for a set of reaching tests, or null to run the whole command. */
  readonly narrow: (testIds: readonly string[]) => readonly string[] | null;
  /** Narrowed command for trace targets (test files, or pytest node ids), or null. */
  readonly narrowTargets: (targets: readonly string[]) => readonly string[] | null;
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
  /** Per symbol: its revert, null and behavioural mutant runs, in the order they ran. */
  readonly mutants: ReadonlyMap<string, readonly MutantRun[]>;
  /** The unmutated controls run again after the mutants (one per worker path), null when none ran. */
  readonly after: (ControlRun & { readonly failed: readonly string[]; readonly ranAgainst: readonly string[] }) | null;
  readonly mutantsRun: number;
  readonly mutantsCached: number;
}

interface Cached {
  readonly status: RunStatus;
  readonly detail: string;
  readonly failed: readonly string[];
  readonly durationMs: number;
  /** The trace run's records. */
  readonly lines?: readonly string[];
  /** The tests asked for that the run reported (or failed by a load failure). */
  readonly ran?: readonly string[];
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
 * The tests of `against` a usable run really ran: those its report holds, and those a load
 * failure failed. A test asked for but absent from the report did not run against the mutant,
 * so the mutant did not survive it (honest evidence). Runs that timed out or crashed say so
 * in their status and keep the tests asked for.
 */
export function ranAgainst(run: TestRun, against: readonly string[], seen: { readonly status: RunStatus; readonly failed: readonly string[] }): string[] {
  if (seen.status !== 'ok') return [...against];
  const reported = new Set([...run.cases.map((c) => c.id), ...seen.failed]);
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

function readCache(dir: string | null, key: string): Cached | null {
  if (dir === null) return null;
  const p = join(dir, `${key}.json`);
  if (!existsSync(p)) return null;
  try {
    const v = JSON.parse(readFileSync(p, 'utf8')) as Cached;
    if ((v.status === 'ok' || v.status === 'timeout' || v.status === 'crash') && Array.isArray(v.failed) && v.failed.every((x) => typeof x === 'string') && (v.ran === undefined || (Array.isArray(v.ran) && v.ran.every((x) => typeof x === 'string')))) return v;
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

/** The seeded order of a symbol's judging runs: null and real mutants interleaved, the same for the same seed. */
export function judgingOrder(seed: string, mutants: readonly Mutant[]): Mutant[] {
  const rank = (m: Mutant): string => sha256Hex(`${seed}\u0000order\u0000${m.id}`);
  return [...mutants].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
}

/**
 * The mutation oracle. 1: one tracing run (it never judges) tells which tests enter which
 * symbol. 2: the unmutated control, in a fresh copy. 3: one probe per symbol on the traced
 * tests; the tests that fail are those that reach it. 4: per symbol, its revert, its null
 * mutants and its behavioural mutants in a seeded order, each on the reaching tests. 5: the
 * unmutated control again, on every worker path. Every judging run (2, 4, 5) is made the same
 * way: a fresh copy of the tree at the worker's fixed path, the same environment, through
 * runTestCommand. Every result is cached.
 */
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
  let done = 0;
  const slots = Math.max(1, opts.workers);
  let total = 2 + plans.length + plans.reduce((n, p) => n + p.mutants.length + p.nulls.length + (p.revert ? 1 : 0), 0) + slots;
  let kills = 0;
  let phase: Progress['phase'] = 'control';
  const report = (): void => {
    const elapsedMs = now() - t0;
    opts.progress?.({ phase, done, total, kills, elapsedMs, etaMs: done > 0 ? (elapsedMs / done) * (total - done) : null });
  };
  const key = (what: string, selection: readonly string[] | null, edits: unknown): string =>
    sha256Hex(JSON.stringify(['sealgate-credit-v4', opts.cacheSalt, what, sha256Hex(JSON.stringify(edits)), selection ?? opts.command]));
  /** The one copy of the tree every run is copied from (never run in, never changed): the sandbox gives each run a fresh copy at one fixed path. */
  let base: Workspace | undefined;
  const baseRoot = (): string => (base ??= makeWorkspace(opts.workTree, scratch.dir, opts.depsFrom ?? opts.workTree)).root;

  /** Run jobs over the worker slots, in order of submission, each worker taking the next job. */
  const pool = async <J>(jobs: readonly J[], fn: (job: J, slot: number, logDir: string) => Promise<void>): Promise<void> => {
    let next = 0;
    const n = Math.max(1, Math.min(slots, jobs.length));
    await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const logDir = mkdtempSync(join(scratch.dir, `log-${i}-`));
        for (;;) {
          const k = next++;
          if (k >= jobs.length) return;
          await fn(jobs[k] as J, i, logDir);
        }
      }),
    );
  };

  /** One run on a fresh copy; `failed` is the tests of the report that failed or errored. */
  // `slot` is the worker; every run, whichever worker makes it, sees the same path inside the sandbox.
  const runFresh = async (_slot: number, files: ReadonlyMap<string, string>, command: readonly string[], env: Readonly<Record<string, string>>, timeoutMs: number, logDir: string): Promise<TestRun> =>
    runTestCommand(baseRoot(), command, opts.junit, env, timeoutMs, logDir, opts.sandbox, { files });

  const runMutant = async (m: Mutant, command: readonly string[], timeoutMs: number, against: readonly string[], slot: number, logDir: string): Promise<MutantRun> => {
    const k = key(m.id, command, m.edits);
    const hit = readCache(opts.cacheDir, k);
    const open = new Set(against);
    if (hit) {
      mutantsCached++;
      return { mutant: m, status: hit.status, detail: hit.detail, failed: hit.failed.filter((t) => open.has(t)), ranAgainst: hit.ran?.filter((t) => open.has(t)) ?? against, cached: true };
    }
    const run = await runFresh(slot, new Map([[m.path, applyEdits(original(m.path), m.edits)]]), command, opts.env, timeoutMs, logDir);
    mutantsRun++;
    const found = toFailures(run, against, run.cwd, command, opts.filesOf);
    // Invalid is never a kill: a load failure from a mutant the runner could not compile is a crash.
    const seen = m.kind === 'behavioural' || m.kind === 'revert' ? checkRuntimeValidity(found, new Set(run.cases.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => c.id)), readLogs(logDir), m.path) : found;
    const ran = ranAgainst(run, against, seen);
    writeCache(opts.cacheDir, k, { status: seen.status, detail: seen.detail, failed: seen.failed, durationMs: run.durationMs, ran });
    return { mutant: m, status: seen.status, detail: seen.detail, failed: seen.failed.filter((t) => open.has(t)), ranAgainst: ran, cached: false };
  };

  try {
    // 1. The trace: an entry recorder in every changed symbol (it only appends to a file outside
    // the copy) tells which test files (or pytest tests) enter each symbol, so each probe runs
    // only those. It never judges a test.
    report();
    const traced = await traceRun(plans, { opts, key, baseRoot, scratch: scratch.dir });
    // 2. The control: the unmutated suite, made like every mutant run.
    const ck = key('control', null, []);
    let control: Cached & { cached: boolean };
    const hit = readCache(opts.cacheDir, ck);
    if (hit) control = { ...hit, cached: true };
    else {
      const logDir = mkdtempSync(join(scratch.dir, 'control-'));
      const run = await runFresh(0, new Map(), opts.command, opts.env, opts.controlTimeoutMs, logDir);
      control = { status: run.status, detail: run.detail, failed: run.cases.filter((c) => c.status === 'passed').map((c) => c.id), durationMs: run.durationMs, cached: false };
      writeCache(opts.cacheDir, ck, control);
    }
    // For the control, `failed` holds the tests that passed.
    const usable = new Set(control.status === 'ok' ? control.failed.filter((t) => opts.eligible.has(t)) : []);
    done += 2;
    const controlOut = { status: control.status, detail: control.detail, durationMs: control.durationMs, cached: control.cached };
    if (control.status !== 'ok' || usable.size === 0) {
      phase = 'done';
      total = done;
      report();
      return { control: controlOut, usable, probes: new Map(), mutants: new Map(), after: null, mutantsRun, mutantsCached };
    }
    const timeoutMs = mutantTimeoutMs(opts.baselineMs, control.durationMs, opts.timeoutFactor);
    const reach = traced.reach;

    // 3. Probes: the tests that fail when the symbol throws on entry are the tests that reach it.
    phase = 'probes';
    const probes = new Map<string, MutantRun>();
    await pool(plans, async (p, slot, logDir) => {
      const targets = reach?.get(p.symbol);
      let r: MutantRun;
      if (targets?.size === 0) {
        r = { mutant: p.probe, status: 'ok', detail: 'no test entered it in the trace run', failed: [], ranAgainst: [], cached: false };
      } else {
        const command = targets ? (opts.narrowTargets([...targets].sort()) ?? opts.command) : opts.command;
        r = await runMutant(p.probe, command, timeoutMs, [...usable].sort(), slot, logDir);
      }
      probes.set(p.symbol, r);
      done++;
      if (r.failed.length > 0) kills++;
      report();
    });

    // 4. Per symbol, in the seed's order: the revert and the null mutants run on every reaching
    // test; a behavioural mutant runs on the reaching tests that have not yet failed on one of
    // the symbol's mutants, and once every reaching test has, the rest are not needed.
    // Tautologies never count, so they are not run.
    phase = 'mutants';
    const work: { plan: SymbolPlan; reached: string[] }[] = [];
    for (const p of plans) {
      const reached = (probes.get(p.symbol)?.failed ?? []).filter((t) => !opts.ignore.has(t));
      if (reached.length === 0) total -= p.mutants.length + p.nulls.length + (p.revert ? 1 : 0);
      else work.push({ plan: p, reached });
    }
    report();
    const results = new Map<string, MutantRun[]>();
    await pool(work, async ({ plan, reached }, slot, logDir) => {
      const list: MutantRun[] = [];
      const killers = new Set<string>();
      const order = judgingOrder(opts.seed, [...(plan.revert ? [plan.revert] : []), ...plan.nulls, ...plan.mutants]);
      for (const m of order) {
        const behavioural = m.kind === 'behavioural';
        const open = behavioural ? reached.filter((t) => !killers.has(t)) : reached;
        if (open.length === 0) {
          total--;
          continue;
        }
        const command = opts.narrow(open) ?? opts.command;
        const r = await runMutant(m, command, timeoutMs, open, slot, logDir);
        list.push(r);
        if (r.status === 'ok' && m.kind !== 'null') for (const t of r.failed) killers.add(t);
        done++;
        if (r.status === 'ok' && r.failed.length > 0 && m.kind !== 'null') kills++;
        report();
      }
      results.set(plan.symbol, list);
    });

    // 5. The control again, after the mutants, on every worker path: a test that passed the
    // first control only because it was the first run (a marker file, a counter) fails here.
    const reachedAll = [...new Set(work.flatMap((w) => w.reached))].sort();
    let after: OracleResult['after'] = null;
    if (reachedAll.length > 0) {
      const command = opts.narrow(reachedAll) ?? opts.command;
      const runs: { status: RunStatus; detail: string; failed: readonly string[]; durationMs: number; cached: boolean }[] = [];
      const used = Math.max(1, Math.min(slots, work.length));
      await pool(Array.from({ length: used }, (_, i) => i), async (i, slot, logDir) => {
        const ak = key(`control-after-${i}`, command, []);
        const hitA = readCache(opts.cacheDir, ak);
        if (hitA) runs.push({ ...hitA, cached: true });
        else {
          const run = await runFresh(slot, new Map(), command, opts.env, timeoutMs, logDir);
          const seen = toFailures(run, reachedAll, run.cwd, command, opts.filesOf);
          writeCache(opts.cacheDir, ak, { status: seen.status, detail: seen.detail, failed: seen.failed, durationMs: run.durationMs });
          runs.push({ status: seen.status, detail: seen.detail, failed: seen.failed, durationMs: run.durationMs, cached: false });
        }
        done++;
        report();
      });
      const bad = runs.find((r) => r.status !== 'ok');
      const inReach = new Set(reachedAll);
      after = {
        status: bad?.status ?? 'ok',
        detail: bad?.detail ?? `${runs.length} run(s) clean`,
        durationMs: Math.max(...runs.map((r) => r.durationMs)),
        cached: runs.every((r) => r.cached),
        failed: [...new Set(runs.flatMap((r) => r.failed))].filter((t) => inReach.has(t)).sort(),
        ranAgainst: reachedAll,
      };
    }
    total = done;
    phase = 'done';
    report();
    return { control: controlOut, usable, probes, mutants: results, after, mutantsRun, mutantsCached };
  } finally {
    scratch.dispose();
  }
}

const isInProcessNodeTest = (command: readonly string[]): boolean => /(^|\/)node(\.exe)?$/.test(command[0] ?? '') && !command.includes('--test');
const isPytest = (command: readonly string[]): boolean => command.some((w) => /(^|\/)py\.?test$/.test(w) || w === 'pytest');

/**
 * The tests a run failed, reaching through load failures: a test file that failed to load
 * (node:test's failed case named for the file, a jest or vitest suite failure, a pytest
 * collection error) failed every test it holds that the report leaves out. pytest's exit 4
 * without a report (an import error in a conftest.py) failed every test it was asked to run.
 */
export function toFailures(run: TestRun, against: readonly string[], root: string, command: readonly string[], filesOf?: (testId: string) => readonly string[]): { status: RunStatus; detail: string; failed: string[] } {
  if (run.status !== 'ok') {
    if (run.status === 'crash' && isPytest(command) && (run.exitCode === 4 || run.exitCode === 2)) {
      return { status: 'ok', detail: `${run.detail}: the tests could not be collected (a load failure), so every selected test failed`, failed: [...against] };
    }
    // One node:test file run in this process (see narrowCommand): a throw while it loads exits 1 before any report.
    const file = command[command.length - 1];
    if (run.status === 'crash' && run.exitCode === 1 && /\bwas not written\b/.test(run.detail) && isInProcessNodeTest(command) && file !== undefined) {
      const held = filesOf === undefined ? [...against] : against.filter((t) => filesOf(t).includes(file));
      return { status: 'ok', detail: `${run.detail}: ${file} failed to load, so the tests it holds failed`, failed: held };
    }
    return { status: run.status, detail: run.detail, failed: [] };
  }
  const failed = run.cases.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => c.id);
  if (filesOf === undefined) return { status: 'ok', detail: run.detail, failed };
  const reported = new Set(run.cases.map((c) => c.id));
  const known = new Set(against.flatMap((t) => filesOf(t)));
  const broken = new Set<string>();
  const rel = (x: string): string => {
    const y = x.replace(/\\/g, '/');
    return isAbsolute(y) ? relative(root, y).split(sep).join('/') : y.replace(/^\.\//, '');
  };
  for (const c of run.cases) {
    if (c.status !== 'failed' && c.status !== 'error') continue;
    for (const cand of [c.file, c.name, c.suite, `${c.suite.replace(/\./g, '/')}.py`, `${c.name.replace(/\./g, '/')}.py`]) {
      if (cand === null || cand === '') continue;
      const r = rel(cand);
      if (known.has(r)) broken.add(r);
    }
  }
  const extra = broken.size === 0 ? [] : against.filter((t) => !reported.has(t) && filesOf(t).some((f) => broken.has(f)));
  return { status: 'ok', detail: extra.length > 0 ? `${run.detail}; ${[...broken].sort().join(', ')} failed to load` : run.detail, failed: [...new Set([...failed, ...extra])] };
}

interface TraceContext {
  readonly opts: OracleOptions;
  readonly key: (what: string, selection: readonly string[] | null, edits: unknown) => string;
  readonly baseRoot: () => string;
  readonly scratch: string;
}

interface Traced {
  /** The run as a control: `failed` holds the tests that passed. */
  readonly control: Cached & { readonly cached: boolean };
  /**
   * Symbol to the test targets that entered it; null for a symbol means "entered, but the test
   * could not be told". The whole map is null when the run recorded nothing usable.
   */
  readonly reach: Map<string, Set<string> | null> | null;
}

async function traceRun(plans: readonly SymbolPlan[], t: TraceContext): Promise<Traced> {
  const byPath = new Map<string, Edit[]>();
  for (const p of plans) byPath.set(p.path, [...(byPath.get(p.path) ?? []), ...p.trace]);
  const k = t.key('trace', null, [...byPath].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
  let control: Cached & { cached: boolean };
  let lines: readonly string[];
  const hit = readCache(t.opts.cacheDir, k);
  if (hit) {
    control = { ...hit, cached: true };
    lines = hit.lines ?? [];
  } else {
    // Its own run, which never judges; the recorder appends to a file in the run's own /tmp, read after the run has ended.
    const logDir = mkdtempSync(join(t.scratch, 'trace-'));
    const files = new Map([...byPath].map(([p, edits]) => [p, applyEdits(readFileSync(join(t.opts.workTree, p), 'utf8'), edits)] as const));
    const run = await runTestCommand(t.baseRoot(), t.opts.command, t.opts.junit, t.opts.env, t.opts.controlTimeoutMs, logDir, t.opts.sandbox, { trace: true, files });
    const raw = (run.trace ?? '').split('\n').filter((l) => l !== '');
    lines = run.status === 'ok' ? raw.map((l) => toTarget(l, run.cwd)) : [];
    control = { status: run.status, detail: run.detail, failed: run.cases.filter((c) => c.status === 'passed').map((c) => c.id), durationMs: run.durationMs, lines, cached: false };
    writeCache(t.opts.cacheDir, k, control);
  }
  if (control.status !== 'ok' || lines.length === 0) return { control, reach: null };
  const reach = new Map<string, Set<string> | null>(plans.map((p) => [p.symbol, new Set<string>()]));
  for (const line of lines) {
    const tab = line.indexOf('\t');
    const sym = line.slice(0, tab);
    const target = line.slice(tab + 1);
    if (!reach.has(sym)) continue;
    const set = reach.get(sym);
    if (target === '') reach.set(sym, null);
    else if (set) set.add(target);
  }
  return { control, reach };
}

/** A trace line with its test file made relative to the run's working directory ('' when it lies outside). */
function toTarget(line: string, root: string): string {
  const tab = line.indexOf('\t');
  if (tab < 0) return '';
  const sym = line.slice(0, tab);
  let where = line.slice(tab + 1);
  if (isAbsolute(where)) {
    const rel = relative(root, where);
    where = rel.startsWith('..') || isAbsolute(rel) ? '' : rel.split(sep).join('/');
  }
  return `${sym}\t${where}`;
}

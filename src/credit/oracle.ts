import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { sha256Hex } from '../core/ids.js';
import { applyEdits, type Edit, type Mutant } from './mutant.js';
import type { Box } from '../sandbox/run.js';
import { makeScratch, makeWorkspace, runTestCommand, withFile, type RunStatus, type Workspace } from './workspace.js';

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
}

export interface MutantRun {
  readonly mutant: Mutant;
  readonly status: RunStatus;
  readonly detail: string;
  /** Eligible tests that failed or errored on the mutant (only when status is ok). */
  readonly failed: readonly string[];
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
  readonly workers: number;
  /** Tests that passed on the sealed baseline run. */
  readonly eligible: ReadonlySet<string>;
  /** Tests whose failures never earn credit (static tautologies): not run against behavioural mutants. */
  readonly ignore: ReadonlySet<string>;
  /** Narrowed command for a set of reaching tests, or null to run the whole command. */
  readonly narrow: (testIds: readonly string[]) => readonly string[] | null;
  /** Narrowed command for trace targets (test files, or pytest node ids), or null. */
  readonly narrowTargets: (targets: readonly string[]) => readonly string[] | null;
  /** Cache folder, or null for none; keys bind digest, patch hash and mutant id. */
  readonly cacheDir: string | null;
  readonly cacheSalt: string;
  readonly progress?: (p: Progress) => void;
  readonly now?: () => number;
}

export interface OracleResult {
  readonly control: { readonly status: RunStatus; readonly detail: string; readonly durationMs: number; readonly cached: boolean };
  /** Eligible tests that also passed in the unmutated isolated copy. */
  readonly usable: ReadonlySet<string>;
  readonly probes: ReadonlyMap<string, MutantRun>;
  readonly mutants: ReadonlyMap<string, readonly MutantRun[]>;
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
}

/**
 * The per-mutant timeout: three times the slower of baseline and control, plus ten seconds of
 * slack for a loaded machine. A mutant that loops forever costs this much; a timeout is never a kill.
 */
export function mutantTimeoutMs(baselineMs: number, controlMs: number): number {
  return Math.ceil(Math.max(baselineMs, controlMs) * 3 + 10_000);
}

function readCache(dir: string | null, key: string): Cached | null {
  if (dir === null) return null;
  const p = join(dir, `${key}.json`);
  if (!existsSync(p)) return null;
  try {
    const v = JSON.parse(readFileSync(p, 'utf8')) as Cached;
    if ((v.status === 'ok' || v.status === 'timeout' || v.status === 'crash') && Array.isArray(v.failed) && v.failed.every((x) => typeof x === 'string')) return v;
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

/**
 * The mutation oracle. 1: run the unmutated suite once in an isolated copy, tracing which tests
 * enter which symbol (the control). 2: one probe per symbol on the traced tests; the tests that
 * fail are those that reach it. 3: behavioural mutants on the reaching tests only, where the
 * runner allows narrowing. Runs go in parallel over `workers` copies of the work tree; every
 * result is cached.
 */
export async function runOracle(plans: readonly SymbolPlan[], opts: OracleOptions): Promise<OracleResult> {
  const now = opts.now ?? (() => performance.now());
  const t0 = now();
  const scratch = makeScratch();
  const workspaces: Workspace[] = [];
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
  let total = 1 + plans.length + plans.reduce((n, p) => n + p.mutants.length, 0);
  let kills = 0;
  let phase: Progress['phase'] = 'control';
  const report = (): void => {
    const elapsedMs = now() - t0;
    opts.progress?.({ phase, done, total, kills, elapsedMs, etaMs: done > 0 ? (elapsedMs / done) * (total - done) : null });
  };
  const key = (what: string, selection: readonly string[] | null, edits: unknown): string =>
    sha256Hex(JSON.stringify(['sealgate-credit-v1', opts.cacheSalt, what, sha256Hex(JSON.stringify(edits)), selection ?? opts.command]));
  const workspace = (i: number): Workspace => {
    let w = workspaces[i];
    if (w === undefined) {
      w = makeWorkspace(opts.workTree, scratch.dir, opts.depsFrom ?? opts.workTree);
      workspaces[i] = w;
    }
    return w;
  };

  /** Run jobs over the worker copies, in order of submission, each worker taking the next job. */
  const pool = async <J>(jobs: readonly J[], fn: (job: J, ws: Workspace, logDir: string) => Promise<void>): Promise<void> => {
    let next = 0;
    const n = Math.max(1, Math.min(opts.workers, jobs.length));
    await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const logDir = mkdtempSync(join(scratch.dir, `log-${i}-`));
        for (;;) {
          const k = next++;
          if (k >= jobs.length) return;
          await fn(jobs[k] as J, workspace(i), logDir);
        }
      }),
    );
  };

  const runMutant = async (m: Mutant, command: readonly string[], timeoutMs: number, usable: ReadonlySet<string>, ws: Workspace, logDir: string): Promise<MutantRun> => {
    const k = key(m.id, command, m.edits);
    const hit = readCache(opts.cacheDir, k);
    if (hit) {
      mutantsCached++;
      return { mutant: m, status: hit.status, detail: hit.detail, failed: hit.failed.filter((t) => usable.has(t)), cached: true };
    }
    const text = original(m.path);
    const run = await withFile(ws.root, m.path, applyEdits(text, m.edits), text, () => runTestCommand(ws.root, command, opts.junit, opts.env, timeoutMs, logDir, opts.sandbox));
    mutantsRun++;
    const failed = run.status === 'ok' ? run.cases.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => c.id) : [];
    writeCache(opts.cacheDir, k, { status: run.status, detail: run.detail, failed, durationMs: run.durationMs });
    return { mutant: m, status: run.status, detail: run.detail, failed: failed.filter((t) => usable.has(t)), cached: false };
  };

  try {
    // 1. Control and trace in one run: the unmutated suite in a copy, with an entry recorder in
    // every changed symbol (it only appends to a file outside the copy) telling which test files
    // (or pytest tests) enter each symbol, so each probe runs only those. If that run is not
    // clean, a plain control run decides whether the suite itself is.
    report();
    const traced = await traceRun(plans, { opts, key, workspace, scratch: scratch.dir });
    let control: Cached & { cached: boolean } = traced.control;
    if (control.status !== 'ok') {
      const ck = key('control', null, []);
      const hit = readCache(opts.cacheDir, ck);
      if (hit) control = { ...hit, cached: true };
      else {
        const logDir = mkdtempSync(join(scratch.dir, 'control-'));
        const run = await runTestCommand(workspace(0).root, opts.command, opts.junit, opts.env, opts.controlTimeoutMs, logDir, opts.sandbox);
        control = { status: run.status, detail: run.detail, failed: run.cases.filter((c) => c.status === 'passed').map((c) => c.id), durationMs: run.durationMs, cached: false };
        writeCache(opts.cacheDir, ck, control);
      }
    }
    // For the control, `failed` holds the tests that passed.
    const usable = new Set(control.status === 'ok' ? control.failed.filter((t) => opts.eligible.has(t)) : []);
    done++;
    const controlOut = { status: control.status, detail: control.detail, durationMs: control.durationMs, cached: control.cached };
    if (control.status !== 'ok' || usable.size === 0) {
      phase = 'done';
      total = done;
      report();
      return { control: controlOut, usable, probes: new Map(), mutants: new Map(), mutantsRun, mutantsCached };
    }
    const timeoutMs = mutantTimeoutMs(opts.baselineMs, control.durationMs);
    const reach = traced.reach;

    // 2. Probes: the tests that fail when the symbol throws on entry are the tests that reach it.
    phase = 'probes';
    const probes = new Map<string, MutantRun>();
    await pool(plans, async (p, ws, logDir) => {
      const targets = reach?.get(p.symbol);
      let r: MutantRun;
      if (targets?.size === 0) {
        r = { mutant: p.probe, status: 'ok', detail: 'no test entered it in the trace run', failed: [], cached: false };
      } else {
        const command = targets ? (opts.narrowTargets([...targets].sort()) ?? opts.command) : opts.command;
        r = await runMutant(p.probe, command, timeoutMs, usable, ws, logDir);
      }
      probes.set(p.symbol, r);
      done++;
      if (r.failed.length > 0) kills++;
      report();
    });

    // 3. Behavioural mutants, one symbol per worker, in the seed's order. Each runs only the
    // reaching tests that have not yet failed on one of the symbol's mutants; once every
    // reaching test has, the symbol's remaining mutants are not needed. Tautologies never count,
    // so they are not run.
    phase = 'mutants';
    const work: { plan: SymbolPlan; reached: string[] }[] = [];
    for (const p of plans) {
      const reached = (probes.get(p.symbol)?.failed ?? []).filter((t) => !opts.ignore.has(t));
      if (reached.length === 0) total -= p.mutants.length;
      else work.push({ plan: p, reached });
    }
    report();
    const results = new Map<string, MutantRun[]>();
    await pool(work, async ({ plan, reached }, ws, logDir) => {
      const list: MutantRun[] = [];
      const killers = new Set<string>();
      for (const [i, m] of plan.mutants.entries()) {
        const open = reached.filter((t) => !killers.has(t));
        if (open.length === 0) {
          total -= plan.mutants.length - i;
          break;
        }
        const command = opts.narrow(open) ?? opts.command;
        const r = await runMutant(m, command, timeoutMs, new Set(open), ws, logDir);
        list.push(r);
        if (r.status === 'ok') for (const t of r.failed) killers.add(t);
        done++;
        if (r.status === 'ok' && r.failed.length > 0) kills++;
        report();
      }
      results.set(plan.symbol, list);
    });
    phase = 'done';
    report();
    return { control: controlOut, usable, probes, mutants: results, mutantsRun, mutantsCached };
  } finally {
    for (const w of workspaces) w.dispose();
    scratch.dispose();
  }
}

interface TraceContext {
  readonly opts: OracleOptions;
  readonly key: (what: string, selection: readonly string[] | null, edits: unknown) => string;
  readonly workspace: (i: number) => Workspace;
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
    const ws = t.workspace(0);
    const logDir = mkdtempSync(join(t.scratch, 'trace-'));
    const originals = [...byPath.keys()].map((p) => [p, readFileSync(join(t.opts.workTree, p), 'utf8')] as const);
    try {
      for (const [p, text] of originals) writeFileSync(join(ws.root, p), applyEdits(text, byPath.get(p) ?? []));
      // The recorder appends to a file in the run's own /tmp, read after the run has ended.
      const run = await runTestCommand(ws.root, t.opts.command, t.opts.junit, t.opts.env, t.opts.controlTimeoutMs, logDir, t.opts.sandbox, { trace: true });
      const raw = (run.trace ?? '').split('\n').filter((l) => l !== '');
      lines = run.status === 'ok' ? raw.map((l) => toTarget(l, run.cwd)) : [];
      control = { status: run.status, detail: run.detail, failed: run.cases.filter((c) => c.status === 'passed').map((c) => c.id), durationMs: run.durationMs, lines, cached: false };
      writeCache(t.opts.cacheDir, k, control);
    } finally {
      for (const [p, text] of originals) writeFileSync(join(ws.root, p), text);
    }
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

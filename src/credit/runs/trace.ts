// The trace run: an entry recorder in every changed symbol tells which tests enter which symbol; it never judges.
import { mkdtempSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { applyEdits, type Edit } from '../mutants/mutant.js';
import type { SymbolPlan } from '../mutants/plan.js';
import { asControl, type ControlRan, type RunRecord } from './record.js';
import { recordFinished, type RoundRuns } from './round.js';
import { runTestCommand } from './test-run.js';

export interface Traced {
  /** The trace run, as an unmutated run: the tests that passed. */
  readonly control: ControlRan;
  /**
   * Symbol to the test targets that entered it; null for a symbol means "entered, but the test
   * could not be told". The whole map is null when the run recorded nothing usable.
   */
  readonly reach: Map<string, Set<string> | null> | null;
}

/** The trace run (an entry recorder in every changed symbol; it never judges): `lines`, what it recorded, each target relative to the run's working directory. */
export async function traceRecord(plans: readonly SymbolPlan[], c: RoundRuns): Promise<ControlRan> {
  const byPath = new Map<string, Edit[]>();
  for (const p of plans) byPath.set(p.path, [...(byPath.get(p.path) ?? []), ...p.trace]);
  const k = c.key(
    'trace',
    null,
    [...byPath].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
  );
  const hit = c.cache.read(k);
  if (hit) return asControl({ ...hit, lines: hit.lines ?? [] }, true);
  const ahead = c.ahead?.get(k);
  if (ahead !== undefined) return asControl({ ...ahead, lines: ahead.lines ?? [] }, false);
  // Its own run; the recorder appends to a file in the run's own /tmp, read after the run has ended.
  const logDir = mkdtempSync(join(c.scratch, 'trace-'));
  const files = new Map(
    [...byPath].map(([p, edits]) => [p, applyEdits(readFileSync(join(c.setup.workTree, p), 'utf8'), edits)] as const),
  );
  const run = await runTestCommand(
    c.baseRoot(),
    c.setup.command,
    c.setup.junit,
    c.env,
    c.setup.controlTimeoutMs,
    logDir,
    c.setup.sandbox,
    {
      trace: true,
      files,
      ...(c.signal ? { signal: c.signal } : {}),
      ...(c.nice !== undefined ? { nice: c.nice } : {}),
    },
  );
  const raw = (run.trace ?? '').split('\n').filter((l) => l !== '');
  const lines = run.status === 'ok' ? raw.map((l) => toTarget(l, run.cwd)) : [];
  const fresh: RunRecord = {
    status: run.status,
    detail: run.detail,
    failed: run.cases.filter((x) => x.status === 'passed').map((x) => x.id),
    durationMs: run.durationMs,
    lines,
  };
  recordFinished(c, k, fresh);
  return asControl(fresh, false);
}

/** The trace run and, per symbol, the test targets it saw enter it (toReach; `known`: the suite's test files). */
export async function traceRun(
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

// What a judging run shows: the tests it failed and ran, through load failures, and whether its failures are a kill.
import { isAbsolute, relative, sep } from 'node:path';
import { loadFailureFiles, loadFailureOf } from '../../test-runners/index.js';
import { compileErrorIn } from '../lang/index.js';
import type { RunStatus, TestRun } from '../runs/test-run.js';

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
 * The tests of `against` a run really ran: those its report shows ran (or failed to load).
 * A run that did not end in a usable report ran against all of them as far as anyone can tell
 * (it is no kill either way).
 */
export function ranOf(
  status: RunStatus,
  against: readonly string[],
  ran: readonly string[] | undefined,
): readonly string[] {
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

/**
 * A mutant run whose failures came (at least in part) through a load failure, while the
 * runner's output shows the mutated file does not compile or type-check, is not a kill: it is
 * a crash ("invalid at run time"). The static checks above should have caught it; this is the
 * net for a runner configured differently (a jest `tsconfig` of its own, say).
 */
export function checkRuntimeValidity<
  S extends {
    readonly status: 'ok' | 'timeout' | 'crash';
    readonly detail: string;
    readonly failed: readonly string[];
  },
>(
  seen: S,
  reportedFailed: ReadonlySet<string>,
  output: string,
  path: string,
): S | { status: 'crash'; detail: string; failed: string[] } {
  if (seen.status !== 'ok' || seen.failed.every((t) => reportedFailed.has(t))) return seen;
  const err = compileErrorIn(output, path);
  if (err === null) return seen;
  return {
    status: 'crash',
    detail: `${seen.detail}: the mutated ${path} does not compile or type-check under the test runner (${err}), so its load failure is not a kill`,
    failed: [],
  };
}

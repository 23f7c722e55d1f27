import assert from 'node:assert/strict';
import { draftSymbols } from '../../src/credit/plan/symbols.js';
import { narrowByNameFor, narrowFor, testsOfTargetsFor } from '../../src/credit/plan/narrowing.js';
import { runOracle } from '../../src/credit/oracle/oracle.js';
import type { OracleResult } from '../../src/credit/oracle/types.js';
import { toScored } from '../../src/credit/score/score.js';
import { classifyCases } from '../../src/credit/tests/match.js';
import { readTestSources } from '../../src/credit/lang/tests.js';
import { cheapCommand, detectRunner, narrowCommand } from '../../src/test-runners/index.js';
import { makeScratch, makeWorkspace, runTestCommand } from '../../src/credit/runs/test-run.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import type { Changed } from '../../src/symbols/schema.js';
import type { Results } from '../../src/runner/results.js';
import { testBox } from './sandbox.js';

/** The environment of a test's child runs (without node:test's own context, which a nested node:test would read). */
export function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  return { ...env, PYTHONDONTWRITEBYTECODE: '1', PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' };
}

/** Functions laid out one per block, so each symbol's lines are known without a parser. */
export function layout(
  blocks: Record<string, string[]>,
  head: string[] = [],
): { text: string; spans: Record<string, [number, number]> } {
  const lines: string[] = [...head];
  const spans: Record<string, [number, number]> = {};
  for (const [name, body] of Object.entries(blocks)) {
    const start = lines.length + 1;
    lines.push(...body);
    spans[name] = [start, lines.length];
    lines.push('');
  }
  return { text: lines.join('\n'), spans };
}

export interface Scoring {
  readonly scored: ReturnType<typeof toScored>;
  readonly oracle: OracleResult;
  /** The targets each probe was narrowed to (one entry per narrowed probe). */
  readonly probeTargets: (readonly string[])[];
}

/**
 * The baseline run, the oracle and the scoring, as `sealgate credit` does them (sandboxed, the
 * credit command, the narrowing of run.ts), on a throwaway repository whose symbols are all added.
 */
export async function scoreRepo(
  repo: string,
  path: string,
  language: string,
  spans: Record<string, [number, number]>,
  command: string[],
  opts: {
    budget?: number;
    junit?: string;
    byName?: boolean;
    fastEnv?: Readonly<Record<string, string>>;
    earlyProbes?: boolean;
    traceReach?: boolean;
    envWithout?: readonly string[];
  } = {},
): Promise<Scoring> {
  const env = childEnv();
  for (const k of opts.envWithout ?? []) delete env[k];
  const junit = opts.junit ?? 'junit.xml';
  const scratch = makeScratch();
  let results: Results;
  try {
    const ws = makeWorkspace(repo, scratch.dir);
    const run = await runTestCommand(ws.root, command, [junit], env, 120_000, scratch.dir, testBox(repo));
    assert.equal(run.status, 'ok', run.detail);
    results = {
      runner_job: 'r1',
      digest: 'abc123',
      command,
      exit_code: 0,
      signal: null,
      timed_out: false,
      started_at: '2026-01-01T00:00:00Z',
      ended_at: '2026-01-01T00:00:01Z',
      junit: [{ path: junit, sha256: null, status: 'ok' }],
      cases: [...run.cases],
      sandbox: 'bwrap',
      cwd: run.cwd,
    };
  } finally {
    scratch.dispose();
  }
  const ids = Object.keys(spans).map((n) => `${path}::${n}`);
  const changed: Changed = {
    base: '0'.repeat(40),
    patch_sha256: '1'.repeat(64),
    files: [{ path, old_path: null, status: 'added', class: 'production', language }],
    changed: ids,
    moved: [],
    deleted: [],
    typeOnly: [],
    uncreditable: [],
    locations: Object.fromEntries(
      Object.entries(spans).map(([n, [s, e]]) => [
        `${path}::${n}`,
        { path, language, start_line: s, end_line: e, changed_lines: [[s, e]] },
      ]),
    ),
  };
  const sources = await readTestSources(repo, DEFAULT_CONFIG, []);
  const { caseSources, verdicts } = classifyCases(results.cases, sources);
  // As run.ts does: the oracle starts on the drafts, the judging runs wait for the checked plans.
  const { drafts, judged, unsupported } = await draftSymbols(repo, changed, opts.budget ?? 4, 'seed-1');
  const credit = cheapCommand(command);
  const named = new Map(results.cases.map((c) => [c.id, { suite: c.suite, name: c.name }]));
  const probeTargets: (readonly string[])[] = [];
  const oracle = await runOracle(drafts, {
    judged,
    workTree: repo,
    command: credit,
    junit: [junit],
    env,
    ...(opts.fastEnv ? { fastEnv: opts.fastEnv } : {}),
    ...(opts.earlyProbes !== undefined ? { earlyProbes: opts.earlyProbes } : {}),
    sandbox: testBox(repo),
    controlTimeoutMs: 120_000,
    baselineMs: 1000,
    workers: 2,
    seed: 'seed-1',
    filesOf: (t) => caseSources.get(t)?.files ?? [],
    eligible: new Set(results.cases.filter((c) => c.status === 'passed').map((c) => c.id)),
    ignore: new Set([...verdicts].filter(([, v]) => v?.kind === 'tautology').map(([id]) => id)),
    narrow: narrowFor(credit, caseSources),
    ...(opts.byName === false ? {} : { narrowByName: narrowByNameFor(credit, caseSources, named) }),
    narrowTargets: (t) => {
      probeTargets.push(t);
      return narrowCommand(credit, t);
    },
    ...(opts.traceReach === false
      ? {}
      : { testsOfTargets: testsOfTargetsFor(caseSources, named, detectRunner(credit)) }),
    cacheDir: null,
    cacheSalt: 'test',
  });
  const plans = await judged;
  const scored = toScored({
    changed,
    results,
    digest: 'abc123',
    runnerJob: 'r1',
    proposalId: 'p1',
    verdicts,
    plans,
    unsupported,
    baselineProblem: null,
    oracle,
  });
  return { scored, oracle, probeTargets };
}

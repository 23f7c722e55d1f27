// Honest evidence: a mutant (or a revert) is "survived" only when it ran against every test
// that reaches its symbol and could earn; otherwise the evidence says which tests it ran against.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ranAgainst } from '../../src/credit/oracle/judge.js';
import type { MutantRun, OracleResult } from '../../src/credit/oracle/types.js';
import type { SymbolPlan } from '../../src/credit/mutants/plan.js';
import { toScored } from '../../src/credit/score/score.js';
import { testsOfTargetsFor } from '../../src/credit/plan/narrowing.js';
import type { Mutant } from '../../src/credit/mutants/mutant.js';
import type { TestRun } from '../../src/credit/runs/test-run.js';
import type { Changed } from '../../src/symbols/schema.js';
import type { Results } from '../../src/runner/results.js';

const SYM = 'src/a.ts::f';
const T1 = 'test/a.test.ts::f::one';
const T2 = 'test/a.test.ts::f::two';
const junitCase = (id: string, status: 'passed' | 'failed' = 'passed') => ({
  id,
  file: 'test/a.test.ts',
  suite: 'f',
  name: id.split('::').at(-1) as string,
  status,
  duration_ms: 1,
});

describe('ranAgainst: the tests a run really ran', () => {
  const run = (cases: ReturnType<typeof junitCase>[], status: TestRun['status'] = 'ok'): TestRun => ({
    status,
    detail: '',
    durationMs: 1,
    cases,
    cwd: '/sealgate/work',
    trace: null,
  });
  it('a test asked for but absent from the report did not run against the mutant', () => {
    assert.deepEqual(ranAgainst(run([junitCase(T1)]), [T1, T2], { status: 'ok', failed: [] }), [T1]);
  });
  it('a test failed by a load failure (absent from the report) did run', () => {
    assert.deepEqual(ranAgainst(run([]), [T1, T2], { status: 'ok', failed: [T2] }), [T2]);
  });
  it('a run that timed out or crashed keeps the tests asked for (its status already says it showed nothing)', () => {
    assert.deepEqual(ranAgainst(run([], 'timeout'), [T1, T2], { status: 'timeout', failed: [] }), [T1, T2]);
  });
});

describe('toScored: survived only against every reaching test', () => {
  const mutant = (id: string, kind: Mutant['kind']): Mutant => ({
    id,
    symbol: SYM,
    path: 'src/a.ts',
    kind,
    category: kind === 'behavioural' ? 'arithmetic' : kind,
    line: 2,
    description: id,
    edits: [],
  });
  const probe = mutant(`${SYM}#probe`, 'probe');
  const revert = mutant(`${SYM}#revert`, 'revert');
  const b1 = mutant(`${SYM}#arithmetic@2:1:+ -> -`, 'behavioural');
  const b2 = mutant(`${SYM}#constant@2:5:1 -> 2`, 'behavioural');
  const plan: SymbolPlan = {
    symbol: SYM,
    path: 'src/a.ts',
    probe,
    trace: [],
    mutants: [b1, b2],
    candidates: 2,
    change: 'modified',
    revert,
    nulls: [],
  };
  const mr = (m: Mutant, failed: string[], ran: string[]): MutantRun => ({
    mutant: m,
    status: 'ok',
    detail: 'exit status 0',
    failed,
    ranAgainst: ran,
    cached: false,
  });
  const changed: Changed = {
    base: '0'.repeat(40),
    patch_sha256: '1'.repeat(64),
    files: [{ path: 'src/a.ts', old_path: null, status: 'modified', class: 'production', language: 'typescript' }],
    changed: [SYM],
    moved: [],
    deleted: [],
    typeOnly: [],
    uncreditable: [],
    locations: {
      [SYM]: { path: 'src/a.ts', language: 'typescript', start_line: 1, end_line: 3, changed_lines: [[2, 2]] },
    },
  };
  const results: Results = {
    runner_job: 'r1',
    digest: 'abc123',
    command: ['node', '--test'],
    exit_code: 0,
    signal: null,
    timed_out: false,
    started_at: '2026-01-01T00:00:00Z',
    ended_at: '2026-01-01T00:00:01Z',
    junit: [{ path: 'junit.xml', sha256: null, status: 'ok' }],
    cases: [junitCase(T1), junitCase(T2)],
    sandbox: 'bwrap',
    cwd: '/sealgate/work',
  };
  const score = (
    runs: MutantRun[],
    p: SymbolPlan = plan,
    require: 'change' | 'revert' = 'change',
    reach: 'probe' | readonly string[] = 'probe',
  ) => {
    const oracle: OracleResult = {
      control: { status: 'ok', detail: '', durationMs: 1, cached: false },
      usable: new Set([T1, T2]),
      probes: reach === 'probe' ? new Map([[SYM, mr(probe, [T1, T2], [T1, T2])]]) : new Map(),
      traced: reach === 'probe' ? new Map() : new Map([[SYM, reach]]),
      mutants: new Map([[SYM, runs]]),
      after: { status: 'ok', detail: 'clean', durationMs: 1, cached: false, failed: [], ranAgainst: [T1, T2] },
      mutantsRun: runs.length,
      mutantsCached: 0,
      mutantsSettled: 0,
      mutantsAhead: 0,
      fastEnv: null,
      bytecode: null,
      ahead: null,
    };
    const scored = toScored({
      changed,
      results,
      digest: 'abc123',
      runnerJob: 'r1',
      proposalId: 'p1',
      verdicts: new Map([
        [T1, { kind: 'property' }],
        [T2, { kind: 'property' }],
      ]),
      plans: [p],
      unsupported: new Map(),
      baselineProblem: null,
      oracle,
      require,
    });
    return scored.credit.evidence?.[SYM];
  };

  it('a mutant that ran against every reaching test and failed none survived; one that did not run against all is partial, with ran_against', () => {
    const ev = score([mr(revert, [], [T1, T2]), mr(b1, [], [T1, T2]), mr(b2, [], [T1])]);
    const by = new Map(ev?.mutants?.map((m) => [m.id, m]));
    assert.equal(by.get(b1.id)?.outcome, 'survived');
    assert.equal(by.get(b1.id)?.ran_against, undefined);
    assert.equal(by.get(b2.id)?.outcome, 'partial');
    assert.deepEqual(by.get(b2.id)?.ran_against, [T1]);
    assert.equal(ev?.revert?.outcome, 'survived');
  });
  it('a revert that did not run against every reaching test is partial, never survived, and says which it ran against', () => {
    const ev = score([mr(revert, [], [T2]), mr(b1, [T1], [T1, T2])]);
    assert.equal(ev?.revert?.outcome, 'partial');
    assert.deepEqual(ev?.revert?.ran_against, [T2]);
    assert.match(ev?.revert?.detail ?? '', /test\/a\.test\.ts::f::one did not run against it/);
  });
  it('an invalid revert (not a valid program in the patched tree) is neither killed nor survived, and never earns', () => {
    const invalid: SymbolPlan = {
      ...plan,
      revert: null,
      revertInvalid: "it does not type-check (TS2322: Type 'string' is not assignable to type 'number'.)",
      discarded: [{ mutant: revert.id, reason: 'it does not type-check (TS2322)' }],
    };
    const ev = score([mr(b1, [T1], [T1, T2])], invalid, 'revert');
    assert.equal(ev?.revert?.outcome, 'invalid');
    assert.equal(ev?.status, 'missing');
    assert.match(ev?.reason ?? '', /revert was invalid/);
    assert.deepEqual(ev?.discarded, [{ mutant: revert.id, reason: 'it does not type-check (TS2322)' }]);
    // Under the default a kill of a valid behavioural mutant still earns.
    assert.equal(score([mr(b1, [T1], [T1, T2])], invalid)?.status, 'credited');
  });
  it('reach from the trace (no probe ran): the traced tests are the reaching ones, said so, and no probe is listed as run', () => {
    const ev = score([mr(revert, [], [T1, T2]), mr(b1, [], [T1])], plan, 'change', [T1, T2]);
    assert.deepEqual(ev?.reached, [T1, T2]);
    assert.equal(ev?.reached_by, 'trace');
    assert.equal(ev?.revert?.outcome, 'survived');
    assert.ok(!(ev?.mutants ?? []).some((m) => m.kind === 'probe'), 'no probe evidence for a probe that never ran');
    assert.equal(
      ev?.mutants?.find((m) => m.id === b1.id)?.outcome,
      'partial',
      'a mutant that missed a traced test is not survived',
    );
    assert.match(ev?.reason ?? '', /reached by 2 test\(s\), none of which failed/);
    assert.equal(score([mr(revert, [T2], [T1, T2])], plan, 'change', [T1, T2])?.status, 'credited');
    assert.equal(score([mr(revert, [T2], [T1, T2])])?.reached_by, 'probe');
  });
  it('a kill is a kill whatever else ran', () => {
    const ev = score([mr(revert, [T2], [T2]), mr(b1, [], [T1])]);
    assert.equal(ev?.revert?.outcome, 'killed');
    assert.equal(ev?.status, 'credited');
  });
});

describe('testsOfTargetsFor: trace targets to reaching tests, only where they name tests one by one', () => {
  const sources = new Map([
    ['tests.test_a::test_x', { verdict: null, files: ['tests/test_a.py'], nodeIds: ['tests/test_a.py::test_x'] }],
    ['tests.test_a::test_y[1]', { verdict: null, files: ['tests/test_a.py'], nodeIds: ['tests/test_a.py::test_y[1]'] }],
    ['test/a.test.ts::f::one', { verdict: null, files: ['test/a.test.ts'], nodeIds: [] }],
  ]);
  const of = testsOfTargetsFor(sources);
  const all = [...sources.keys()];
  it('pytest node ids name their tests', () => {
    assert.deepEqual(of(['tests/test_a.py::test_y[1]', 'tests/test_a.py::test_x'], all), [
      'tests.test_a::test_x',
      'tests.test_a::test_y[1]',
    ]);
  });
  it('a whole test file, or a node id that names no usable test, leaves it to the probe (null)', () => {
    assert.equal(of(['test/a.test.ts'], all), null);
    assert.equal(of(['tests/test_a.py::test_x', 'tests/test_a.py::test_gone'], all), null);
    assert.equal(of(['tests/test_a.py::test_x'], ['tests.test_a::test_y[1]']), null, 'its test is not usable');
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, makeRepo } from '../helpers/git.js';
import { draftSymbols } from '../../src/credit/run.js';
import { runOracle, startAhead, type AheadOptions } from '../../src/credit/oracle.js';
import { toScored } from '../../src/credit/score.js';
import { openBox } from '../../src/sandbox/run.js';
import { findBwrap, readSecrets } from '../../src/sandbox/host.js';
import { packageRoot } from '../../src/core/package-root.js';
import type { Changed } from '../../src/symbols/schema.js';
import type { Results } from '../../src/runner/results.js';

// Under `sealgate runner` the first control and the trace may run beside the sealed run, while
// the machine is busy with it; every later run comes after it. Suppose a test could tell the
// two times apart (the load average, its own speed): it passes in the first control, then
// fails in every later run, so it "kills" the revert and every mutant. Here it tells them
// apart for sure: a file on the host (the runs are unsandboxed for it) exists while the first
// round runs and is gone after. The null mutant and the control after the mutants are made
// like the mutant runs and fail it too: it earns nothing.

const BASE = 'export function f(x) {\n  return x + 1;\n}\n';
const PATCHED = 'export function f(x) {\n  return x + 2;\n}\n';
const runner = (flag: string): string => `import { existsSync, writeFileSync } from 'node:fs';
const busy = existsSync(${JSON.stringify(flag)});
const body = ['positive', 'three'].map((n) => '<testcase classname="calc" name="' + n + '" file="test/calc.test.mjs" time="0.001">' + (busy ? '' : '<failure message="no"/>') + '</testcase>').join('');
writeFileSync('junit.xml', '<?xml version="1.0"?><testsuites><testsuite name="calc" tests="2">' + body + '</testsuite></testsuites>');
process.exit(busy ? 0 : 1);
`;
const SYM = 'src/calc.mjs::f';
const IDS = ['test/calc.test.mjs::calc::positive', 'test/calc.test.mjs::calc::three'];

test('a test that passes only beside the sealed run (in the first round made ahead) and fails in every later run earns nothing', { timeout: 300_000 }, async () => {
  const host = mkdtempSync(join(tmpdir(), 'sealgate-adv-ahead-'));
  const flag = join(host, 'busy');
  const repo = makeRepo({ 'src/calc.mjs': BASE, 'runner.mjs': runner(flag), 'test/calc.test.mjs': '// the stand-in runner holds the tests\n', '.gitignore': 'junit.xml\n' });
  try {
    const base = git(repo.dir, 'rev-parse', 'HEAD').trim();
    writeFileSync(join(repo.dir, 'src/calc.mjs'), PATCHED);
    const changed: Changed = {
      base,
      patch_sha256: '1'.repeat(64),
      files: [{ path: 'src/calc.mjs', old_path: null, status: 'modified', class: 'production', language: 'javascript' }],
      changed: [SYM],
      moved: [],
      deleted: [],
      typeOnly: [],
      uncreditable: [],
      locations: { [SYM]: { path: 'src/calc.mjs', language: 'javascript', start_line: 1, end_line: 3, changed_lines: [[2, 2]] } },
    };
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const sandbox = openBox({ isolation: 'none', bwrap: findBwrap(), env, secrets: readSecrets(repo.dir, env, packageRoot()), path: 'test' });
    const o: AheadOptions = { workTree: repo.dir, depsFrom: repo.dir, command: ['node', 'runner.mjs'], junit: ['junit.xml'], env, fastEnv: null, sandbox, controlTimeoutMs: 120_000, cacheDir: null, cacheSalt: 'test' };
    const { drafts, judged } = await draftSymbols(repo.dir, changed, 4, 'seed-1');
    writeFileSync(flag, '');
    const ahead = startAhead(drafts, o, null);
    await ahead.runs;
    rmSync(flag);
    const oracle = await runOracle(drafts, { ...o, judged, ahead: Promise.resolve(ahead), baselineMs: 1000, workers: 2, seed: 'seed-1', eligible: new Set(IDS), ignore: new Set(), narrow: () => null, narrowTargets: () => null, filesOf: () => ['test/calc.test.mjs'] });
    assert.equal(oracle.ahead, 'used');
    assert.deepEqual([...oracle.usable].sort(), IDS, 'the first control passed both');
    assert.deepEqual([...(oracle.after?.failed ?? [])].sort(), IDS, 'the control after the mutants failed both');
    const results: Results = { runner_job: 'r1', digest: 'abc123', command: ['node', 'runner.mjs'], exit_code: 0, signal: null, timed_out: false, started_at: '2026-01-01T00:00:00Z', ended_at: '2026-01-01T00:00:01Z', junit: [{ path: 'junit.xml', sha256: null, status: 'ok' }], cases: IDS.map((id) => ({ id, file: 'test/calc.test.mjs', suite: 'calc', name: id.split('::').at(-1) as string, status: 'passed' as const, duration_ms: 1 })), sandbox: 'none', cwd: repo.dir };
    const scored = toScored({ changed, results, digest: 'abc123', runnerJob: 'r1', proposalId: 'p1', verdicts: new Map(IDS.map((t) => [t, { kind: 'property' as const }])), plans: await judged, unsupported: new Map(), baselineProblem: null, oracle });
    assert.deepEqual(scored.credit.credited, []);
    assert.deepEqual(scored.credit.missing, [SYM]);
    const sensitive = (scored.credit.evidence?.[SYM]?.sensitive ?? []).map((s) => s.test).sort();
    assert.deepEqual(sensitive, IDS, JSON.stringify(scored.credit.evidence?.[SYM]));
  } finally {
    repo.dispose();
    rmSync(host, { recursive: true, force: true });
  }
});

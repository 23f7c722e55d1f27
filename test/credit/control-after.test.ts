import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDS, PATCHED, REPORT, SYM, standInBox, standInChanged, standInRepo } from '../helpers/stand-in.js';
import { draftSymbols } from '../../src/credit/plan/symbols.js';
import { runOracle } from '../../src/credit/oracle/oracle.js';
import type { OracleResult } from '../../src/credit/oracle/types.js';

// The control after the mutants must start after the last judging run has started, with any
// number of workers. Here the revert runs slowly and survives, so the behavioural mutants it
// leads to start late: the control after must wait for them, and the runs that count must be
// the same with one worker and two. A stand-in test runner (a script of the tree, run outside
// the sandbox so it can log each run to a file the test reads) tells the runs apart by the
// source they see.

const RUNNER = `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const src = readFileSync('src/calc.mjs', 'utf8');
const label = src === ${JSON.stringify(PATCHED)} ? 'control' : src.includes('x + 1') && !src.includes('throw') ? 'revert' : 'mutant';
if (label === 'revert') await new Promise((r) => setTimeout(r, 2500));
let f = null;
try { ({ f } = await import('./src/calc.mjs')); } catch {}
const ok = (fn) => { try { return fn() === true; } catch { return false; } };
const cases = [['positive', ok(() => f(1) > 0)], ['three', ok(() => f(1) === 3 || f(1) === 2)]];
${REPORT}
appendFileSync(process.env.SG_TEST_LOG, label + '\\n');
process.exit(cases.every(([, p]) => p) ? 0 : 1);
`;

describe('the control after the mutants', { concurrency: false }, () => {
  let repo: ReturnType<typeof standInRepo>;
  let logs: string;
  const oracle = async (workers: number): Promise<{ r: OracleResult; log: string[] }> => {
    const log = join(logs, `log-${workers}.txt`);
    writeFileSync(log, '');
    const { drafts, judged } = await draftSymbols(repo.dir, standInChanged(repo.base), 4, 'seed-1');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', SG_TEST_LOG: log };
    const box = standInBox(repo.dir, env);
    const r = await runOracle(drafts, {
      judged,
      workTree: repo.dir,
      command: ['node', 'runner.mjs'],
      junit: ['junit.xml'],
      env,
      sandbox: box,
      controlTimeoutMs: 60_000,
      baselineMs: 1000,
      workers,
      seed: 'seed-1',
      eligible: new Set(IDS),
      ignore: new Set(),
      narrow: () => null,
      narrowTargets: () => null,
      filesOf: () => ['test/calc.test.mjs'],
      cacheDir: null,
      cacheSalt: 'test',
    });
    return {
      r,
      log: readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    };
  };
  let one: Awaited<ReturnType<typeof oracle>>;
  let two: Awaited<ReturnType<typeof oracle>>;
  before(async () => {
    repo = standInRepo(RUNNER);
    logs = mkdtempSync(join(tmpdir(), 'sealgate-after-'));
    one = await oracle(1);
    two = await oracle(2);
  });
  after(() => {
    repo.dispose();
    rmSync(logs, { recursive: true, force: true });
  });

  it('the revert survives, so behavioural mutants run after it', () => {
    const runs = two.r.mutants.get(SYM) ?? [];
    assert.equal(runs.find((m) => m.mutant.kind === 'revert')?.failed.length, 0, JSON.stringify(runs));
    assert.ok(
      runs.some((m) => m.mutant.kind === 'behavioural'),
      JSON.stringify(runs.map((m) => m.mutant.id)),
    );
  });
  it('two workers: while the slow revert ran, the idle worker did not make the control after; it ran once, last', () => {
    assert.equal(two.log.filter((l) => l === 'control').length, 2, two.log.join(' '));
    assert.equal(two.log.at(-1), 'control', two.log.join(' '));
    assert.ok(two.log.lastIndexOf('mutant') > two.log.indexOf('revert'), two.log.join(' '));
  });
  it('one worker: the first control and the one after', () => {
    assert.equal(one.log.filter((l) => l === 'control').length, 2, one.log.join(' '));
    assert.equal(one.log.at(-1), 'control');
  });
  it('the runs that count and the control after are the same with one worker and two', () => {
    const view = (r: OracleResult) => ({
      mutants: (r.mutants.get(SYM) ?? []).map((m) => [m.mutant.id, m.status, m.failed, m.ranAgainst]),
      after: r.after && { status: r.after.status, failed: r.after.failed, ranAgainst: r.after.ranAgainst },
    });
    assert.deepEqual(view(two.r), view(one.r));
    assert.equal(two.r.after?.status, 'ok');
  });
});

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDS, PATCHED, REPORT, SYM, standInBox, standInChanged, standInRepo } from '../helpers/stand-in.js';
import { draftSymbols } from '../../src/credit/plan/symbols.js';
import { runOracle } from '../../src/credit/oracle/oracle.js';
import type { OracleResult } from '../../src/credit/oracle/types.js';

// jest and tsx keep their transform caches in the run's TMPDIR (jest_<uid>, tsx-<uid>), so
// every fresh run used to transform every file again. The first control's caches now seed every
// run after the first round. A stand-in runner logs, per run, what kind of run it is and whether
// its TMPDIR held a cache, then leaves one (as jest would), with a marker file beside it that is
// never carried over.

const RUNNER = `import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const src = readFileSync('src/calc.mjs', 'utf8');
const label = src.includes('SEALGATE_TRACE_FILE') ? 'trace' : src === ${JSON.stringify(PATCHED)} ? 'control' : 'mutant';
const tmp = process.env.TMPDIR;
const cache = join(tmp, 'jest_rs');
const warm = existsSync(join(cache, 'map')) ? 'warm:' + readFileSync(join(cache, 'map'), 'utf8') : 'cold';
appendFileSync(process.env.SG_TEST_LOG, label + ' ' + warm + (existsSync(join(tmp, 'marker')) ? ' marker' : '') + '\\n');
mkdirSync(cache, { recursive: true });
writeFileSync(join(cache, 'map'), label);
writeFileSync(join(tmp, 'marker'), label);
let f = null;
try { ({ f } = await import('./src/calc.mjs')); } catch {}
const ok = (fn) => { try { return fn() === true; } catch { return false; } };
const cases = [['positive', ok(() => f(1) > 0)], ['three', ok(() => f(1) === 3)]];
${REPORT}
process.exit(cases.every(([, p]) => p) ? 0 : 1);
`;

describe("runner caches: the first control's seed every run after the first round", { concurrency: false }, () => {
  let repo: ReturnType<typeof standInRepo>;
  let scratch: string;
  before(() => {
    repo = standInRepo(RUNNER);
    scratch = mkdtempSync(join(tmpdir(), 'sealgate-runner-caches-'));
  });
  after(() => {
    repo.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  const oracle = async (log: string, workers: number): Promise<OracleResult> => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', SG_TEST_LOG: log };
    const { drafts, judged } = await draftSymbols(
      repo.dir,
      standInChanged(repo.base),
      4,
      'seed-1',
      undefined,
      undefined,
      undefined,
      'runner-caches-test',
    );
    return runOracle(drafts, {
      workTree: repo.dir,
      depsFrom: repo.dir,
      command: ['node', 'runner.mjs'],
      junit: ['junit.xml'],
      env,
      fastEnv: null,
      sandbox: standInBox(repo.dir, env),
      controlTimeoutMs: 300_000,
      cacheDir: null,
      cacheSalt: 'test',
      judged,
      baselineMs: 1000,
      workers,
      seed: 'seed-1',
      eligible: new Set(IDS),
      ignore: new Set(),
      narrow: () => null,
      narrowTargets: () => null,
      filesOf: () => ['test/calc.test.mjs'],
      // The trace, not the early probes: it runs beside the control, cold like it.
      earlyProbes: false,
    });
  };

  for (const workers of [1, 2]) {
    it(`${workers} worker(s): the control and the trace start cold; every later run starts with the control's cache and none with what else it left`, async () => {
      const log = join(scratch, `log-${workers}.txt`);
      writeFileSync(log, '');
      const r = await oracle(log, workers);
      const lines = readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      const first = lines.slice(0, 2);
      assert.deepEqual([...first].sort(), ['control cold', 'trace cold'], lines.join(' | '));
      const later = lines.slice(2);
      assert.ok(later.length >= 3, `the revert, the null mutant and the control again: ${lines.join(' | ')}`);
      for (const l of later)
        assert.match(
          l,
          /^(mutant|control) warm:control$/,
          `seeded from the first control's cache alone, no marker: ${lines.join(' | ')}`,
        );
      // The credit is the one cold runs give: the revert is killed, the null passes.
      const runs = r.mutants.get(SYM) ?? [];
      assert.ok(
        runs.some((m) => m.mutant.kind === 'revert' && m.failed.length > 0),
        JSON.stringify(runs),
      );
      assert.ok(
        runs.some((m) => m.mutant.kind === 'null' && m.status === 'ok' && m.failed.length === 0),
        JSON.stringify(runs),
      );
    });
  }
});

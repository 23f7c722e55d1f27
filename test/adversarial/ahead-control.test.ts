import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDS, REPORT, SYM, standInBox, standInChanged, standInRepo } from '../helpers/stand-in.js';
import { draftSymbols } from '../../src/credit/plan/symbols.js';
import { runOracle } from '../../src/credit/oracle/oracle.js';
import { startAhead, type AheadOptions } from '../../src/credit/speedups/ahead.js';
import { toScored } from '../../src/credit/score/score.js';
import type { Results } from '../../src/runner/results.js';

// Under `sealgate runner` the first round of the credit runs may be made beside the sealed run,
// while the machine is busy with it: the control and the trace, or (fewer symbols than
// workers) the control and the probe. Suppose a test could tell those runs from the later ones
// (the load average, its own speed) and passed only there. Here it tells them apart for sure:
// a file on the host (the runs are unsandboxed for it) exists while the first round runs and is
// gone after. With the trace beside the sealed run, the test then fails the probe, every mutant,
// the null mutant and the control after the mutants: sensitive, it earns nothing. With the probe
// beside it, it passed the probe: it never reached the symbol, and earns nothing either.

// The runs made ahead also yield the cores (AHEAD_NICE): their niceness is a signal a test can
// read for real, and the second way below uses it instead of the file.
const runner = (
  flag: string,
  signal: 'file' | 'niceness',
): string => `import { existsSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
const busy = ${signal === 'file' ? `existsSync(${JSON.stringify(flag)})` : 'getPriority() > 0'};
const cases = [['positive', busy], ['three', busy]];
${REPORT}
process.exit(busy ? 0 : 1);
`;

for (const [workers, signal] of [
  [1, 'file'],
  [2, 'file'],
  [1, 'niceness'],
  [2, 'niceness'],
] as const) {
  test(
    `a test that passes only beside the sealed run (the first round made ahead, ${workers} worker(s), told by ${signal === 'file' ? 'a file on the host' : 'its own niceness'}) and fails in every later run earns nothing`,
    { timeout: 300_000 },
    async () => {
      const host = mkdtempSync(join(tmpdir(), 'sealgate-adv-ahead-'));
      const flag = join(host, 'busy');
      const repo = standInRepo(runner(flag, signal));
      try {
        const changed = standInChanged(repo.base);
        const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
        const sandbox = standInBox(repo.dir, env);
        const o: AheadOptions = {
          workTree: repo.dir,
          depsFrom: repo.dir,
          command: ['node', 'runner.mjs'],
          junit: ['junit.xml'],
          env,
          fastEnv: null,
          sandbox,
          controlTimeoutMs: 120_000,
          cacheDir: null,
          cacheSalt: 'test',
          workers,
        };
        const { drafts, judged } = await draftSymbols(repo.dir, changed, 4, 'seed-1');
        writeFileSync(flag, '');
        const ahead = startAhead(drafts, o, null);
        await ahead.runs;
        rmSync(flag);
        const oracle = await runOracle(drafts, {
          ...o,
          judged,
          ahead: Promise.resolve(ahead),
          baselineMs: 1000,
          workers,
          seed: 'seed-1',
          eligible: new Set(IDS),
          ignore: new Set(),
          narrow: () => null,
          narrowTargets: () => null,
          filesOf: () => ['test/calc.test.mjs'],
        });
        assert.equal(oracle.ahead, 'used');
        assert.deepEqual([...oracle.usable].sort(), IDS, 'the first control passed both');
        const results: Results = {
          runner_job: 'r1',
          digest: 'abc123',
          command: ['node', 'runner.mjs'],
          exit_code: 0,
          signal: null,
          timed_out: false,
          started_at: '2026-01-01T00:00:00Z',
          ended_at: '2026-01-01T00:00:01Z',
          junit: [{ path: 'junit.xml', sha256: null, status: 'ok' }],
          cases: IDS.map((id) => ({
            id,
            file: 'test/calc.test.mjs',
            suite: 'calc',
            name: id.split('::').at(-1) as string,
            status: 'passed' as const,
            duration_ms: 1,
          })),
          sandbox: 'none',
          cwd: repo.dir,
        };
        const scored = toScored({
          changed,
          results,
          digest: 'abc123',
          runnerJob: 'r1',
          proposalId: 'p1',
          verdicts: new Map(IDS.map((t) => [t, { kind: 'property' as const }])),
          plans: await judged,
          unsupported: new Map(),
          baselineProblem: null,
          oracle,
        });
        assert.deepEqual(scored.credit.credited, []);
        assert.deepEqual(scored.credit.missing, [SYM]);
        const ev = scored.credit.evidence?.[SYM];
        if (workers === 1) {
          assert.deepEqual([...(oracle.after?.failed ?? [])].sort(), IDS, 'the control after the mutants failed both');
          assert.deepEqual((ev?.sensitive ?? []).map((x) => x.test).sort(), IDS, JSON.stringify(ev));
        } else {
          assert.deepEqual(oracle.probes.get(SYM)?.failed, [], 'the probe beside the sealed run failed neither');
          assert.deepEqual(ev?.reached ?? [], [], JSON.stringify(ev));
        }
      } finally {
        repo.dispose();
        rmSync(host, { recursive: true, force: true });
      }
    },
  );
}

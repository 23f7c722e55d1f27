import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDS, PATCHED, REPORT, SYM, standInBox, standInChanged, standInRepo } from '../helpers/stand-in.js';
import { draftSymbols } from '../../src/credit/plan/symbols.js';
import { AHEAD_NICE, startAhead, type AheadOptions, type AheadRound } from '../../src/credit/speedups/ahead.js';
import { runOracle } from '../../src/credit/oracle/oracle.js';
import type { OracleResult } from '../../src/credit/oracle/types.js';

// Under `sealgate runner` the oracle's first round (the control and the trace) may start beside
// the sealed run (startAhead, from the credit prelude). The oracle takes those runs as its own
// only when they were made from every input it would use (aheadKey); otherwise it ends them and
// makes its own. Either way the runs that count are the same. A stand-in test runner (a script
// of the tree, run outside the sandbox so it can log each run to a file the test reads) tells
// the runs apart by the source they see.

const RUNNER = `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const src = readFileSync('src/calc.mjs', 'utf8');
const label = src.includes('SEALGATE_TRACE_FILE') ? 'trace' : src === ${JSON.stringify(PATCHED)} ? 'control' : 'mutant';
appendFileSync(process.env.SG_TEST_LOG, label + '\\n');
if (process.env.SG_TEST_EVENTS) {
  appendFileSync(process.env.SG_TEST_EVENTS, 'start ' + label + '\\n');
  // Long enough that a second run started beside this one would start before it ends.
  await new Promise((r) => setTimeout(r, 1500));
}
if (process.env.SG_TEST_PRIORITY) {
  let group = 'none';
  try { group = readFileSync('/proc/self/autogroup', 'utf8').trim().replace(/^.* nice /, ''); } catch {}
  appendFileSync(process.env.SG_TEST_PRIORITY, label + ' ' + (await import('node:os')).getPriority() + ' ' + group + '\\n');
}
if (process.env.SG_TEST_SLOW === '1') await new Promise((r) => setTimeout(r, 120000));
let f = null;
try { ({ f } = await import('./src/calc.mjs')); } catch {}
const ok = (fn) => { try { return fn() === true; } catch { return false; } };
const cases = [['positive', ok(() => f(1) > 0)], ['three', ok(() => f(1) === 3)]];
${REPORT}
if (process.env.SG_TEST_EVENTS) appendFileSync(process.env.SG_TEST_EVENTS, 'end ' + label + '\\n');
process.exit(cases.every(([, p]) => p) ? 0 : 1);
`;

/** One noise key for every drafting here, as the credit step keeps one per cache folder (noiseKeyFor): the runs' edits, and so the cache, agree. */
const NOISE_KEY = 'ahead-test-noise-key';

describe('the first round made beside the sealed run', { concurrency: false }, () => {
  let repo: ReturnType<typeof standInRepo>;
  let scratch: string;
  const changed = () => standInChanged(repo.base);
  let n = 0;
  const logFile = (): string => {
    const p = join(scratch, `log-${++n}.txt`);
    writeFileSync(p, '');
    return p;
  };
  const readLog = (p: string): string[] =>
    readFileSync(p, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
  const options = (log: string, extra: Record<string, string> = {}, cacheDir: string | null = null): AheadOptions => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', SG_TEST_LOG: log, ...extra };
    const sandbox = standInBox(repo.dir, env);
    return {
      workTree: repo.dir,
      depsFrom: repo.dir,
      command: ['node', 'runner.mjs'],
      junit: ['junit.xml'],
      env,
      fastEnv: null,
      sandbox,
      controlTimeoutMs: 300_000,
      cacheDir,
      cacheSalt: 'test',
    };
  };
  const oracle = async (o: AheadOptions, ahead: AheadRound | null): Promise<OracleResult> => {
    const { drafts, judged } = await draftSymbols(
      repo.dir,
      changed(),
      4,
      'seed-1',
      undefined,
      undefined,
      undefined,
      NOISE_KEY,
    );
    return runOracle(drafts, {
      ...o,
      judged,
      baselineMs: 1000,
      workers: 2,
      seed: 'seed-1',
      eligible: new Set(IDS),
      ignore: new Set(),
      narrow: () => null,
      narrowTargets: () => null,
      filesOf: () => ['test/calc.test.mjs'],
      ...(ahead !== null ? { ahead: Promise.resolve(ahead) } : {}),
    });
  };
  const ahead = async (o: AheadOptions): Promise<AheadRound> =>
    startAhead(
      (await draftSymbols(repo.dir, changed(), 4, 'seed-1', undefined, undefined, undefined, NOISE_KEY)).drafts,
      o,
      null,
    );
  const view = (r: OracleResult) => ({
    usable: [...r.usable].sort(),
    mutants: (r.mutants.get(SYM) ?? []).map((m) => [m.mutant.id, m.status, m.failed, m.ranAgainst]),
    after: r.after && { status: r.after.status, failed: r.after.failed, ranAgainst: r.after.ranAgainst },
  });
  let alone: { r: OracleResult; log: string[] };

  before(async () => {
    repo = standInRepo(RUNNER);
    scratch = mkdtempSync(join(tmpdir(), 'sealgate-ahead-'));
    const log = logFile();
    alone = { r: await oracle(options(log), null), log: readLog(log) };
  });
  after(() => {
    repo.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('without it, the oracle makes its own first round (one symbol, two workers: the control and the probe, no trace)', () => {
    assert.equal(alone.r.ahead, null);
    assert.deepEqual([...alone.log.slice(0, 2)].sort(), ['control', 'mutant'], alone.log.join(' '));
    assert.ok(
      alone.r.mutants.get(SYM)?.some((m) => m.mutant.kind === 'revert' && m.failed.length > 0),
      'the revert is killed',
    );
  });

  it("made from the same inputs: taken as the oracle's own, which then makes neither again, and counts the same runs", async () => {
    const log = logFile();
    const o = options(log);
    const a = await ahead(o);
    // One symbol, two workers: as the oracle would, the control and the probe whole, no trace.
    assert.equal((await a.runs)?.size, 1, 'the control');
    assert.equal((await a.probes)?.size, 1, 'the probe');
    const beside = readLog(log);
    assert.deepEqual([...beside].sort(), ['control', 'mutant']);
    const r = await oracle(o, a);
    const later = readLog(log).slice(beside.length);
    assert.equal(r.ahead, 'used');
    assert.ok(!later.includes('trace'), later.join(' '));
    assert.equal(r.probes.get(SYM)?.failed.length, 2, 'the probe made ahead reached both tests');
    assert.deepEqual(
      later.filter((l) => l === 'control'),
      ['control'],
      `only the control after the mutants: ${later.join(' ')}`,
    );
    assert.equal(later.at(-1), 'control');
    assert.deepEqual(view(r), view(alone.r));
  });

  it('made from other inputs (another environment): ended unused, and the oracle makes its own, with the same result', async () => {
    const log = logFile();
    const a = await ahead(options(log, { SG_OTHER: '1' }));
    await a.runs;
    const seen = readLog(log).length;
    const r = await oracle(options(log), a);
    const later = readLog(log).slice(seen);
    assert.equal(r.ahead, 'ended');
    assert.deepEqual([...later.slice(0, 2)].sort(), ['control', 'mutant'], later.join(' '));
    assert.deepEqual(view(r), view(alone.r));
  });

  it('ended while its runs go on: they stop at once, give no result and leave nothing in the cache', async () => {
    const log = logFile();
    const cache = mkdtempSync(join(scratch, 'cache-'));
    const a = await ahead(options(log, { SG_TEST_SLOW: '1' }, cache));
    // Both runs have started (each logs first, then sleeps two minutes).
    for (let i = 0; i < 600 && readLog(log).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(readLog(log).length, 2, 'both runs started');
    const t0 = performance.now();
    await a.cancel();
    assert.ok(performance.now() - t0 < 60_000, 'cancel waited for the runs instead of ending them');
    assert.equal(await a.runs, null);
    assert.equal(await a.key.then((m) => typeof m), 'string');
    assert.deepEqual(readdirSync(cache), []);
  });

  it('made with two workers and taken by an oracle with one: its control is taken, and the oracle makes the trace (its own first round) itself', async () => {
    const log = logFile();
    const o = options(log);
    const a = await ahead(o);
    await a.runs;
    const seen = readLog(log).length;
    const { drafts, judged } = await draftSymbols(
      repo.dir,
      changed(),
      4,
      'seed-1',
      undefined,
      undefined,
      undefined,
      NOISE_KEY,
    );
    const r = await runOracle(drafts, {
      ...o,
      judged,
      baselineMs: 1000,
      workers: 1,
      seed: 'seed-1',
      eligible: new Set(IDS),
      ignore: new Set(),
      narrow: () => null,
      narrowTargets: () => null,
      filesOf: () => ['test/calc.test.mjs'],
      ahead: Promise.resolve(a),
    });
    const later = readLog(log).slice(seen);
    assert.equal(r.ahead, 'used');
    assert.equal(later[0], 'trace', later.join(' '));
    assert.deepEqual(view(r), view(alone.r));
  });

  it('with one worker (runner --workers 1) it makes one run at a time beside the sealed run: the control, then the trace', async () => {
    const log = logFile();
    const events = logFile();
    const a = startAhead(
      (await draftSymbols(repo.dir, changed(), 4, 'seed-1', undefined, undefined, undefined, NOISE_KEY)).drafts,
      { ...options(log, { SG_TEST_EVENTS: events }), workers: 1 },
      null,
    );
    assert.equal((await a.runs)?.size, 2);
    assert.deepEqual(readLog(events), ['start control', 'end control', 'start trace', 'end trace']);
  });

  it("its runs yield the cores to the sealed run (niceness AHEAD_NICE, and their session group's too where the kernel groups by session); the oracle's own go at the usual priority", async () => {
    const priority = logFile();
    const o = options(logFile(), { SG_TEST_PRIORITY: priority });
    const a = await ahead(o);
    assert.deepEqual([(await a.runs)?.size, (await a.probes)?.size], [1, 1]);
    const made = readLog(priority);
    const grouped = existsSync('/proc/self/autogroup');
    // One symbol, two workers: the control and the probe (a mutant to the stand-in runner).
    assert.deepEqual(made.map((l) => l.split(' ')[0]).sort(), ['control', 'mutant'], made.join('; '));
    for (const l of made)
      assert.deepEqual(l.split(' ').slice(1), [String(AHEAD_NICE), grouped ? String(AHEAD_NICE) : 'none'], l);
    // The oracle's own runs (none taken from the round above: another log file, so other inputs) are not lowered.
    writeFileSync(priority, '');
    await oracle(options(logFile(), { SG_TEST_PRIORITY: priority }), null);
    const own = readLog(priority);
    assert.ok(own.length >= 3, own.join('; '));
    for (const l of own) assert.deepEqual(l.split(' ').slice(1), ['0', grouped ? '0' : 'none'], l);
  });

  it('runs it finds in the cache are not its own: the oracle takes them from the cache', async () => {
    const cache = mkdtempSync(join(scratch, 'cache-'));
    const log = logFile();
    const o = options(log, {}, cache);
    const first = await ahead(o);
    assert.equal((await first.runs)?.size, 1);
    // The control is cached by the prelude's run; the probe by the oracle that takes it.
    assert.equal((await oracle(o, first)).ahead, 'used');
    const second = await ahead(o);
    assert.equal((await second.runs)?.size, 0, 'the control was a cache hit');
    assert.equal((await second.probes)?.size, 0, 'so was the probe');
    const seen = readLog(log).length;
    const r = await oracle(o, second);
    assert.equal(r.ahead, 'used');
    assert.equal(r.control.cached, true);
    assert.equal(r.probes.get(SYM)?.cached, true);
    assert.ok(existsSync(cache));
    assert.deepEqual(readLog(log).slice(seen), [], 'every run came from the cache');
  });
});

// The runner job as a library call: its steps' outcomes and the audit come back as data, its progress as events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { parseInstant, type Instant } from '../../src/core/time.js';
import { runRunnerJob, RUNNER_STEPS, type RunnerJobEvent, type RunnerJobOptions } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo } from '../helpers/git.js';
import { AGENT_PATCH, AUTHOR, DISCOUNT, EXAMPLE_DIR, NOW, RUNNER, TAX, exampleFiles } from '../workflow/review.js';

/** The example with the agent's patch proposed (not applied: the job builds its own tree). */
async function proposed(): Promise<{ dir: string; base: string; dispose: () => void }> {
  const r = makeRepo({ ...exampleFiles(), '.gitignore': 'node_modules\nreview/\njunit.xml\n' });
  symlinkSync(resolve('node_modules'), join(r.dir, 'node_modules'), 'dir');
  writeFileSync(join(r.dir, 'p.diff'), readFileSync(join(EXAMPLE_DIR, AGENT_PATCH)));
  const p = await runCli(
    ['propose', '--repo', r.dir, '--author-job', AUTHOR, '--runner-job', RUNNER, '--patch', 'p.diff'],
    { cwd: r.dir, now: new Date(NOW) },
  );
  assert.equal(p.exit, 0, p.stderr);
  return { ...r, base: git(r.dir, 'rev-parse', 'HEAD').trim() };
}

function options(dir: string, events: RunnerJobEvent[], over: Partial<RunnerJobOptions> = {}): RunnerJobOptions {
  let t = Date.parse(NOW);
  return {
    repo: dir,
    runnerJob: RUNNER,
    seed: '42',
    signingKey: null,
    now: parseInstant(NOW) as Instant,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    clock: () => new Date((t += 250)),
    workers: 2,
    noCache: true,
    onEvent: (e) => void events.push(e),
    ...over,
  };
}

test('runner job: every step returns its data, the events come in step order, the audit closes it', async () => {
  const r = await proposed();
  try {
    const events: RunnerJobEvent[] = [];
    const key = generateKeyPairSync('ed25519').privateKey;
    const job = await runRunnerJob(options(r.dir, events, { signingKey: key }));
    assert.equal(job.code, 'E_CREDIT_MISSING');
    assert.equal(job.stopped, null);
    assert.deepEqual(
      job.steps.map((s) => [s.step, s.refusal]),
      [...RUNNER_STEPS, 'attest'].map((s) => [s, null]),
    );
    const [seal, symbols, verify, run, credit, publish, attest] = job.steps;
    assert.ok(seal?.step === 'seal' && seal.data !== null);
    assert.equal(seal.data.written, true);
    assert.equal(seal.data.baseCommit, r.base);
    assert.ok(symbols?.step === 'symbols' && symbols.data !== null);
    assert.deepEqual([...symbols.data.changed].sort(), [DISCOUNT, TAX].sort());
    assert.deepEqual(verify?.data, { status: 'match', digest: seal.data.digest });
    assert.ok(run?.step === 'run' && run.data !== null);
    assert.equal(run.data.results.digest, seal.data.digest);
    assert.deepEqual(
      run.data.results.cases.map((c) => c.status),
      ['passed', 'passed', 'passed', 'passed'],
    );
    assert.ok(credit?.step === 'credit' && credit.data !== null);
    assert.deepEqual([credit.data.credit.pass, credit.data.credit.missing], [false, [TAX]]);
    assert.ok(publish?.step === 'publish' && publish.data !== null);
    assert.deepEqual(publish.data.files.map((f) => f.name).sort(), ['junit-1.xml', 'stderr.log', 'stdout.log']);
    assert.ok(attest?.step === 'attest' && attest.data !== null);
    assert.ok(attest.data.subjects > 0 && existsSync(attest.data.path), JSON.stringify(attest.data));
    assert.match(attest.data.keyId ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.ok(job.closing !== null);
    assert.equal(job.closing.audit.code, 'E_CREDIT_MISSING');
    assert.deepEqual([job.closing.missing, job.closing.flagged], [[TAX], []]);
    // The clock advances 250 ms a call: the job's time is the clock's, not the machine's.
    assert.equal(job.closing.jobMs % 250, 0);
    // Events: the tree first; each step starts, then ends, in order; the credit oracle's progress inside the credit step.
    assert.equal(events[0]?.kind, 'ready');
    const order = events
      .filter((e) => e.kind === 'step-start' || e.kind === 'step-end')
      .map((e) => (e.kind === 'step-start' ? `+${e.step}` : `-${e.outcome.step}`));
    assert.deepEqual(
      order,
      [...RUNNER_STEPS, 'attest'].flatMap((s) => [`+${s}`, `-${s}`]),
    );
    const kinds = events.map((e) => (e.kind === 'step-start' ? `+${e.step}` : e.kind));
    const progress = kinds.flatMap((k, i) => (k === 'credit-progress' ? [i] : []));
    assert.ok(progress.length >= 2, 'the oracle reports its progress');
    assert.ok(progress.every((i) => i > kinds.indexOf('+credit') && i < kinds.indexOf('+publish')));
    // Each step's end event carries the outcome the result holds.
    const ends = events.flatMap((e) => (e.kind === 'step-end' ? [e.outcome] : []));
    assert.deepEqual(ends, job.steps);
  } finally {
    r.dispose();
  }
});

test('runner job: a step that refuses stops the job with its code and findings; nothing after it runs', async () => {
  const r = await proposed();
  try {
    const events: RunnerJobEvent[] = [];
    const shared = await runRunnerJob(options(r.dir, events, { runnerJob: AUTHOR }));
    assert.equal(shared.code, 'E_SHARED_JOB');
    assert.equal(shared.stopped?.at, 'seal');
    assert.deepEqual(
      shared.steps.map((s) => [s.step, s.data, s.refusal?.code]),
      [['seal', null, 'E_SHARED_JOB']],
    );
    assert.deepEqual(
      shared.steps[0]?.refusal?.findings.map((f) => f.path),
      [`${LAYOUT.record}#author_job`],
    );
    assert.equal(shared.closing, null);
    assert.equal(existsSync(join(r.dir, LAYOUT.results)), false);
    assert.equal(
      events.some((e) => e.kind === 'step-start' && e.step === 'symbols'),
      false,
    );
    // No seed given and none in the environment: a usage refusal of the seal step.
    const { seed, ...unseededOptions } = options(r.dir, []);
    assert.equal(seed, '42');
    const unseeded = await runRunnerJob(unseededOptions);
    assert.equal(unseeded.stopped?.at, 'seal');
    assert.deepEqual([unseeded.code, unseeded.stopped?.refusal.usage], ['E_INPUT_INVALID', true]);
    // Another base than the one expected: refused before the policy is read or the tree built.
    const other = 'a'.repeat(40);
    const based: RunnerJobEvent[] = [];
    const wrong = await runRunnerJob(options(r.dir, based, { expectBase: other }));
    assert.equal(wrong.stopped?.at, 'base');
    assert.equal(wrong.code, 'E_INPUT_INVALID');
    assert.match(wrong.stopped?.refusal.message ?? '', new RegExp(`names base ${r.base}, not ${other}`));
    assert.deepEqual([based, wrong.steps], [[], []]);
    assert.equal(
      (await runRunnerJob(options(r.dir, [], { expectBase: r.base, runnerJob: AUTHOR }))).stopped?.at,
      'seal',
    );
  } finally {
    r.dispose();
  }
});

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { childEnv } from '../helpers/oracle.js';
import { AGENT_PATCH, agentPatch, exampleRepo, propose, writePatch } from '../adversarial/helpers.js';
import { NOW, RUNNER } from '../adversarial/example.js';
import { scoreCredit } from '../../src/credit/step/credit-step.js';
import { startCreditPrelude, type CreditPrelude } from '../../src/credit/speedups/prelude.js';
import { readPolicy } from '../../src/policy/read.js';
import { buildRecordTree } from '../../src/tree/build.js';
import type { RunnerTree } from '../../src/tree/build.js';
import type { Policy } from '../../src/policy/read.js';

// `sealgate runner` drafts and checks the credit step's mutants while the sealed run goes on
// (startCreditPrelude). The credit step takes that work only when it was drafted from exactly
// the inputs it reads itself; any other prelude is ignored and the mutants are drafted again.

/** A prelude that records whether the credit step awaited its drafts. */
function spied(p: CreditPrelude, args = p.args): { prelude: CreditPrelude; used: () => boolean } {
  let used = false;
  const drafted = {
    then: (ok: never, fail: never) => ((used = true), p.drafted.then(ok, fail)),
  } as unknown as CreditPrelude['drafted'];
  return { prelude: { args, drafted, baseCopy: p.baseCopy, ahead: p.ahead }, used: () => used };
}

describe('the credit prelude', { concurrency: false }, () => {
  let repo: ReturnType<typeof exampleRepo>;
  let tree: RunnerTree;
  let policy: Policy;
  let cache: string;
  const env = childEnv();
  // As `sealgate runner` starts it: the credit step's cache folder (its noise key is kept there).
  const runs = () => ({ env, cacheDir: cache, workers: 2 });
  const score = (prelude: CreditPrelude | null) =>
    scoreCredit({
      repo: repo.dir,
      runnerJob: RUNNER,
      config: policy.config,
      policy,
      tree,
      env,
      cacheDir: cache,
      workers: 2,
      write: false,
      prelude,
    });

  before(async () => {
    repo = exampleRepo();
    cache = mkdtempSync(join(tmpdir(), 'sealgate-prelude-cache-'));
    const patch = writePatch(repo.dir, 'agent.diff', agentPatch(repo.dir, AGENT_PATCH));
    assert.equal((await propose(repo.dir, patch)).exit, 0);
    const cli = async (argv: string[]) => {
      const r = await runCli(argv, { cwd: repo.dir, env, now: new Date(NOW) });
      assert.equal(r.exit, 0, `${argv[0]}: ${r.stdout}${r.stderr}`);
    };
    await cli(['seal', '--runner-job', RUNNER, '--seed', '42']);
    await cli(['symbols']);
    await cli(['run', '--runner-job', RUNNER]);
    tree = buildRecordTree(repo.dir);
    policy = readPolicy({ repo: repo.dir, baseCommit: repo.base });
  });
  after(() => {
    tree.dispose();
    repo.dispose();
    rmSync(cache, { recursive: true, force: true });
  });

  it('drafted from the very inputs the credit step reads: used, with the credit drafting again gives', async () => {
    const alone = await score(null);
    const p = startCreditPrelude(repo.dir, tree, policy.config, runs());
    assert.ok(p !== null);
    const s = spied(p);
    const withPrelude = await score(s.prelude);
    assert.equal(s.used(), true, 'the prelude was used');
    assert.equal(withPrelude.credit.credit_id, alone.credit.credit_id);
    assert.deepEqual(withPrelude.credit.evidence, alone.credit.evidence);
  });

  it('drafted from other inputs (another budget, another seed, other bytes of changed.json): ignored, drafted again', async () => {
    const alone = await score(null);
    const other = startCreditPrelude(
      repo.dir,
      tree,
      { ...policy.config, credit: { ...policy.config.credit, mutantBudget: 1 } },
      runs(),
    );
    assert.ok(other !== null);
    const args = JSON.parse(other.args) as unknown[];
    const real = startCreditPrelude(repo.dir, tree, policy.config, runs());
    assert.ok(real !== null);
    const realArgs = JSON.parse(real.args) as unknown[];
    // every field of the inputs counts: the budget here, the seed, changed.json's hash, the tree
    const variants = [
      other.args,
      JSON.stringify(realArgs.map((v, i) => (i === 3 ? '43' : v))),
      JSON.stringify(realArgs.map((v, i) => (i === 1 ? '0'.repeat(64) : v))),
      JSON.stringify(realArgs.map((v, i) => (i === 0 ? `${String(v)}x` : v))),
    ];
    assert.notEqual(args[2], realArgs[2]);
    for (const a of variants) {
      const s = spied(real, a);
      const r = await score(s.prelude);
      assert.equal(s.used(), false, a);
      assert.equal(r.credit.credit_id, alone.credit.credit_id);
    }
  });

  it('no prelude before the seal: null, and the credit step drafts itself', () => {
    const fresh = exampleRepo();
    try {
      assert.equal(startCreditPrelude(fresh.dir, tree, policy.config), null);
    } finally {
      fresh.dispose();
    }
  });
});

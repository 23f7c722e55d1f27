import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { git, makeRepo, patchWith, readTree } from '../helpers/git.js';
import { runCli } from '../helpers/cli.js';
import { parseDocumentBytes, checkSchema } from '../../src/core/document.js';
import { CreditSchema, CaseFileSchema } from '../../src/credit/schema.js';
import { creditProblems } from '../../src/gate/decide.js';

const FIX = resolve('test/credit/fixtures/pricing');
const NODE_MODULES = resolve('node_modules');

/** Fixture sources are stored as .ts.txt so the project's type check leaves them alone. */
const fixture = (p: string): string => readFileSync(join(FIX, `${p}.txt`), 'utf8');

/** Write the version's files over the base, make the patch from base, return its path. */
function makePatch(repo: string, name: string, files: Record<string, string>): string {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(repo, p, '..'), { recursive: true });
    writeFileSync(join(repo, p), text);
  }
  git(repo, 'add', '-A');
  const diff = git(repo, 'diff', '--cached', '--binary', 'HEAD');
  git(repo, 'reset', '-q');
  mkdirSync(join(repo, 'patches'), { recursive: true });
  writeFileSync(join(repo, 'patches', name), diff);
  return `patches/${name}`;
}

/** The caller's environment minus node:test's own marker, which would make the nested `node --test` report to us instead of writing JUnit. */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  return { ...env, SEED: '42' };
}

async function cli(repo: string, ...argv: string[]) {
  return runCli(argv, { cwd: repo, env: childEnv() });
}

/** propose → seal → symbols → run → credit, as the two jobs would. */
async function pipeline(
  repo: string,
  patch: string,
  proposal: string,
  runner: string,
  cacheDir: string,
  creditArgs: readonly string[] = [],
) {
  const steps = [
    [
      'propose',
      '--author-job',
      'model-session-17',
      '--runner-job',
      runner,
      '--patch',
      patch,
      '--proposal-id',
      proposal,
    ],
    ['seal', '--runner-job', runner],
    ['symbols', '--patch', patch],
    ['run', '--runner-job', runner],
  ];
  for (const s of steps) {
    const r = await cli(repo, ...s);
    assert.equal(r.exit, 0, `${s[0]} failed: ${r.stdout}${r.stderr}`);
  }
  return cli(repo, 'credit', '--runner-job', runner, '--cache', cacheDir, ...creditArgs);
}

function readCredit(repo: string) {
  const parsed = parseDocumentBytes(readFileSync(join(repo, 'review/runner/credit.json')), 'json', 'credit');
  assert.ok(parsed.ok);
  const c = checkSchema(CreditSchema, parsed.value, 'credit');
  assert.ok(c.ok, JSON.stringify(!c.ok && c.findings));
  return c.value;
}

describe('the spec trace, for real, on a TypeScript pricing project', { concurrency: false }, () => {
  let repo: { dir: string; dispose: () => void };
  const cacheDir = () => join(repo.dir, '..', `${repo.dir.split('/').pop()}-cache`);
  before(() => {
    repo = makeRepo(readTree(join(FIX, 'base')));
    symlinkSync(NODE_MODULES, join(repo.dir, 'node_modules'), 'dir');
  });
  after(() => {
    rmSync(cacheDir(), { recursive: true, force: true });
    repo.dispose();
  });

  it('the tautology of taxCents earns nothing, the property of applyDiscount is credited, pass is false', async () => {
    const patch = makePatch(repo.dir, '001.diff', {
      'src/pricing.ts': fixture('v1/pricing.ts'),
      'test/pricing.test.ts': fixture('v1/pricing.test.ts'),
    });
    const r = await pipeline(repo.dir, patch, 'p-014', 'server-job-88', cacheDir());
    assert.equal(r.stdout, 'E_CREDIT_MISSING\n', r.stderr);
    assert.equal(r.exit, 1);
    const c = readCredit(repo.dir);
    assert.deepEqual(c.credited, ['src/pricing.ts::applyDiscount']);
    assert.deepEqual(c.missing, ['src/pricing.ts::taxCents']);
    assert.equal(c.pass, false);
    assert.equal(c.test_ids.length, 1, JSON.stringify(c.test_ids));
    assert.ok(
      c.test_ids.every((t) => t.endsWith('discount stays within bounds')),
      JSON.stringify(c.test_ids),
    );
    assert.ok(
      c.tautologies.some((t) => t.endsWith('tax is computed')),
      JSON.stringify(c.tautologies),
    );
    const ev = c.evidence?.['src/pricing.ts::taxCents'];
    assert.ok(ev);
    assert.equal(ev.status, 'missing');
    assert.ok(
      ev.tautologies.some((t) => t.endsWith('tax is computed')),
      'the tautology reached taxCents (its probe failed it)',
    );
    assert.match(ev.reason ?? '', /tautolog/);
    const dv = c.evidence?.['src/pricing.ts::applyDiscount'];
    assert.equal(dv?.status, 'credited');
    assert.ok((dv?.killed.length ?? 0) > 0);
    assert.equal(c.runner_job, 'server-job-88');
    assert.equal(c.proposal_id, 'p-014');
    assert.equal(c.sandbox, 'bwrap', 'every credit run was sandboxed');
    assert.deepEqual(creditProblems(c).includes('pass is false'), true);
    // cases.json is the spec's case file and gives the same credit through --cases.
    const cases = checkSchema(
      CaseFileSchema,
      JSON.parse(readFileSync(join(repo.dir, 'review/runner/cases.json'), 'utf8')),
      'cases',
    );
    assert.ok(cases.ok);
    const taut = cases.value.cases.find((x) => x.id.endsWith('tax is computed'));
    assert.equal(taut?.kind, 'tautology');
    assert.equal(taut?.rule, 'same-expression');
    assert.deepEqual(
      taut?.symbols,
      ['src/pricing.ts::taxCents'],
      'like the spec sample, the tautology names the symbol it reached',
    );
    const viaCases = await cli(repo.dir, 'credit', '--cases', 'review/runner/cases.json', '--digest', c.digest);
    const again = JSON.parse(viaCases.stdout) as {
      credited: string[];
      missing: string[];
      pass: boolean;
      test_ids: string[];
    };
    assert.deepEqual(
      [again.credited, again.missing, again.pass, again.test_ids],
      [c.credited, c.missing, c.pass, c.test_ids],
    );
  });

  it('a rerun on the same sealed inputs runs no mutant again and gives the same credit', async () => {
    const first = readCredit(repo.dir);
    const r = await cli(repo.dir, 'credit', '--runner-job', 'server-job-88', '--cache', cacheDir());
    assert.match(r.stderr, / 0 mutant run\(s\), \d+ from cache/);
    assert.deepEqual(readCredit(repo.dir), first);
  });

  it('refuses the author job, a job that is not the runner, and a digest whose fixtures drifted', async () => {
    const author = await cli(repo.dir, 'credit', '--runner-job', 'model-session-17', '--cache', cacheDir());
    assert.deepEqual([author.stdout, author.exit], ['E_SHARED_JOB\n', 1]);
    assert.match(author.stderr, /author/);
    const other = await cli(repo.dir, 'credit', '--runner-job', 'server-job-99', '--cache', cacheDir());
    assert.deepEqual([other.stdout, other.exit], ['E_SHARED_JOB\n', 1]);
    assert.ok(
      existsSync(join(repo.dir, 'review/runner/credit.json')),
      'a refusal before any check of the digest leaves the credit alone',
    );
    // Drift is a change to what the runner's tree holds: here, the patch on disk.
    const saved = readFileSync(join(repo.dir, 'patches/001.diff'));
    patchWith(repo.dir, 'patches/001.diff', { 'fixtures/orders.json': '[]\n' });
    const drift = await cli(repo.dir, 'credit', '--runner-job', 'server-job-88', '--cache', cacheDir());
    assert.deepEqual([drift.stdout, drift.exit], ['E_DIGEST_OPEN\n', 1]);
    assert.ok(!existsSync(join(repo.dir, 'review/runner/credit.json')), 'drift deletes the credit');
    writeFileSync(join(repo.dir, 'patches/001.diff'), saved);
    const reopened = await cli(repo.dir, 'credit', '--runner-job', 'server-job-88', '--cache', cacheDir());
    assert.deepEqual(
      [reopened.stdout, reopened.exit],
      ['E_DIGEST_OPEN\n', 1],
      'once reopened, the old seal does not come back by itself',
    );
  });

  it('after the follow-up patch adds a real bound on taxCents, pass is true', async () => {
    git(repo.dir, 'checkout', '-q', '--', '.');
    git(repo.dir, 'clean', '-qfd', '-e', 'node_modules', '-e', 'review');
    const patch = makePatch(repo.dir, '002.diff', {
      'src/pricing.ts': fixture('v1/pricing.ts'),
      'test/pricing.test.ts': fixture('v2/pricing.test.ts'),
    });
    const r = await pipeline(repo.dir, patch, 'p-015', 'server-job-89', cacheDir());
    assert.equal(r.stdout, 'PASS\n', r.stderr);
    assert.equal(r.exit, 0);
    const c = readCredit(repo.dir);
    assert.deepEqual(c.credited, ['src/pricing.ts::applyDiscount', 'src/pricing.ts::taxCents']);
    assert.deepEqual(c.missing, []);
    assert.equal(c.pass, true);
    assert.deepEqual(creditProblems(c), []);
    assert.ok(c.test_ids.some((t) => t.endsWith('tax is bounded and exact to the cent')));
    assert.ok(!c.test_ids.some((t) => t.endsWith('tax is computed')), 'the tautology still earns nothing');
  });
});

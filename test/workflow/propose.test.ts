import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { LAYOUT } from '../../src/core/layout.js';
import { sha256Hex } from '../../src/core/ids.js';
import { checkProposal, newProposalId, parseLedger, type LedgerEntry } from '../../src/record/propose.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo } from '../helpers/git.js';
import { AGENT_PATCH, EXAMPLE_DIR, FOLLOW_UP_PATCH, exampleFiles } from './review.js';

const agent = readFileSync(join(EXAMPLE_DIR, AGENT_PATCH));
const followUp = readFileSync(join(EXAMPLE_DIR, FOLLOW_UP_PATCH));

function repo() {
  const r = makeRepo(exampleFiles());
  writeFileSync(join(r.dir, 'a.diff'), agent);
  writeFileSync(join(r.dir, 'b.diff'), followUp);
  return r;
}

const propose = (dir: string, ...extra: string[]) => runCli(['propose', '--repo', dir, ...extra], { cwd: dir });

test('propose: writes an open record with both jobs, the patch path and its hash', async () => {
  const r = repo();
  try {
    const out = await propose(
      r.dir,
      '--author-job',
      'model-session-17',
      '--runner-job',
      'server-job-88',
      '--patch',
      'a.diff',
    );
    assert.equal(out.exit, 0, out.stderr);
    const id = out.stdout.trim();
    assert.match(id, /^p-2026-10-12-[0-9a-f]{12}$/);
    const rec = JSON.parse(readFileSync(join(r.dir, LAYOUT.record), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(rec, {
      proposal_id: id,
      author_job: 'model-session-17',
      runner_job: 'server-job-88',
      patch_path: 'a.diff',
      patch_sha256: sha256Hex(agent),
      base_commit: git(r.dir, 'rev-parse', 'HEAD').trim(),
      digest_status: 'open',
      logs_present: false,
      logs_after_seal: false,
      log_visibility: 'hidden',
    });
    const gate = await runCli(
      [
        'gate',
        '--repo',
        r.dir,
        '--record',
        join(r.dir, LAYOUT.record),
        '--credit',
        join(r.dir, LAYOUT.credit),
        '--now',
        '2026-10-12T12:00:00Z',
      ],
      { cwd: r.dir },
    );
    assert.equal(gate.stdout.trim(), 'E_CREDIT_MISSING', 'a fresh proposal has no property run');
  } finally {
    r.dispose();
  }
});

test('propose: a proposal id is bound to its patch bytes; a follow-up needs a new id', async () => {
  const r = repo();
  try {
    const jobs = ['--author-job', 'model-session-17', '--runner-job', 'server-job-88'];
    assert.equal((await propose(r.dir, ...jobs, '--patch', 'a.diff', '--proposal-id', 'p-014')).exit, 0);
    const again = await propose(r.dir, ...jobs, '--patch', 'a.diff', '--proposal-id', 'p-014');
    assert.deepEqual([again.exit, again.stdout.trim()], [0, 'p-014'], 'same id and bytes: unchanged');
    const reused = await propose(r.dir, ...jobs, '--patch', 'b.diff', '--proposal-id', 'p-014');
    assert.deepEqual([reused.stdout.trim(), reused.exit], ['E_INPUT_INVALID', 1]);
    assert.match(reused.stderr, /new proposal id/);
    const next = await propose(
      r.dir,
      '--author-job',
      'model-session-17',
      '--runner-job',
      'server-job-89',
      '--patch',
      'b.diff',
      '--proposal-id',
      'p-015',
    );
    assert.equal(next.exit, 0, next.stderr);
    // The ledger remembers p-014 even after p-015 replaced the record.
    const late = await propose(r.dir, ...jobs, '--patch', 'b.diff', '--proposal-id', 'p-014');
    assert.equal(late.stdout.trim(), 'E_INPUT_INVALID');
    const rec = JSON.parse(readFileSync(join(r.dir, LAYOUT.record), 'utf8')) as Record<string, unknown>;
    assert.equal(rec['proposal_id'], 'p-015');
  } finally {
    r.dispose();
  }
});

test('propose: refuses a shared job, a patch outside the repository and a malformed patch', async () => {
  const r = repo();
  try {
    const shared = await propose(r.dir, '--author-job', 'job-1', '--runner-job', 'JOB-1', '--patch', 'a.diff');
    assert.deepEqual([shared.stdout.trim(), shared.exit], ['E_SHARED_JOB', 1]);
    const outside = await propose(r.dir, '--author-job', 'a', '--runner-job', 'b', '--patch', '/etc/hostname');
    assert.equal(outside.stdout.trim(), 'E_INPUT_INVALID');
    writeFileSync(join(r.dir, 'bad.diff'), agent.subarray(0, agent.length - 40));
    const bad = await propose(r.dir, '--author-job', 'a', '--runner-job', 'b', '--patch', 'bad.diff');
    assert.equal(bad.stdout.trim(), 'E_INPUT_INVALID');
    const missing = await propose(r.dir, '--author-job', 'a', '--runner-job', 'b');
    assert.deepEqual([missing.stdout.trim(), missing.exit], ['E_INPUT_INVALID', 2]);
    const badId = await propose(
      r.dir,
      '--author-job',
      'a',
      '--runner-job',
      'b',
      '--patch',
      'a.diff',
      '--proposal-id',
      'p/1',
    );
    assert.equal(badId.exit, 2);
  } finally {
    r.dispose();
  }
});

test('parseLedger: hostile input', () => {
  const line = JSON.stringify({
    proposal_id: 'p-1',
    patch_sha256: 'a'.repeat(64),
    author_job: 'a',
    runner_job: 'b',
    at: '2026-10-12T12:00:00Z',
  });
  assert.equal(parseLedger(`${line}\n`).ok, true);
  assert.equal(parseLedger(line).ok, false, 'truncated: no final newline');
  assert.equal(parseLedger(`${line}\r\n`).ok, false, 'CRLF');
  assert.equal(parseLedger(`${line}\ngarbage\n`).ok, false, 'trailing garbage');
  assert.equal(parseLedger(`${line.replace('"p-1"', '"p-1","proposal_id":"p-2"')}\n`).ok, false, 'duplicate keys');
  assert.equal(parseLedger(`${line.replace('}', ',"x":1}')}\n`).ok, false, 'unknown field');
  assert.equal(parseLedger(`${'['.repeat(100)}${']'.repeat(100)}\n`).ok, false, 'deep nesting');
});

test('property: checkProposal never accepts a known id with other bytes, nor equal jobs', () => {
  const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
  const job = fc.constantFrom('a', 'A', 'b', 'c');
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          proposal_id: fc.constantFrom('p-1', 'p-2'),
          patch_sha256: hex,
          author_job: job,
          runner_job: job,
          at: fc.constant('2026-10-12T12:00:00Z'),
        }),
      ),
      fc.constantFrom('p-1', 'p-2', 'p-3'),
      job,
      job,
      hex,
      (ledger: LedgerEntry[], id, author, runner, sha) => {
        const r = checkProposal(
          {
            proposalId: id,
            authorJob: author,
            runnerJob: runner,
            patchPath: 'x.diff',
            patchSha256: sha,
            baseCommit: 'a'.repeat(40),
            at: '2026-10-12T12:00:00Z',
          },
          ledger,
          null,
        );
        if (author.toLowerCase() === runner.toLowerCase()) assert.equal(r.ok, false);
        if (ledger.some((e) => e.proposal_id === id && e.patch_sha256 !== sha)) assert.equal(r.ok, false);
        if (r.ok && r.value.kind !== 'unchanged') assert.equal(r.value.record.digest_status, 'open');
      },
    ),
  );
});

test('newProposalId: date and random part', () => {
  assert.equal(
    newProposalId(new Date('2026-10-12T23:59:59Z'), new Uint8Array([1, 2, 3, 4, 5, 255])),
    'p-2026-10-12-0102030405ff',
  );
});

test('propose --base: recorded as the full commit id; a revision git cannot resolve is E_INPUT_INVALID', async () => {
  const r = makeRepo(exampleFiles());
  try {
    writeFileSync(join(r.dir, 'a.diff'), readFileSync(join(EXAMPLE_DIR, AGENT_PATCH)));
    const first = git(r.dir, 'rev-parse', 'HEAD').trim();
    git(r.dir, 'commit', '-q', '--allow-empty', '-m', 'second');
    const ok = await runCli(
      ['propose', '--author-job', 'a-1', '--runner-job', 'r-1', '--patch', 'a.diff', '--base', 'HEAD~1'],
      { cwd: r.dir },
    );
    assert.equal(ok.exit, 0, ok.stderr);
    assert.equal(
      (JSON.parse(readFileSync(join(r.dir, LAYOUT.record), 'utf8')) as { base_commit: string }).base_commit,
      first,
    );
    for (const bad of ['no-such-rev', 'HEAD~9', '--all', 'f'.repeat(40)]) {
      const out = await runCli(
        ['propose', '--author-job', 'a-1', '--runner-job', 'r-2', '--patch', 'a.diff', '--base', bad],
        { cwd: r.dir },
      );
      assert.equal(out.stdout, 'E_INPUT_INVALID\n', bad);
      assert.match(out.stderr, /--base/, bad);
    }
  } finally {
    r.dispose();
  }
});

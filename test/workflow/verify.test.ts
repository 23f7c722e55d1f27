import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { appendJournal } from '../../src/store/journal.js';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { runCli } from '../helpers/cli.js';
import { patchWith } from '../helpers/git.js';
import {
  NOW,
  RUNNER,
  proposedAndSealed,
  verify,
  writeScoring,
  DISCOUNT,
  TAX,
  PROP_DISCOUNT,
  TAUTOLOGY_TAX,
} from './review.js';

test('verify: sealed but no credit file is E_CREDIT_MISSING', async () => {
  const r = await proposedAndSealed();
  try {
    const v = await verify(r.dir);
    assert.equal(v.code, 'E_CREDIT_MISSING', v.stderr);
    assert.equal(v.exit, 1);
  } finally {
    r.dispose();
  }
});

test('verify: the tautology leaves taxCents missing (E_CREDIT_MISSING); a real bound gives ALLOW', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'tautology');
    const first = await verify(r.dir);
    assert.equal(first.code, 'E_CREDIT_MISSING', first.stderr);
    writeScoring(r, 'property');
    const second = await verify(r.dir);
    assert.equal(second.code, 'ALLOW', second.stderr);
    assert.equal(second.exit, 0);
  } finally {
    r.dispose();
  }
});

test('verify: a fixture edited after the seal (in the patch: the work tree does not count) is E_DIGEST_OPEN, even with passing credit', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    appendFileSync(join(r.dir, 'fixtures/orders.json'), ' ');
    assert.equal((await verify(r.dir)).code, 'ALLOW', 'the work tree is not what the runner tests');
    patchWith(r.dir, 'patches.diff', {
      'fixtures/orders.json': readFileSync(join(r.dir, 'fixtures/orders.json'), 'utf8'),
    });
    const v = await verify(r.dir);
    assert.equal(v.code, 'E_DIGEST_OPEN', v.stderr);
    assert.match(v.stderr, /fixtures\/orders\.json/);
  } finally {
    r.dispose();
  }
});

test('verify: a new fixture file matching the sealed globs is drift too', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    patchWith(r.dir, 'patches.diff', { 'fixtures/extra.json': '{}\n' });
    const v = await verify(r.dir);
    assert.equal(v.code, 'E_DIGEST_OPEN');
    assert.match(v.stderr, /fixtures\/extra\.json|tree/);
  } finally {
    r.dispose();
  }
});

test('verify: patch bytes changed after the proposal: another tree is E_DIGEST_OPEN; the same tree from other bytes E_CREDIT_UNBOUND', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    const p = join(r.dir, 'patches.diff');
    const original = readFileSync(p, 'utf8');
    writeFileSync(p, original.replace('old coupons', 'old vouchers'));
    const v = await verify(r.dir);
    assert.equal(v.code, 'E_DIGEST_OPEN', v.stderr);
    assert.match(v.stderr, /inputs\.sha256#tree: the tree rebuilt/);
    // A preamble git ignores: the same tree, other bytes than the record binds.
    writeFileSync(p, `From: someone else\n\n${original}`);
    const w = await verify(r.dir);
    assert.equal(w.code, 'E_CREDIT_UNBOUND', w.stderr);
    assert.match(w.stderr, /patch_sha256/);
  } finally {
    r.dispose();
  }
});

test('verify: a credit file that disagrees with the case file is E_CREDIT_UNBOUND', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'tautology');
    // A self-consistent credit file that blesses the tautology: the gate alone would ALLOW it.
    const path = join(r.dir, LAYOUT.credit);
    const c = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      path,
      JSON.stringify(
        {
          ...c,
          credited: [DISCOUNT, TAX],
          test_ids: [PROP_DISCOUNT, TAUTOLOGY_TAX],
          missing: [],
          tautologies: [],
          pass: true,
        },
        null,
        2,
      ) + '\n',
    );
    const gate = await runCli(
      ['gate', '--repo', r.dir, '--record', join(r.dir, LAYOUT.record), '--credit', path, '--now', NOW],
      { cwd: r.dir },
    );
    assert.equal(gate.stdout.trim(), 'ALLOW', 'precondition: the forged credit is self-consistent');
    const v = await verify(r.dir);
    assert.equal(v.code, 'E_CREDIT_UNBOUND', v.stderr);
    assert.match(v.stderr, /case file/);
  } finally {
    r.dispose();
  }
});

test('verify: credit without a case file is E_CREDIT_UNBOUND; an empty case file is E_INPUT_INVALID', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    writeFileSync(join(r.dir, LAYOUT.cases), '');
    assert.equal((await verify(r.dir)).code, 'E_INPUT_INVALID');
    rmSync(join(r.dir, LAYOUT.cases));
    assert.equal((await verify(r.dir)).code, 'E_CREDIT_UNBOUND');
  } finally {
    r.dispose();
  }
});

test('verify: an edited journal line is E_INPUT_INVALID; a truncated journal too', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    // A run on the seal, so the seal line has a successor whose hash chain covers it.
    appendJournal(r.dir, {
      type: 'run-start',
      runner_job: RUNNER,
      digest: r.digest,
      at: NOW,
      command: ['node', '--test'],
      sandbox: 'bwrap',
    });
    appendJournal(r.dir, {
      type: 'run-end',
      runner_job: RUNNER,
      digest: r.digest,
      at: NOW,
      exit_code: 0,
      signal: null,
      timed_out: false,
    });
    const path = join(r.dir, LAYOUT.journal);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace('"seal"', '"seal" ').replace(/"at":"[^"]+"/, '"at":"2020-01-01T00:00:00Z"'));
    assert.equal((await verify(r.dir)).code, 'E_INPUT_INVALID');
    writeFileSync(path, text.slice(0, -5));
    assert.equal((await verify(r.dir)).code, 'E_INPUT_INVALID');
    const lines = text.split('\n');
    writeFileSync(path, [lines[0], lines[2], lines[1], ''].join('\n'));
    assert.equal((await verify(r.dir)).code, 'E_INPUT_INVALID', 'reordered');
    // The last line too: the journal's head anchor covers it.
    writeFileSync(path, text.replace(/"exit_code":0/, '"exit_code":1'));
    assert.equal((await verify(r.dir)).code, 'E_INPUT_INVALID', 'edited last line');
    writeFileSync(path, text);
    assert.equal((await verify(r.dir)).code, 'ALLOW');
  } finally {
    r.dispose();
  }
});

test('verify: a shared job outranks drift and everything else', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    appendFileSync(join(r.dir, 'fixtures/orders.json'), ' ');
    const path = join(r.dir, LAYOUT.record);
    const rec = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...rec, author_job: rec['runner_job'] }, null, 2) + '\n');
    assert.equal((await verify(r.dir)).code, 'E_SHARED_JOB');
  } finally {
    r.dispose();
  }
});

test('verify: --review names the review folder; anything else is a usage error', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    const ok = await runCli(['verify', '--review', join(r.dir, 'review'), '--now', NOW], { cwd: '/' });
    assert.equal(ok.stdout.trim(), 'ALLOW', ok.stderr);
    const bad = await runCli(['verify', '--review', r.dir, '--now', NOW], { cwd: '/' });
    assert.equal(bad.stdout.trim(), 'E_INPUT_INVALID');
    assert.equal(bad.exit, 2);
    const badNow = await runCli(['verify', '--repo', r.dir, '--now', '2026-10-12T12:00:00'], { cwd: '/' });
    assert.equal(badNow.exit, 2, 'a naive --now is still a usage error');
  } finally {
    r.dispose();
  }
});

test('verify: a log in the store that no run after the seal wrote is E_LOGS_EARLY', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    mkdirSync(join(r.dir, LAYOUT.logs), { recursive: true, mode: 0o700 });
    writeFileSync(join(r.dir, LAYOUT.logs, 'junit.xml'), '<testsuites/>\n');
    const v = await verify(r.dir);
    assert.equal(v.code, 'E_LOGS_EARLY', v.stderr);
  } finally {
    r.dispose();
  }
});

test('verify: record log fields that contradict the journal are E_INPUT_INVALID', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    const path = join(r.dir, LAYOUT.record);
    const rec = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...rec, log_visibility: 'published' }, null, 2) + '\n');
    assert.equal((await verify(r.dir)).code, 'E_INPUT_INVALID');
  } finally {
    r.dispose();
  }
});

test('verify: a record that says sealed without digest.status is E_DIGEST_OPEN', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    rmSync(join(r.dir, LAYOUT.status));
    assert.equal((await verify(r.dir)).code, 'E_DIGEST_OPEN');
  } finally {
    r.dispose();
  }
});

test('verify and explain default --now to the current time (the injected clock) and state the instant used', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    const at = new Date('2026-10-13T08:30:00Z');
    const v = await runCli(['verify', '--repo', r.dir], { cwd: r.dir, now: at });
    assert.equal(v.stdout, 'ALLOW\n', v.stderr);
    assert.match(v.stderr, /^verify: review clock 2026-10-13T08:30:00\.000Z \(the current time; --now fixes it\)$/m);
    const j = await runCli(['verify', '--repo', r.dir, '--json'], { cwd: r.dir, now: at });
    assert.equal((JSON.parse(j.stderr) as { now: string }).now, '2026-10-13T08:30:00.000Z');
    const e = await runCli(['explain', '--repo', r.dir], { cwd: r.dir, now: at });
    assert.match(e.stdout, /^clock: +2026-10-13T08:30:00\.000Z$/m);
    // A fixed --now is used as given and not announced.
    const fixed = await runCli(['verify', '--repo', r.dir, '--now', NOW], { cwd: r.dir, now: at });
    assert.equal(fixed.stderr, '');
  } finally {
    r.dispose();
  }
});

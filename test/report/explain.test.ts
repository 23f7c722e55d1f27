import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { escapeHtml } from '../../src/report/html.js';
import {
  DISCOUNT,
  FLAKE,
  NOW,
  PROP_DISCOUNT,
  RUNNER,
  AUTHOR,
  TAX,
  TAUTOLOGY_TAX,
  proposedAndSealed,
  writeScoring,
} from '../workflow/review.js';

const explain = (dir: string, ...extra: string[]) =>
  runCli(['explain', '--repo', dir, '--now', NOW, ...extra], { cwd: dir });

test('explain text: the four answers, the decision and its merge-table row', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'tautology');
    const out = await explain(r.dir);
    assert.equal(out.exit, 1);
    const t = out.stdout;
    assert.match(t, /^decision: E_CREDIT_MISSING {2}\(Merge rule, row 3; section 4\)/);
    assert.match(t, new RegExp(`1\\. Which job wrote the patch\\? +${AUTHOR}`));
    assert.match(t, new RegExp(`2\\. Which job wrote digest\\.status\\? +${RUNNER}`));
    assert.match(t, new RegExp(`credited ${DISCOUNT}`));
    assert.match(t, new RegExp(`MISSING +${TAX}`));
    assert.match(t, new RegExp(`tautologies \\(no credit\\): ${TAUTOLOGY_TAX.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(t, /4\. Freeze: none/);
  } finally {
    r.dispose();
  }
});

test('explain md and html: freeze checks field by field; html escapes and is self-contained', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    const fz = await runCli(
      [
        'freeze',
        '--repo',
        r.dir,
        '--author-job',
        'reviewer-job-2',
        '--test-id',
        FLAKE,
        '--expires-at',
        '2026-10-19T00:00:00Z',
        '--now',
        NOW,
      ],
      { cwd: r.dir },
    );
    assert.equal(fz.exit, 0, fz.stderr);
    const md = await explain(r.dir, '--format', 'md');
    assert.equal(md.exit, 0);
    assert.match(md.stdout, /^## sealgate: ✅ `ALLOW`/);
    assert.match(md.stdout, /\| 4\. Does the freeze cite .* \| yes, every field \|/);
    for (const id of [DISCOUNT, TAX]) assert.ok(md.stdout.includes(`\`${id}\``), id);
    // After expiry the same files explain why, row by row.
    const late = await explain(r.dir, '--format', 'md', '--now', '2026-10-20T00:00:00Z');
    assert.equal(late.exit, 1);
    assert.match(late.stdout, /\| expires after the review clock \| ❌ \|/);
    assert.match(late.stdout, /\| cites the sealed digest \| ✅ \|/);
    const html = await explain(r.dir, '--format', 'html', '--out', join(r.dir, 'report.html'));
    assert.equal(html.exit, 0);
    assert.equal(html.stdout, 'ALLOW\n');
    const page = readFileSync(join(r.dir, 'report.html'), 'utf8');
    assert.match(page, /^<!doctype html>/);
    assert.match(page, /Content-Security-Policy" content="default-src 'none'/);
    assert.doesNotMatch(page, /<script|<link|src="http|href="http|@import|url\(/i);
    for (const id of [DISCOUNT, TAX, PROP_DISCOUNT]) assert.ok(page.includes(escapeHtml(id)), id);
  } finally {
    r.dispose();
  }
});

test('explain: a bad --format is a usage error; unreadable inputs are one code', async () => {
  const r = await proposedAndSealed();
  try {
    const bad = await explain(r.dir, '--format', 'pdf');
    assert.deepEqual([bad.stdout.trim(), bad.exit], ['E_INPUT_INVALID', 2]);
    const none = await runCli(['explain', '--repo', join(r.dir, 'nowhere'), '--now', NOW], { cwd: r.dir });
    assert.deepEqual([none.stdout.trim(), none.exit], ['E_INPUT_INVALID', 1]);
  } finally {
    r.dispose();
  }
});

test('escapeHtml: every markup character', () => {
  assert.equal(escapeHtml(`<img src="x" onerror='y'>&`), '&lt;img src=&quot;x&quot; onerror=&#39;y&#39;&gt;&amp;');
});

test('gate --explain still works beside the new reports', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'property');
    const out = await runCli(
      [
        'gate',
        '--explain',
        '--repo',
        r.dir,
        '--record',
        join(r.dir, 'review/proposal.json'),
        '--credit',
        join(r.dir, 'review/runner/credit.json'),
        '--now',
        NOW,
      ],
      { cwd: r.dir },
    );
    assert.equal(out.stdout, 'ALLOW\n');
    assert.match(out.stderr, /^decision: ALLOW/);
  } finally {
    r.dispose();
  }
});

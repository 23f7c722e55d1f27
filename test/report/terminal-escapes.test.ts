import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { visible } from '../../src/core/text.js';
import { NOW, RUNNER, proposedAndSealed, writeScoring } from '../workflow/review.js';

// The record's patch_path is the author's string (a file name, so anything but "/" and NUL).
// Echoed raw, it moves a terminal's cursor: up over the code line, erase it, write ALLOW.
const REWRITE = '\r\x1b[1A\x1b[2KALLOW\x1b[8m';
/** What a report may never print raw: C0/C1 controls (ESC, CR, the 8-bit CSI) and bidi overrides. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

async function hostilePath(name: string) {
  const r = await proposedAndSealed();
  writeScoring(r, 'tautology');
  renameSync(join(r.dir, 'patches.diff'), join(r.dir, name));
  const path = join(r.dir, 'review/proposal.json');
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), patch_path: name }, null, 2) + '\n');
  return r;
}

test('explain text and gate --explain show a hostile patch path escaped, never as terminal controls', async () => {
  const r = await hostilePath(`p${REWRITE}\u009b2J\u202eff.diff`);
  try {
    const text = await runCli(['explain', '--repo', r.dir, '--now', NOW], { cwd: r.dir });
    assert.equal(text.exit, 1);
    assert.match(text.stdout, /^decision: E_CREDIT_MISSING/);
    assert.doesNotMatch(text.stdout, ACTIVE);
    assert.ok(text.stdout.includes('p\\u000d\\u001b[1A\\u001b[2KALLOW\\u001b[8m\\u009b2J\\u202eff.diff'), text.stdout);
    // The JSON report escapes them too (C1 controls and bidi marks JSON.stringify leaves raw), and parses to the raw name.
    const json = await runCli(['explain', '--repo', r.dir, '--now', NOW, '--format', 'json'], { cwd: r.dir });
    assert.doesNotMatch(json.stdout, ACTIVE);
    assert.ok(json.stdout.includes('\\u009b2J\\u202eff.diff'), json.stdout);
    assert.ok(JSON.stringify(JSON.parse(json.stdout)).includes(`\u009b2J\u202eff.diff`));
    const gate = await runCli(
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
    assert.equal(gate.stdout, 'E_CREDIT_MISSING\n');
    assert.doesNotMatch(gate.stderr, ACTIVE);
  } finally {
    r.dispose();
  }
});

test('stderr reasons quote a hostile name escaped: a reject cannot be redrawn as ALLOW', async () => {
  const r = await hostilePath('patches.diff');
  try {
    const path = join(r.dir, 'review/proposal.json');
    writeFileSync(
      path,
      JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), patch_path: `gone${REWRITE}.diff` }, null, 2) + '\n',
    );
    for (const argv of [
      ['verify', '--repo', r.dir, '--now', NOW],
      ['explain', '--repo', r.dir, '--now', NOW],
    ]) {
      const out = await runCli(argv, { cwd: r.dir });
      assert.equal(out.stdout.trim().split('\n')[0], 'E_INPUT_INVALID', argv[0]);
      assert.match(out.stderr, /not found in the repository/);
      assert.doesNotMatch(out.stderr, ACTIVE, `${argv[0]}: ${JSON.stringify(out.stderr)}`);
    }
  } finally {
    r.dispose();
  }
});

test("the runner job's progress lines (a CI log) show a hostile patch path escaped", { timeout: 120_000 }, async () => {
  const r = await hostilePath(`p${REWRITE}\u202eff.diff`);
  try {
    const out = await runCli(['runner', '--runner-job', RUNNER, '--repo', r.dir, '--quiet'], { cwd: r.dir });
    assert.match(out.stderr, /^runner: tree/m, out.stderr);
    assert.ok(out.stderr.includes('p\\u000d\\u001b[1A\\u001b[2KALLOW\\u001b[8m\\u202eff.diff'), out.stderr);
    assert.doesNotMatch(out.stderr, ACTIVE, JSON.stringify(out.stderr));
  } finally {
    r.dispose();
  }
});

test('visible: controls, bidi and zero-width characters as escapes; plain text and kept characters unchanged', () => {
  assert.equal(visible('a\x1bb\u009bc\u202ed\u200be\r\n'), 'a\\u001bb\\u009bc\\u202ed\\u200be\\u000d\\u000a');
  assert.equal(visible('x\ny\rz', '\n'), 'x\ny\\u000dz');
  assert.equal(visible('src/pricing.ts::taxCents → ✅ émigré'), 'src/pricing.ts::taxCents → ✅ émigré');
});

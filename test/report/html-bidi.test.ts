import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { escapeHtml } from '../../src/report/html.js';
import { NOW, proposedAndSealed, writeScoring } from '../workflow/review.js';

// A right-to-left override in a name is not closed by the <code> around it: the browser
// reverses the rest of the paragraph, so "...‮ KO :sutats" after a path reads "status: OK".
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

test('explain html: bidi overrides and controls in a hostile patch path are shown as escapes', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'tautology');
    const name = 'p\u202e WOLLA :edoc\u2066\u200b\x1b[2J.diff';
    renameSync(join(r.dir, 'patches.diff'), join(r.dir, name));
    const path = join(r.dir, 'review/proposal.json');
    writeFileSync(
      path,
      JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), patch_path: name }, null, 2) + '\n',
    );
    const out = await runCli(
      ['explain', '--repo', r.dir, '--now', NOW, '--format', 'html', '--out', join(r.dir, 'report.html')],
      { cwd: r.dir },
    );
    assert.equal(out.stdout, 'E_CREDIT_MISSING\n', out.stderr);
    const page = readFileSync(join(r.dir, 'report.html'), 'utf8');
    assert.doesNotMatch(page, ACTIVE);
    assert.ok(page.includes('p\\u202e WOLLA :edoc\\u2066\\u200b\\u001b[2J.diff'));
  } finally {
    r.dispose();
  }
});

test('escapeHtml: markup escaped, bidi and control characters shown as escapes', () => {
  assert.equal(escapeHtml('<a>\u202e&\u2067\x1b'), '&lt;a&gt;\\u202e&amp;\\u2067\\u001b');
});

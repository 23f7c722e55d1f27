import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { NOW, proposedAndSealed, writeScoring } from '../workflow/review.js';

// `explain --format md` goes to the CI job summary. The record's patch_path is the author's
// string: a path whose folders spell a remote image and whose name holds a line break, a
// forged heading and a pipe. (path.resolve folds "//", so the file lies at "https:/host".)
const HOSTILE = 'patches/![t](https://evil.example/t.png)/x\n## sealgate: ✅ `ALLOW`\n| a |.diff';

test('explain md: a hostile patch path cannot load a remote image, end the table or forge a heading', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'tautology');
    const onDisk = join(r.dir, HOSTILE.replace('//', '/'));
    mkdirSync(dirname(onDisk), { recursive: true });
    renameSync(join(r.dir, 'patches.diff'), onDisk);
    const path = join(r.dir, 'review/proposal.json');
    writeFileSync(
      path,
      JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), patch_path: HOSTILE }, null, 2) + '\n',
    );
    const md = await runCli(['explain', '--repo', r.dir, '--now', NOW, '--format', 'md'], { cwd: r.dir });
    assert.equal(md.exit, 1, md.stderr);
    const lines = md.stdout.split('\n');
    assert.equal(lines[0], '## sealgate: ❌ `E_CREDIT_MISSING`');
    // One heading of level 2, the decision's; no line the path started.
    assert.deepEqual(
      lines.filter((l) => /^#{1,2} /.test(l)),
      [lines[0]],
    );
    assert.ok(!lines.some((l) => l.startsWith('| a |')), md.stdout);
    // The question table keeps its two columns: its first row ends where it began.
    const q1 = lines.find((l) => l.startsWith('| 1. Which job wrote the patch?'));
    assert.ok(q1?.endsWith('hash matches the record) |'), q1);
    assert.equal((q1 as string).replace(/\\\|/g, '').split('|').length, 4, q1);
    // No image or link syntax outside a code span: the audit line names the path as text.
    const prose = md.stdout.replace(/`[^`\n]*`/g, '');
    assert.doesNotMatch(prose, /!\[[^\]]*\]\(/);
    assert.match(md.stdout, /\*\*patch\*\*: patches\/!\\\[t\\\]\(https:\/\/evil\.example\/t\.png\)/);
  } finally {
    r.dispose();
  }
});

// The runner builds its tree with `git apply`; the gate and verify read the patch with
// sealgate's own parser. A file header that names one file to git and another to the parser
// hides the file git writes from the gate's rules: here a policy file (conftest.py,
// tsconfig.json) that the parser reads as a harmless name (a Markdown file, one that does
// not exist, or no change of name at all). Each header is refused as unreadable instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../src/core/ids.js';
import { LAYOUT } from '../../src/core/layout.js';
import { parseGitPatch } from '../../src/diff/parse.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo } from '../helpers/git.js';
import { AGENT_PATCH, AUTHOR, EXAMPLE_DIR, NOW, RUNNER, proposedAndSealed, writeScoring } from '../workflow/review.js';

/** Headers git reads as a change to conftest.py, which the parser (unfixed) read as another file. */
const HEADERS: { name: string; patch: string }[] = [
  {
    name: 'a carriage return inside the +++ line of an added file',
    patch:
      'diff --git a/tests/conftest.py b/tests/conftest.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/conftest.py\r.md\n@@ -0,0 +1 @@\n+import os\n',
  },
  {
    name: 'a carriage return inside the ---/+++ lines of a changed file',
    patch:
      'diff --git a/conftest.py b/conftest.py\n--- a/conftest.py\r.md\n+++ b/conftest.py\r.md\n@@ -1 +1 @@\n-import a\n+import b\n',
  },
  {
    name: '---/+++ lines that start with a tab (git falls back to the diff --git names)',
    patch:
      'diff --git a/conftest.py b/conftest.py\n--- \ta/notes.md\n+++ \tb/notes.md\n@@ -1 +1 @@\n-import a\n+import b\n',
  },
  {
    name: "git's rename old/rename new lines",
    patch:
      'diff --git a/notes.md b/notes.md\nrename old notes.md\nrename new tests/conftest.py\n@@ -1 +1 @@\n-x\n+import os\n',
  },
  {
    name: 'a U+2028 in rename to (a conftest.py in a folder the parser does not see)',
    patch:
      'diff --git a/notes.md b/docs\nsimilarity index 100%\nrename from notes.md\nrename to docs\u2028/conftest.py\n',
  },
];

test('adversarial: a file header that names another file to git than to the parser is refused, not read as a harmless file', () => {
  const r = makeRepo({ 'conftest.py': 'import a\n', 'notes.md': 'x\n' });
  try {
    const misread: string[] = [];
    for (const h of HEADERS) {
      // What git, and so the runner's tree, makes of it: a change to a conftest.py.
      const file = join(r.dir, 'p.diff');
      writeFileSync(file, h.patch);
      const numstat = execFileSync('git', ['apply', '--numstat', '-z', file], { cwd: r.dir }).toString('utf8');
      assert.match(numstat, /conftest\.py\0/, `${h.name}: git writes a conftest.py (${JSON.stringify(numstat)})`);
      execFileSync('git', ['apply', '--cached', '--check', file], { cwd: r.dir });
      const parsed = parseGitPatch(Buffer.from(h.patch, 'utf8'));
      if (parsed.ok)
        misread.push(
          `${h.name}: the parser reads ${JSON.stringify(parsed.value.files.map((f) => [f.oldPath, f.newPath]))}`,
        );
      else assert.ok(parsed.findings.every((f) => f.code === 'E_INPUT_INVALID'));
    }
    assert.deepEqual(misread, [], 'git writes a conftest.py for each of these');
  } finally {
    r.dispose();
  }
});

test('adversarial: a tsconfig.json added under a +++ line the parser read as a Markdown file is not ALLOWed by the gate, and propose refuses it', async () => {
  const r = await proposedAndSealed();
  try {
    // The honest follow-up plus a tsconfig.json (tsx reads it: its paths can redirect the
    // tests to a stub), whose +++ line git ends at the carriage return.
    const smuggled = Buffer.concat([
      readFileSync(join(EXAMPLE_DIR, AGENT_PATCH)),
      Buffer.from(
        'diff --git a/tsconfig.json b/tsconfig.json\nnew file mode 100644\n--- /dev/null\n+++ b/tsconfig.json\r.md\n@@ -0,0 +1 @@\n+{ "compilerOptions": { "paths": { "../src/pricing.js": ["./stub.ts"] } } }\n',
      ),
    ]);
    writeFileSync(join(r.dir, 'patches.diff'), smuggled);
    const patchSha256 = sha256Hex(smuggled);
    const record = JSON.parse(readFileSync(join(r.dir, LAYOUT.record), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(r.dir, LAYOUT.record), JSON.stringify({ ...record, patch_sha256: patchSha256 }, null, 2) + '\n');
    writeScoring({ ...r, patchSha256 }, 'property');
    const gate = await runCli(['gate', '--record', LAYOUT.record, '--credit', LAYOUT.credit, '--now', NOW], {
      cwd: r.dir,
      now: new Date(NOW),
    });
    assert.notEqual(gate.stdout.trim(), 'ALLOW', 'the gate allowed a patch that adds tsconfig.json, a policy file');
    assert.equal(gate.stdout.trim(), 'E_INPUT_INVALID', gate.stderr);
    assert.match(gate.stderr, /patch \(entry 2\): a file header line holds a control character/);
    // The author's own step refuses it up front.
    const p = await runCli(
      [
        'propose',
        '--author-job',
        AUTHOR,
        '--runner-job',
        `${RUNNER}-2`,
        '--patch',
        'patches.diff',
        '--proposal-id',
        'p-2026-10-12-015',
      ],
      { cwd: r.dir, now: new Date(NOW) },
    );
    assert.equal(p.stdout.trim(), 'E_INPUT_INVALID', p.stderr);
  } finally {
    r.dispose();
  }
});

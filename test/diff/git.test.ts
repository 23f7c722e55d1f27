import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  checkApplySummary,
  parseApplySummary,
  parseRenamePair,
  readPatchContents,
  resolveCommit,
} from '../../src/diff/git.js';
import { parseGitPatch, type ParsedPatch } from '../../src/diff/parse.js';
import { SealgateError } from '../../src/core/errors.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';

function parsed(text: string): ParsedPatch {
  const r = parseGitPatch(Buffer.from(text));
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.findings));
  return r.value;
}

/** A repo with a base commit, and a patch made from `after` (the work tree is reset afterwards). */
function repoWithPatch(base: Record<string, string>, after: Record<string, string | null>) {
  const repo = makeRepo(base);
  for (const [p, c] of Object.entries(after)) {
    if (c === null) git(repo.dir, 'rm', '-q', p);
    else writeFiles(repo.dir, { [p]: c });
  }
  git(repo.dir, 'add', '-A');
  const patch = git(repo.dir, 'diff', '--cached', '-M', 'HEAD');
  git(repo.dir, 'reset', '-q', '--hard');
  return { ...repo, patch };
}

/** Every file with its size and content; mtimes too except for objects, which git may freshen when it meets them again. */
function snapshot(dir: string): string {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((e) => {
      const p = join(d, e);
      const st = statSync(p);
      if (st.isDirectory()) return walk(p);
      return [`${p}:${st.size}:${p.includes('/objects/') ? '' : st.mtimeMs}:${readFileSync(p).toString('base64')}`];
    });
  return walk(dir).sort().join('\n');
}

test("parseRenamePair reads both of git's forms", () => {
  assert.deepEqual(parseRenamePair('a.ts => b.ts'), { from: 'a.ts', to: 'b.ts' });
  assert.deepEqual(parseRenamePair('src/{a.ts => b.ts}'), { from: 'src/a.ts', to: 'src/b.ts' });
  assert.deepEqual(parseRenamePair('src/{ => lib}/x.ts'), { from: 'src/x.ts', to: 'src/lib/x.ts' });
  assert.deepEqual(parseRenamePair('{old => new}/x.py'), { from: 'old/x.py', to: 'new/x.py' });
  assert.equal(parseRenamePair('no arrow here'), null);
});

test('parseRenamePair: the compact form of any two paths expands back to them', () => {
  const seg = fc.stringMatching(/^[a-z]{1,5}$/);
  const path = fc.array(seg, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
  fc.assert(
    fc.property(path, path, path, (pre, a, b) => {
      fc.pre(a !== b);
      const r = parseRenamePair(`${pre}/{${a} => ${b}}`);
      assert.deepEqual(r, { from: `${pre}/${a}`, to: `${pre}/${b}` });
    }),
  );
});

test('parseApplySummary reads numstat records and summary lines', () => {
  const out = Buffer.from(
    '-\t-\tbin.dat\u00000\t0\tm.sh\u00001\t0\tn.txt\u00002\t1\tx.txt\u0000 mode change 100644 => 100755 m.sh\n create mode 100644 n.txt\n rename src/{a.ts => b.ts} (90%)\n',
  );
  const r = parseApplySummary(out);
  assert.ok(r.ok);
  assert.deepEqual(r.value.numstat, [
    { added: null, removed: null, path: 'bin.dat' },
    { added: 0, removed: 0, path: 'm.sh' },
    { added: 1, removed: 0, path: 'n.txt' },
    { added: 2, removed: 1, path: 'x.txt' },
  ]);
  assert.deepEqual(r.value.summary, ['mode:m.sh', 'create:n.txt', 'rename:src/a.ts→src/b.ts']);
  assert.equal(parseApplySummary(Buffer.from('x\ty\tz\u0000')).ok, false);
  assert.equal(parseApplySummary(Buffer.from(' something else entirely\n')).ok, false);
});

test('checkApplySummary refuses any disagreement with git', () => {
  const p = parsed(
    'diff --git a/x.txt b/x.txt\nindex 1..2 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1,1 +1,2 @@\n a\n+b\n',
  );
  assert.ok(checkApplySummary(p, { numstat: [{ added: 1, removed: 0, path: 'x.txt' }], summary: [] }).ok);
  assert.equal(
    checkApplySummary(p, { numstat: [{ added: 2, removed: 0, path: 'x.txt' }], summary: [] }).ok,
    false,
    'counts',
  );
  assert.equal(
    checkApplySummary(p, { numstat: [{ added: 1, removed: 0, path: 'y.txt' }], summary: [] }).ok,
    false,
    'path',
  );
  assert.equal(checkApplySummary(p, { numstat: [], summary: [] }).ok, false, 'missing file');
  assert.equal(
    checkApplySummary(p, { numstat: [{ added: null, removed: null, path: 'x.txt' }], summary: [] }).ok,
    false,
    'binary',
  );
  assert.equal(
    checkApplySummary(p, { numstat: [{ added: 1, removed: 0, path: 'x.txt' }], summary: ['create:x.txt'] }).ok,
    false,
    'summary',
  );
});

test('readPatchContents gives old and new bytes and leaves the repository untouched', async () => {
  const r = repoWithPatch(
    { 'a.txt': 'one\n', 'b.txt': 'keep\n', 'gone.txt': 'bye\n' },
    { 'a.txt': 'one\ntwo\n', 'new.txt': 'hi\n', 'gone.txt': null },
  );
  try {
    const before = snapshot(join(r.dir, '.git')) + snapshot(r.dir);
    const head = resolveCommit(r.dir, 'HEAD');
    const p = parsed(r.patch);
    const contents = await readPatchContents(r.dir, head, Buffer.from(r.patch), p);
    const byPath = new Map([...contents].map(([f, c]) => [f.newPath ?? f.oldPath, c]));
    assert.equal(byPath.get('a.txt')?.oldBytes?.toString(), 'one\n');
    assert.equal(byPath.get('a.txt')?.newBytes?.toString(), 'one\ntwo\n');
    assert.equal(byPath.get('new.txt')?.oldBytes, null);
    assert.equal(byPath.get('new.txt')?.newBytes?.toString(), 'hi\n');
    assert.equal(byPath.get('gone.txt')?.newBytes, null);
    assert.equal(byPath.get('gone.txt')?.oldBytes?.toString(), 'bye\n');
    assert.equal(
      snapshot(join(r.dir, '.git')) + snapshot(r.dir),
      before,
      'no file in the repository or its .git changed',
    );
    assert.equal(git(r.dir, 'status', '--porcelain'), '');
  } finally {
    r.dispose();
  }
});

test('a patch that does not apply, or applies only at an offset, is E_INPUT_INVALID', async () => {
  const lines = Array.from({ length: 30 }, (_, k) => `line ${k + 1}`).join('\n') + '\n';
  const r = repoWithPatch({ 'f.txt': lines }, { 'f.txt': lines.replace('line 15\n', 'line 15 changed\n') });
  try {
    const p = parsed(r.patch);
    // Shift the file by two lines: git would apply the hunk at an offset.
    writeFiles(r.dir, { 'f.txt': `x\ny\n${lines}` });
    git(r.dir, 'commit', '-qam', 'shift');
    const head = resolveCommit(r.dir, 'HEAD');
    await assert.rejects(
      readPatchContents(r.dir, head, Buffer.from(r.patch), p),
      (e: unknown) => e instanceof SealgateError && e.code === 'E_INPUT_INVALID' && e.message.includes('offset'),
    );
    writeFiles(r.dir, { 'f.txt': lines.replace('line 15\n', 'other\n') });
    git(r.dir, 'commit', '-qam', 'conflict');
    const head2 = resolveCommit(r.dir, 'HEAD');
    await assert.rejects(
      readPatchContents(r.dir, head2, Buffer.from(r.patch), p),
      (e: unknown) =>
        e instanceof SealgateError && e.code === 'E_INPUT_INVALID' && e.message.includes('does not apply'),
    );
  } finally {
    r.dispose();
  }
});

test('resolveCommit refuses what is not a commit', () => {
  const r = makeRepo({ 'a.txt': 'a\n' });
  try {
    assert.match(resolveCommit(r.dir, 'HEAD'), /^[0-9a-f]{40}$/);
    for (const bad of ['nope', '--all', 'HEAD:a.txt', '']) {
      assert.throws(
        () => resolveCommit(r.dir, bad),
        (e: unknown) => e instanceof SealgateError && e.code === 'E_INPUT_INVALID',
        bad,
      );
    }
  } finally {
    r.dispose();
  }
});

test('the corpus patches all pass the numstat cross-check', () => {
  const corpus = new URL('../symbols/corpus/', import.meta.url);
  for (const name of readdirSync(corpus)) {
    const p = new URL(`${name}/patch.diff`, corpus);
    let bytes: Buffer;
    try {
      bytes = readFileSync(p);
    } catch {
      continue;
    }
    assert.ok(parseGitPatch(bytes).ok, name);
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SealgateError } from '../../src/core/errors.js';
import { TREE_TIME } from '../../src/core/times.js';
import { buildTree } from '../../src/tree/build.js';
import { applyRefusal, checkPatchBytes, checkTreeMatch, parseTreeId } from '../../src/tree/plan.js';
import { git, makeRepo } from '../helpers/git.js';

function repoWithPatch() {
  const r = makeRepo({ 'a.txt': 'one\ntwo\nthree\n', 'fixtures/f.json': '{}\n' });
  writeFileSync(join(r.dir, 'a.txt'), 'one\nTWO\nthree\n');
  writeFileSync(join(r.dir, 'new.txt'), 'new\n');
  git(r.dir, 'add', '-A');
  const patch = execFileSync('git', ['diff', '--cached', 'HEAD'], { cwd: r.dir });
  git(r.dir, 'reset', '-q', '--hard', 'HEAD');
  return { ...r, patch, base: git(r.dir, 'rev-parse', 'HEAD').trim() };
}

const state = (dir: string): string =>
  git(dir, 'status', '--porcelain', '--untracked-files=all') +
  git(dir, 'ls-files', '--stage') +
  readFileSync(join(dir, 'a.txt'), 'utf8');

test('buildTree: base + patch in a temporary index; the tree id is what git gives; the work tree and index are unchanged', () => {
  const r = repoWithPatch();
  try {
    const before = state(r.dir);
    const t = buildTree({ repo: r.dir, baseCommit: r.base, patchBytes: r.patch });
    assert.equal(readFileSync(join(t.root, 'a.txt'), 'utf8'), 'one\nTWO\nthree\n');
    assert.equal(readFileSync(join(t.root, 'new.txt'), 'utf8'), 'new\n');
    assert.equal(existsSync(join(t.root, '.git')), false);
    // One fixed modification time for every entry, not the moment of the checkout (core/times.ts).
    for (const p of ['', 'a.txt', 'new.txt', 'fixtures', 'fixtures/f.json'])
      assert.equal(lstatSync(join(t.root, p)).mtimeMs, TREE_TIME.getTime(), p || '.');
    assert.equal(state(r.dir), before);
    // The same tree id as applying the patch for real and writing the tree.
    writeFileSync(join(r.dir, '..', `${r.base}.diff`), r.patch);
    git(r.dir, 'apply', '--index', join(r.dir, '..', `${r.base}.diff`));
    assert.equal(git(r.dir, 'write-tree').trim(), t.treeId);
    git(r.dir, 'reset', '-q', '--hard', 'HEAD');
    t.dispose();
    assert.equal(existsSync(t.root), false, 'dispose removes the tree');
  } finally {
    r.dispose();
  }
});

test('buildTree: the work tree does not matter (patch applied there, or a decoy edit)', () => {
  const r = repoWithPatch();
  try {
    const clean = buildTree({ repo: r.dir, baseCommit: r.base, patchBytes: r.patch });
    writeFileSync(join(r.dir, 'a.txt'), 'decoy\n');
    writeFileSync(join(r.dir, 'fixtures/f.json'), '{"decoy":true}\n');
    const dirty = buildTree({ repo: r.dir, baseCommit: r.base, patchBytes: r.patch });
    assert.equal(dirty.treeId, clean.treeId);
    assert.equal(readFileSync(join(dirty.root, 'fixtures/f.json'), 'utf8'), '{}\n');
    assert.equal(readFileSync(join(r.dir, 'a.txt'), 'utf8'), 'decoy\n');
    clean.dispose();
    dirty.dispose();
  } finally {
    r.dispose();
  }
});

test('buildTree: a patch that does not apply, applies twice, or an unknown base is E_INPUT_INVALID with the reason', () => {
  const r = repoWithPatch();
  try {
    const twice = Buffer.concat([r.patch, r.patch]);
    for (const [what, req, re] of [
      ['applied twice', { repo: r.dir, baseCommit: r.base, patchBytes: twice }, /does not apply to [0-9a-f]{12}/],
      [
        'not a patch',
        { repo: r.dir, baseCommit: r.base, patchBytes: Buffer.from('hello\n') },
        /does not apply|No valid patches/,
      ],
      [
        'unknown base',
        { repo: r.dir, baseCommit: 'f'.repeat(40), patchBytes: r.patch },
        /is not a commit of the repository/,
      ],
      ['short base', { repo: r.dir, baseCommit: r.base.slice(0, 12), patchBytes: r.patch }, /is not a commit/],
    ] as const) {
      assert.throws(
        () => buildTree(req),
        (e: unknown) => e instanceof SealgateError && e.code === 'E_INPUT_INVALID' && re.test(e.message),
        what,
      );
    }
  } finally {
    r.dispose();
  }
});

test('tree plan: tree ids, git refusals and hashes, pure', () => {
  assert.equal(parseTreeId(`${'a'.repeat(40)}\n`), 'a'.repeat(40));
  for (const bad of ['', 'A'.repeat(40), `${'a'.repeat(39)}\n`, `${'a'.repeat(40)}\nx`, `${'a'.repeat(41)}`])
    assert.equal(parseTreeId(bad), null, bad);
  assert.equal(applyRefusal(0, 'Checking patch a.txt...\nApplied patch a.txt cleanly.\n', 'b'.repeat(40)), null);
  assert.match(applyRefusal(0, 'Hunk #1 succeeded at 4 (offset 2 lines).\n', 'b'.repeat(40)) ?? '', /offset/);
  assert.match(
    applyRefusal(1, 'error: patch failed: a.txt:1\n', 'b'.repeat(40)) ?? '',
    /does not apply to bbbbbbbbbbbb: error: patch failed: a\.txt:1/,
  );
  assert.equal(checkPatchBytes(Buffer.from('x'), null, 'r')?.code, 'E_INPUT_INVALID');
  assert.equal(checkPatchBytes(Buffer.from('x'), '0'.repeat(64), 'r')?.code, 'E_INPUT_INVALID');
  assert.equal(checkTreeMatch('a'.repeat(40), 'a'.repeat(40)), null);
  assert.equal(checkTreeMatch('a'.repeat(40), 'b'.repeat(40))?.code, 'E_DIGEST_OPEN');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync, rmSync, renameSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseGitPatch, type ParsedPatch } from '../../src/diff/parse.js';
import { classifyFile, classifyPath } from '../../src/diff/classify.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { git, makeRepo } from '../helpers/git.js';

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const parseOk = (text: string | Uint8Array): ParsedPatch => {
  const r = parseGitPatch(typeof text === 'string' ? enc(text) : text);
  assert.ok(r.ok, r.ok ? '' : r.findings.map((f) => f.detail).join('; '));
  return r.value;
};
const parseBad = (text: string, pattern: RegExp): void => {
  const r = parseGitPatch(enc(text));
  assert.equal(r.ok, false, `should refuse: ${text.slice(0, 80)}`);
  if (!r.ok)
    assert.ok(
      r.findings.some((f) => pattern.test(f.detail)),
      r.findings.map((f) => f.detail).join('; '),
    );
};

/** A real patch made by git from a base tree and an edit. */
function realPatch(
  base: Record<string, string | Uint8Array>,
  edit: (dir: string) => void,
  args: string[] = ['diff', '--cached', '-M', '-C', '--binary'],
): string {
  const repo = makeRepo(base);
  try {
    edit(repo.dir);
    git(repo.dir, 'add', '-A');
    return git(repo.dir, ...args);
  } finally {
    repo.dispose();
  }
}

test('a modified file: counts, status, paths', () => {
  const p = parseOk(
    realPatch({ 'src/a.py': 'x = 1\ny = 2\n' }, (d) => writeFileSync(join(d, 'src/a.py'), 'x = 1\ny = 3\nz = 4\n')),
  );
  assert.equal(p.files.length, 1);
  assert.deepEqual(
    { ...p.files[0], hunks: undefined },
    {
      status: 'modified',
      oldPath: 'src/a.py',
      newPath: 'src/a.py',
      binary: false,
      similarity: null,
      oldMode: null,
      newMode: null,
      added: 2,
      removed: 1,
      hunks: undefined,
    },
  );
});

test('added, deleted, renamed (with similarity), copied, mode-only and binary entries', () => {
  const big = Array.from({ length: 40 }, (_, i) => `line ${i}\n`).join('');
  const p = parseOk(
    realPatch(
      { 'a.txt': big, 'gone.py': 'print(1)\n', 'run.sh': 'echo hi\n', 'img.bin': Buffer.from([0, 1, 2, 3, 255]) },
      (d) => {
        writeFileSync(join(d, 'new.py'), 'print(2)\n');
        rmSync(join(d, 'gone.py'));
        mkdirSync(join(d, 'moved'));
        renameSync(join(d, 'a.txt'), join(d, 'moved/b.txt'));
        writeFileSync(join(d, 'moved/b.txt'), big + 'extra\n');
        chmodSync(join(d, 'run.sh'), 0o755);
        writeFileSync(join(d, 'img.bin'), Buffer.from([0, 1, 2, 3, 254, 0]));
      },
    ),
  );
  const by = new Map(p.files.map((f) => [f.newPath ?? f.oldPath, f]));
  assert.equal(by.get('new.py')?.status, 'added');
  assert.equal(by.get('new.py')?.oldPath, null);
  assert.equal(by.get('gone.py')?.status, 'deleted');
  assert.equal(by.get('moved/b.txt')?.status, 'renamed');
  assert.equal(by.get('moved/b.txt')?.oldPath, 'a.txt');
  assert.ok((by.get('moved/b.txt')?.similarity ?? 0) >= 90);
  assert.equal(by.get('run.sh')?.status, 'mode-only');
  assert.equal(by.get('run.sh')?.newMode, '100755');
  assert.equal(by.get('img.bin')?.status, 'binary');
  assert.equal(by.get('img.bin')?.binary, true);
});

test('a 100% rename has no hunks and is still a change', () => {
  const p = parseOk(
    realPatch({ 'src/a.ts': 'export const a = 1;\n' }, (d) => renameSync(join(d, 'src/a.ts'), join(d, 'src/b.ts'))),
  );
  assert.equal(p.files[0]?.status, 'renamed');
  assert.equal(p.files[0]?.similarity, 100);
  assert.equal(p.files[0]?.hunks.length, 0);
});

test('format-patch mail: header and signature are stripped', () => {
  const repo = makeRepo({ 'a.py': 'a = 1\n' });
  try {
    writeFileSync(join(repo.dir, 'a.py'), 'a = 2\n');
    git(repo.dir, 'commit', '-qam', 'change a\n\n--- not a header\n@@ not a hunk');
    const mail = git(repo.dir, 'format-patch', '-1', '--stdout');
    assert.match(mail, /\n-- \n/);
    const p = parseOk(mail);
    assert.equal(p.files.length, 1);
    assert.equal(p.files[0]?.added, 1);
  } finally {
    repo.dispose();
  }
});

test('CRLF content and non-UTF-8 bytes inside hunks parse; names stay exact', () => {
  const p = parseOk(
    realPatch({ 'w.py': 'a = 1\r\nb = 2\r\n', 'l.py': Buffer.from('s = "caf\xe9"\n', 'latin1') }, (d) => {
      writeFileSync(join(d, 'w.py'), 'a = 1\r\nb = 3\r\n');
      writeFileSync(join(d, 'l.py'), Buffer.from('s = "d\xe9j\xe0"\n', 'latin1'));
    }),
  );
  assert.deepEqual(p.files.map((f) => f.newPath).sort(), ['l.py', 'w.py']);
});

test('quoted and non-ASCII file names', () => {
  const p = parseOk(
    realPatch({ 'dir with space/ü.py': 'a = 1\n', 'tab\there.py': 'b = 1\n' }, (d) => {
      writeFileSync(join(d, 'dir with space/ü.py'), 'a = 2\n');
      writeFileSync(join(d, 'tab\there.py'), 'b = 2\n');
    }),
  );
  assert.deepEqual(p.files.map((f) => f.newPath).sort(), ['dir with space/ü.py', 'tab\there.py']);
});

test('empty and whitespace-only patches are empty, not errors', () => {
  assert.equal(parseOk('').empty, true);
  assert.equal(parseOk('\n\n  \n').empty, true);
});

const ONE = 'diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n';

test('hostile patches are refused with a reason', () => {
  parseBad('diff --cc x.py\nindex 1,2..3\n--- a/x.py\n+++ b/x.py\n@@@ -1,1 -1,1 +1,1 @@@\n- a\n -b\n++c\n', /combined/);
  parseBad('--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n', /not a git patch/);
  parseBad('just some text\n', /not a git patch/);
  parseBad(ONE.replace('@@ -1 +1 @@', '@@ -1,2 +1 @@'), /malformed|count/);
  parseBad(ONE + '+c\n', /malformed|more lines/);
  parseBad(ONE.slice(0, -1), /newline/);
  parseBad(ONE.replace(/\n/g, '\r\n'), /CRLF/);
  parseBad(ONE.replaceAll('x.py', '../etc/passwd'), /relative path/);
  parseBad(ONE.replaceAll('a/x.py', '/x.py').replaceAll('b/x.py', '/x.py'), /prefix|relative/);
  parseBad(ONE + ONE, /more than one entry/);
  parseBad(ONE.replace('+++ b/x.py', '+++ b/y.py'), /differ without a rename/);
  parseBad('diff --git a/x.py b/x.py\nindex 1..2 100644\n', /changes nothing/);
  parseBad(ONE + 'diff --git a/y.py b/y.py\n', /changes nothing|malformed|entries/);
  parseBad(ONE.replace('-a\n+b\n', '-a\0\n+b\n'), /NUL/);
  parseBad(
    'From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\n' +
      ONE +
      'From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\n' +
      ONE.replaceAll('x.py', 'z.py'),
    /2 format-patch mails/,
  );
});

test('property: any strict prefix of a real multi-hunk patch that cuts inside a hunk is refused', () => {
  const patch = realPatch({ 'a.py': Array.from({ length: 60 }, (_, i) => `v${i} = ${i}\n`).join('') }, (d) =>
    writeFileSync(join(d, 'a.py'), Array.from({ length: 60 }, (_, i) => `v${i} = ${i % 10 === 0 ? -i : i}\n`).join('')),
  );
  const firstHunk = patch.indexOf('\n@@') + 1;
  const hunkStarts = new Set([...patch.matchAll(/\n@@/g)].map((m) => (m.index ?? 0) + 1));
  assert.ok(hunkStarts.size >= 3, 'the patch has several hunks');
  fc.assert(
    fc.property(fc.integer({ min: firstHunk + 1, max: patch.length - 1 }), (k) => {
      const r = parseGitPatch(enc(patch.slice(0, k)));
      // A cut exactly before the next hunk header is a shorter valid patch; any other cut must be refused.
      if (r.ok) assert.ok(hunkStarts.has(k), `accepted a cut at ${k}`);
    }),
    { numRuns: 500 },
  );
});

test('classification: tests by convention in each language, ignore patterns, other', () => {
  const cases: [string, string][] = [
    ['src/a.ts', 'production'],
    ['src/a.test.ts', 'test'],
    ['src/__tests__/a.ts', 'test'],
    ['test/a.js', 'test'],
    ['pkg/pricing.py', 'production'],
    ['tests/helpers.py', 'test'],
    ['pkg/test_x.py', 'test'],
    ['pkg/x_test.py', 'test'],
    ['conftest.py', 'test'],
    ['tax/rate.go', 'production'],
    ['tax/rate_test.go', 'test'],
    ['tax/testdata/a.json', 'test'],
    ['src/main/java/Foo.java', 'production'],
    ['src/test/java/FooTest.java', 'test'],
    ['src/main/java/FooTest.java', 'test'],
    ['src/lib.rs', 'production'],
    ['tests/integration.rs', 'test'],
    ['spec/models/user_spec.rb', 'test'],
    ['lib/user.rb', 'other'],
    ['fixtures/orders.json', 'test'],
    ['README.md', 'ignored'],
    ['config/prices.yaml', 'other'],
    ['package-lock.json', 'other'],
  ];
  for (const [path, cls] of cases) assert.equal(classifyPath(path, DEFAULT_CONFIG), cls, path);
});

test('classification: a rename between classes keeps the stronger one', () => {
  const base = {
    status: 'renamed' as const,
    binary: false,
    similarity: 100,
    oldMode: null,
    newMode: null,
    added: 0,
    removed: 0,
    hunks: [],
  };
  assert.equal(classifyFile({ ...base, oldPath: 'src/a.py', newPath: 'tests/a.py' }, DEFAULT_CONFIG), 'production');
  assert.equal(classifyFile({ ...base, oldPath: 'tests/a.py', newPath: 'src/a.py' }, DEFAULT_CONFIG), 'production');
  assert.equal(classifyFile({ ...base, oldPath: 'tests/a.py', newPath: 'tests/b.py' }, DEFAULT_CONFIG), 'test');
  assert.equal(
    classifyFile(
      { ...base, status: 'binary', binary: true, oldPath: 'src/a.png', newPath: 'src/a.png' },
      DEFAULT_CONFIG,
    ),
    'other',
  );
});

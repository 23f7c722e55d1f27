import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSealParams, readSealStatus, reopenSeal, verifySeal } from '../../src/seal/seal.js';
import { DEFAULT_POLICY } from '../../src/policy/check.js';
import { syncPatch } from '../helpers/git.js';

const DEFAULT = { config: DEFAULT_POLICY, bytes: null, digest: 'default', source: 'default' };
import { editRecordText } from '../../src/record/file.js';
import { has, seal, sealRepo, snapshot } from './setup.js';

const isInvalid = (re: RegExp) => (err: Error & { code?: string }) =>
  err.code === 'E_INPUT_INVALID' && re.test(err.message);

test('seal.json is strict: truncation, trailing garbage, CRLF, BOM, duplicates, unknown keys, deep nesting, oversize', async () => {
  const t = sealRepo();
  try {
    assert.equal((await seal(t.dir)).exit, 0);
    const path = join(t.dir, 'review/runner/seal.json');
    const good = readFileSync(path, 'utf8');
    assert.equal(readSealParams(t.dir)?.seed, '42');
    const cases: [string, string | Buffer, RegExp][] = [
      ['truncated', good.slice(0, good.length - 3), /seal\.json/],
      ['cut before the closing brace', good.slice(0, -2), /seal\.json: not valid JSON/],
      ['trailing garbage', good + '{}\n', /trailing content/],
      ['BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(good)]), /byte-order mark/],
      ['duplicate key', good.replace('"seed": "42",', '"seed": "42",\n  "seed": "43",'), /duplicate key "seed"/],
      ['unknown key', good.replace('"seed": "42",', '"seed": "42",\n  "extra": 1,'), /extra/],
      ['seed with a newline', good.replace('"seed": "42"', '"seed": "4\\n2"'), /seed/],
      ['deep nesting', good.replace('"files": 3', `"files": ${'['.repeat(100)}${']'.repeat(100)}`), /nesting/],
      ['oversized', good.replace('"seed": "42"', `"seed": "${'4'.repeat(2 * 1024 * 1024)}"`), /cap/],
      ['not a digest', good.replace(/"digest": "[0-9a-f]+"/, '"digest": "abc"'), /digest/],
    ];
    for (const [what, bytes, re] of cases) {
      writeFileSync(path, bytes);
      assert.throws(() => readSealParams(t.dir), isInvalid(re), what);
      await assert.rejects(verifySeal(t.dir, { policy: DEFAULT }), isInvalid(re), what);
    }
    // JSON needs no final newline: an object cut before its brace does not parse.
    writeFileSync(path, good.trimEnd());
    assert.equal(readSealParams(t.dir)?.seed, '42');
    // CRLF line ends are still valid JSON whitespace: the content decides, and it is intact.
    writeFileSync(path, good.replace(/\n/g, '\r\n'));
    assert.equal(readSealParams(t.dir)?.seed, '42');
  } finally {
    t.dispose();
  }
});

test('digest.status is sealed only for exactly "sealed\\n"; anything malformed is refused, never read as sealed', async () => {
  const t = sealRepo();
  try {
    assert.equal((await seal(t.dir)).exit, 0);
    const path = join(t.dir, 'review/runner/digest.status');
    const table: [string | Buffer, 'sealed' | 'open' | 'invalid'][] = [
      ['sealed\n', 'sealed'],
      ['open\n', 'open'],
      ['Sealed\n', 'open'],
      ['sealed \n', 'open'],
      ['sealed\r\n', 'open'],
      ['sealed', 'invalid'],
      ['sealed\nsealed\n', 'invalid'],
      ['', 'invalid'],
      [Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('sealed\n')]), 'invalid'],
      [Buffer.from([0xff, 0x0a]), 'invalid'],
    ];
    for (const [bytes, want] of table) {
      writeFileSync(path, bytes);
      if (want === 'invalid')
        assert.throws(() => readSealStatus(t.dir), isInvalid(/digest\.status/), JSON.stringify(bytes.toString()));
      else assert.equal(readSealStatus(t.dir), want, JSON.stringify(bytes.toString()));
    }
  } finally {
    t.dispose();
  }
});

test('editRecordText changes only the named keys, in place, and deletes on undefined', () => {
  const json = '{\n  "b": 1,\n  "a": "x",\n  "c": [1, 2]\n}\n';
  assert.equal(
    editRecordText(json, 'json', { a: 'y', d: 'z' }),
    '{\n  "b": 1,\n  "a": "y",\n  "c": [\n    1,\n    2\n  ],\n  "d": "z"\n}\n',
  );
  assert.equal(editRecordText(json, 'json', { a: undefined }), '{\n  "b": 1,\n  "c": [\n    1,\n    2\n  ]\n}\n');
  const yaml = '# top\nb: 1 # one\na: "x"\nc: [1, 2]\n';
  assert.equal(editRecordText(yaml, 'yaml', { a: 'y', d: 'z' }), '# top\nb: 1 # one\na: "y"\nc: [1, 2]\nd: z\n');
});

test('verifySeal is read-only: on drift it reports and writes nothing; reopenSeal then does the drift reaction', async () => {
  const t = sealRepo();
  try {
    const digest = (await seal(t.dir)).stdout.trim();
    writeFileSync(join(t.dir, 'review/runner/credit.json'), '{}\n');
    writeFileSync(join(t.dir, 'fixtures/orders.json'), 'changed\n');
    syncPatch(t.dir); // the patch on disk now changes the fixture
    const before = snapshot(t.dir);
    const check = await verifySeal(t.dir, { policy: DEFAULT });
    assert.equal(check.status, 'drift');
    if (check.status === 'drift') {
      assert.equal(check.expected, digest);
      assert.notEqual(check.digest, digest);
      assert.equal(check.changes.length, 4, 'the fixture line and the tree= line, each - and +');
    }
    assert.deepEqual(snapshot(t.dir), before);
    await reopenSeal(t.dir, 'server-job-88', { now: new Date('2026-10-12T12:00:00Z'), reason: 'test' });
    assert.equal(readSealStatus(t.dir), 'open');
    assert.deepEqual(await verifySeal(t.dir, { policy: DEFAULT }), { status: 'open' });
    assert.equal(has(t.dir, 'review/runner/credit.json'), false);
  } finally {
    t.dispose();
  }
});

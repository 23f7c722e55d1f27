import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SealgateError } from '../../src/core/errors.js';
import fc from 'fast-check';
import { parseCatFileBatch, parseTreeObject, readPolicy, readPolicyAsync } from '../../src/policy/read.js';
import { checkPolicyEntries, checkPolicyOutside, parsePolicy, policyDigest } from '../../src/policy/check.js';
import { git, makeRepo, tempDir } from '../helpers/git.js';

const head = (dir: string): string => git(dir, 'rev-parse', 'HEAD').trim();
const invalid =
  (re: RegExp) =>
  (e: unknown): boolean =>
    e instanceof SealgateError && e.code === 'E_INPUT_INVALID' && re.test(e.message);

test('readPolicy: the config at the base commit, never the work tree; none there: the defaults', () => {
  const bytes = '{"fixtures":["fixtures/**"],"credit":{"mutantBudget":8}}\n';
  const r = makeRepo({ 'sealgate.config.json': bytes });
  try {
    const base = head(r.dir);
    writeFileSync(join(r.dir, 'sealgate.config.json'), '{"credit":{"mutantBudget":1}}\n');
    const p = readPolicy({ repo: r.dir, baseCommit: base });
    assert.equal(p.config.credit.mutantBudget, 8);
    assert.equal(p.digest, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(p.source, `${base}:sealgate.config.json`);
    const none = makeRepo({ 'a.txt': 'x\n' });
    try {
      writeFileSync(join(none.dir, 'sealgate.config.yaml'), 'credit: {mutantBudget: 1}\n');
      const d = readPolicy({ repo: none.dir, baseCommit: head(none.dir) });
      assert.equal(d.digest, 'default');
      assert.equal(d.bytes, null);
      assert.equal(d.config.credit.mutantBudget, 8);
    } finally {
      none.dispose();
    }
  } finally {
    r.dispose();
  }
});

test('readPolicy: two configs, a link, a bad file at the base, or an unknown base are E_INPUT_INVALID', () => {
  const two = makeRepo({ 'sealgate.config.json': '{}\n', 'sealgate.config.yml': '{}\n' });
  const link = makeRepo({ 'real.json': '{}\n' });
  const bad = makeRepo({ 'sealgate.config.json': '{"clock":"frozen","clock":"live"}\n' });
  try {
    assert.throws(
      () => readPolicy({ repo: two.dir, baseCommit: head(two.dir) }),
      invalid(/more than one sealgate config/),
    );
    symlinkSync('real.json', join(link.dir, 'sealgate.config.json'));
    git(link.dir, 'add', '-A');
    git(link.dir, 'commit', '-q', '-m', 'link');
    assert.throws(
      () => readPolicy({ repo: link.dir, baseCommit: head(link.dir) }),
      invalid(/not a regular file at the base commit/),
    );
    unlinkSync(join(link.dir, 'sealgate.config.json'));
    assert.throws(() => readPolicy({ repo: bad.dir, baseCommit: head(bad.dir) }), invalid(/duplicate/i));
    assert.throws(() => readPolicy({ repo: bad.dir, baseCommit: 'f'.repeat(40) }), invalid(/cannot read the policy/));
    assert.throws(() => readPolicy({ repo: bad.dir, baseCommit: 'HEAD' }), invalid(/not a full commit id/));
  } finally {
    two.dispose();
    link.dispose();
    bad.dispose();
  }
});

test('readPolicy: --policy must resolve outside the repository (a link from outside into it too)', () => {
  const r = makeRepo({ 'sealgate.config.json': '{}\n' });
  const out = tempDir();
  try {
    writeFileSync(join(out.dir, 'policy.json'), '{"credit":{"mutantBudget":3}}\n');
    const p = readPolicy({ repo: r.dir, baseCommit: head(r.dir), policyFile: join(out.dir, 'policy.json') });
    assert.equal(p.config.credit.mutantBudget, 3);
    assert.match(p.source, /^file:\//);
    assert.throws(
      () => readPolicy({ repo: r.dir, baseCommit: head(r.dir), policyFile: join(r.dir, 'sealgate.config.json') }),
      invalid(/inside the repository/),
    );
    symlinkSync(join(r.dir, 'sealgate.config.json'), join(out.dir, 'sneaky.json'));
    assert.throws(
      () => readPolicy({ repo: r.dir, baseCommit: head(r.dir), policyFile: join(out.dir, 'sneaky.json') }),
      invalid(/inside the repository/),
    );
    assert.throws(
      () => readPolicy({ repo: r.dir, baseCommit: head(r.dir), policyFile: join(out.dir, 'absent.json') }),
      invalid(/not found/),
    );
  } finally {
    r.dispose();
    out.dispose();
  }
});

test('policy check: pure parts', () => {
  assert.equal(policyDigest(null), 'default');
  assert.equal(checkPolicyEntries([], 'a'.repeat(40)).ok, true);
  assert.equal(
    checkPolicyEntries([{ mode: '040000', type: 'tree', name: 'sealgate.config.json' }], 'a'.repeat(40)).ok,
    false,
  );
  assert.equal(checkPolicyEntries([{ mode: '100644', type: 'blob', name: 'other.json' }], 'a'.repeat(40)).ok, true);
  assert.equal(checkPolicyOutside('/r', '/r/x.json') !== undefined, true);
  assert.equal(checkPolicyOutside('/r', '/r') !== undefined, true);
  assert.equal(checkPolicyOutside('/r', '/rx/x.json'), undefined);
  for (const hostile of [
    '{"test":{"command":"sh x"}}\n',
    '{} trailing\n',
    '\ufeff{}\n',
    '{"unknown":1}\n',
    '{"credit":{"mutantBudget":"1"}}\n',
  ]) {
    assert.equal(parsePolicy(Buffer.from(hostile), 'sealgate.config.json', 'p').ok, false, hostile);
  }
  assert.equal(parsePolicy(Buffer.from('fixtures: [a]\n'), 'sealgate.config.yaml', 'p').ok, true);
});

test('parseTreeObject: the entries of a raw tree as `git ls-tree` names them; a truncated or malformed tree is null', () => {
  const r = makeRepo({ 'sealgate.config.json': '{}\n', 'a dir/x.txt': 'x\n', 'ünï.txt': 'u\n' });
  try {
    symlinkSync('a dir/x.txt', join(r.dir, 'link'));
    git(r.dir, 'add', '-A');
    git(r.dir, 'commit', '-q', '-m', 'more');
    const raw = execFileSync('git', ['cat-file', 'tree', 'HEAD^{tree}'], { cwd: r.dir });
    const got = parseTreeObject(raw, 20);
    // The reference: git ls-tree itself.
    const want = git(r.dir, 'ls-tree', '-z', 'HEAD')
      .split('\0')
      .filter(Boolean)
      .map((rec) => {
        const [meta = '', name = ''] = rec.split('\t');
        const [mode = '', type = ''] = meta.split(' ');
        return { mode, type, name };
      });
    assert.deepEqual(got, want);
    for (let cut = 1; cut < raw.length; cut++) {
      const t = parseTreeObject(raw.subarray(0, cut), 20);
      // A cut inside an entry is refused; a cut exactly between entries is a shorter, valid tree.
      if (t !== null) assert.deepEqual(t, want.slice(0, t.length));
    }
    assert.equal(parseTreeObject(Buffer.from('10x644 a\0' + 'z'.repeat(20), 'latin1'), 20), null);
    assert.equal(parseTreeObject(Buffer.from('100644 a' + 'z'.repeat(20), 'latin1'), 20), null);
  } finally {
    r.dispose();
  }
});

test('parseCatFileBatch: answers in order, missing ones null; anything else (short, extra, bad header) is null', () => {
  const oid = 'a'.repeat(40);
  const out = Buffer.from(`${oid} blob 3\nabc\nHEAD:x missing\n${oid} tree 0\n\n`);
  assert.deepEqual(
    parseCatFileBatch(out, 3)?.map((a) => a && { type: a.type, text: a.bytes.toString() }),
    [{ type: 'blob', text: 'abc' }, null, { type: 'tree', text: '' }],
  );
  assert.equal(parseCatFileBatch(out, 4), null, 'fewer answers than asked');
  assert.equal(parseCatFileBatch(Buffer.concat([out, Buffer.from('x')]), 3), null, 'bytes after the last answer');
  assert.equal(parseCatFileBatch(Buffer.from(`${oid} blob 4\nabc\n`), 1), null, 'a size past the end');
  assert.equal(parseCatFileBatch(Buffer.from(`${oid} blob 2\nabc\n`), 1), null, 'no newline after the bytes');
  assert.equal(parseCatFileBatch(Buffer.from(`${oid} blob 03\nabc\n`), 1), null, 'a padded size');
  assert.equal(parseCatFileBatch(Buffer.from(`${oid.slice(1)} blob 3\nabc\n`), 1), null, 'a short object id');
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 1, max: 4 }), (bytes, n) => {
      const r = parseCatFileBatch(Buffer.from(bytes), n);
      // Whatever the bytes, either null or exactly n answers.
      return r === null || r.length === n;
    }),
  );
});

test('readPolicy: a folder named like the config at the base is refused; a sha1 base that is not a commit here is E_INPUT_INVALID', () => {
  const r = makeRepo({ 'sealgate.config.json/x': '{}\n' });
  try {
    assert.throws(
      () => readPolicy({ repo: r.dir, baseCommit: head(r.dir) }),
      invalid(/not a regular file at the base commit \(mode 040000, tree\)/),
    );
    assert.throws(
      () => readPolicy({ repo: r.dir, baseCommit: 'b'.repeat(40) }),
      invalid(/cannot read the policy at b{40}/),
    );
  } finally {
    r.dispose();
  }
});

test('readPolicyAsync: the same policy and the same refusals as readPolicy', async () => {
  const cases = [
    makeRepo({ 'sealgate.config.yaml': 'credit: {mutantBudget: 3}\n' }),
    makeRepo({ 'a.txt': 'x\n' }),
    makeRepo({ 'sealgate.config.json': '{"credit":{"mutantBudget":"8"}}\n' }),
    makeRepo({ 'sealgate.config.json': '{}\n', 'sealgate.config.yml': '{}\n' }),
  ];
  try {
    for (const r of cases) {
      for (const baseCommit of [head(r.dir), 'c'.repeat(40), 'nope']) {
        let sync: unknown;
        try {
          sync = readPolicy({ repo: r.dir, baseCommit });
        } catch (err) {
          sync = err;
        }
        let later: unknown;
        try {
          later = await readPolicyAsync({ repo: r.dir, baseCommit });
        } catch (err) {
          later = err;
        }
        if (sync instanceof SealgateError) {
          assert.ok(later instanceof SealgateError, `${baseCommit}: the async read did not refuse`);
          assert.equal(later.message, sync.message);
        } else assert.deepEqual(later, sync);
      }
    }
  } finally {
    for (const r of cases) r.dispose();
  }
});

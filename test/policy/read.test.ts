import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SealgateError } from '../../src/core/errors.js';
import { readPolicy } from '../../src/policy/read.js';
import { checkPolicyEntries, checkPolicyOutside, parsePolicy, policyDigest } from '../../src/policy/check.js';
import { git, makeRepo, tempDir } from '../helpers/git.js';

const head = (dir: string): string => git(dir, 'rev-parse', 'HEAD').trim();
const invalid = (re: RegExp) => (e: unknown): boolean => e instanceof SealgateError && e.code === 'E_INPUT_INVALID' && re.test(e.message);

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
    assert.throws(() => readPolicy({ repo: two.dir, baseCommit: head(two.dir) }), invalid(/more than one sealgate config/));
    symlinkSync('real.json', join(link.dir, 'sealgate.config.json'));
    git(link.dir, 'add', '-A');
    git(link.dir, 'commit', '-q', '-m', 'link');
    assert.throws(() => readPolicy({ repo: link.dir, baseCommit: head(link.dir) }), invalid(/not a regular file at the base commit/));
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
    assert.throws(() => readPolicy({ repo: r.dir, baseCommit: head(r.dir), policyFile: join(r.dir, 'sealgate.config.json') }), invalid(/inside the repository/));
    symlinkSync(join(r.dir, 'sealgate.config.json'), join(out.dir, 'sneaky.json'));
    assert.throws(() => readPolicy({ repo: r.dir, baseCommit: head(r.dir), policyFile: join(out.dir, 'sneaky.json') }), invalid(/inside the repository/));
    assert.throws(() => readPolicy({ repo: r.dir, baseCommit: head(r.dir), policyFile: join(out.dir, 'absent.json') }), invalid(/not found/));
  } finally {
    r.dispose();
    out.dispose();
  }
});

test('policy check: pure parts', () => {
  assert.equal(policyDigest(null), 'default');
  assert.equal(checkPolicyEntries([], 'a'.repeat(40)).ok, true);
  assert.equal(checkPolicyEntries([{ mode: '040000', type: 'tree', name: 'sealgate.config.json' }], 'a'.repeat(40)).ok, false);
  assert.equal(checkPolicyEntries([{ mode: '100644', type: 'blob', name: 'other.json' }], 'a'.repeat(40)).ok, true);
  assert.equal(checkPolicyOutside('/r', '/r/x.json') !== undefined, true);
  assert.equal(checkPolicyOutside('/r', '/r') !== undefined, true);
  assert.equal(checkPolicyOutside('/r', '/rx/x.json'), undefined);
  for (const hostile of ['{"test":{"command":"sh x"}}\n', '{} trailing\n', '\ufeff{}\n', '{"unknown":1}\n', '{"credit":{"mutantBudget":"1"}}\n']) {
    assert.equal(parsePolicy(Buffer.from(hostile), 'sealgate.config.json', 'p').ok, false, hostile);
  }
  assert.equal(parsePolicy(Buffer.from('fixtures: [a]\n'), 'sealgate.config.yaml', 'p').ok, true);
});

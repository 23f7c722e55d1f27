import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noiseKeyFor } from '../../src/credit/plan/noise.js';

const A = { patch_sha256: 'a'.repeat(64), base: '1'.repeat(40) };
const B = { patch_sha256: 'b'.repeat(64), base: '1'.repeat(40) };

describe('the noise key: a secret no test sees, per proposal', () => {
  it('kept in the cache folder (0600, made on first use): a rerun gets the same key, another patch or seed another one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sealgate-noise-'));
    try {
      const k = noiseKeyFor(join(dir, 'credit'), A, '42');
      assert.match(k, /^[0-9a-f]{64}$/);
      const secret = join(dir, 'credit', 'noise.key');
      assert.match(readFileSync(secret, 'utf8'), /^[0-9a-f]{64}$/);
      assert.equal(statSync(secret).mode & 0o777, 0o600);
      assert.equal(noiseKeyFor(join(dir, 'credit'), A, '42'), k);
      assert.notEqual(noiseKeyFor(join(dir, 'credit'), B, '42'), k);
      assert.notEqual(noiseKeyFor(join(dir, 'credit'), A, '43'), k);
      // Another cache folder, another secret: the key says nothing about the words elsewhere.
      assert.notEqual(noiseKeyFor(join(dir, 'other'), A, '42'), k);
      // A damaged secret is replaced, never used.
      writeFileSync(secret, 'sealgate');
      const fresh = noiseKeyFor(join(dir, 'credit'), A, '42');
      assert.match(readFileSync(secret, 'utf8'), /^[0-9a-f]{64}$/);
      assert.notEqual(fresh, k);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('without a cache folder: one secret for the whole process (its prelude and its credit step agree)', () => {
    const k = noiseKeyFor(null, A, '42');
    assert.match(k, /^[0-9a-f]{64}$/);
    assert.equal(noiseKeyFor(null, A, '42'), k);
    assert.notEqual(noiseKeyFor(null, B, '42'), k);
  });
});

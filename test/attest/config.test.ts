import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { checkSchema } from '../../src/core/document.js';
import { ConfigSchema, normaliseConfig } from '../../src/config/schema.js';
import { generateKeyPairPem } from '../../src/core/keys.js';

const check = (trust: unknown) => checkSchema(ConfigSchema, { trust }, 'config');

test('config trust: PEM Ed25519 public keys only, strict, with their key ids', () => {
  const a = generateKeyPairPem();
  const b = generateKeyPairPem();
  const good = check({ runnerKeys: [a.publicPem], reviewerKeys: [b.publicPem] });
  assert.ok(good.ok);
  if (good.ok) {
    const t = normaliseConfig(good.value).trust;
    assert.deepEqual(
      t?.runnerKeys.map((k) => k.keyId),
      [a.keyId],
    );
    assert.deepEqual(
      t?.reviewerKeys.map((k) => k.keyId),
      [b.keyId],
    );
  }
  const noReviewers = check({ runnerKeys: [a.publicPem] });
  assert.ok(noReviewers.ok && normaliseConfig(noReviewers.value).trust?.reviewerKeys.length === 0);
  assert.equal(normaliseConfig({}).trust, undefined);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();
  const bad: [string, unknown, RegExp][] = [
    ['private key', { runnerKeys: [a.privatePem] }, /trust\.runnerKeys\.0/],
    ['rsa key', { runnerKeys: [rsa] }, /Ed25519/],
    ['key id alone', { runnerKeys: [a.keyId] }, /PEM/],
    ['empty', { runnerKeys: [] }, /at least one/],
    ['absent runnerKeys', { reviewerKeys: [b.publicPem] }, /runnerKeys/],
    ['repeated', { runnerKeys: [a.publicPem, a.publicPem] }, /repeat/],
    ['unknown field', { runnerKeys: [a.publicPem], keys: [] }, /unknown field/],
    ['not a list', { runnerKeys: a.publicPem }, /trust\.runnerKeys/],
  ];
  for (const [name, trust, want] of bad) {
    const r = check(trust);
    assert.equal(r.ok, false, name);
    if (!r.ok) assert.match(r.findings.map((f) => `${f.path}: ${f.detail}`).join('\n'), want, name);
  }
});

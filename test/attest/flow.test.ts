import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { toJsonText } from '../../src/core/json.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/git.js';
import { NOW, verify } from '../workflow/review.js';
import { allowed, attest, keygen } from './helpers.js';

test('keygen: PKCS#8 0600 and SPKI PEM, key id printed, never overwrites', async () => {
  const t = tempDir();
  try {
    const k = await keygen(join(t.dir, 'runner'));
    assert.match(k.keyId, /^sha256:[0-9a-f]{64}$/);
    assert.equal(statSync(k.priv).mode & 0o777, 0o600);
    assert.match(readFileSync(k.priv, 'utf8'), /^-----BEGIN PRIVATE KEY-----\n/);
    assert.match(k.pem, /^-----BEGIN PUBLIC KEY-----\n/);
    const again = await runCli(['keygen', '--out', join(t.dir, 'runner')], { cwd: t.dir });
    assert.deepEqual([again.stdout, again.exit], ['E_INPUT_INVALID\n', 1]);
    assert.match(again.stderr, /never overwrites/);
    assert.equal(readFileSync(k.pub, 'utf8'), k.pem);
  } finally {
    t.dispose();
  }
});

test('attest then verify with trust: ALLOW; a forged credit (agreeing with a forged case file) is E_SIGNATURE_INVALID', async () => {
  const t = tempDir();
  const k = await keygen(join(t.dir, 'runner'));
  // The trust section is committed at the base before the proposal: the policy is read there.
  const r = await allowed({ runnerKeys: [k.pem] });
  try {
    assert.equal((await verify(r.dir)).code, 'E_SIGNATURE_INVALID', 'trust without an attestation');
    const a = await attest(r.dir, k.priv);
    assert.equal(a.exit, 0, a.stderr);
    assert.equal(a.stdout.trim(), k.keyId);
    const env = JSON.parse(readFileSync(join(r.dir, 'review/runner/attestation.dsse.json'), 'utf8')) as {
      payload: string;
    };
    const st = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as {
      subject: { name: string }[];
      predicate: Record<string, unknown>;
    };
    const names = st.subject.map((s) => s.name);
    for (const n of [
      LAYOUT.record,
      'patches.diff',
      LAYOUT.inputs,
      LAYOUT.digest,
      LAYOUT.status,
      LAYOUT.cases,
      LAYOUT.credit,
      LAYOUT.changed,
      LAYOUT.journal,
      LAYOUT.journalHead,
    ])
      assert.ok(names.includes(n), n);
    assert.equal(st.predicate.runner_job, 'server-job-88');
    assert.equal(st.predicate.digest, r.digest);
    const ok = await verify(r.dir);
    assert.equal(ok.code, 'ALLOW', ok.stderr);
    // Forge: credit and cases rewritten consistently (the unsigned audit would accept them).
    const credit = JSON.parse(readFileSync(join(r.dir, LAYOUT.credit), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(r.dir, LAYOUT.credit), toJsonText({ ...credit, credit_id: 'credit-forged' }));
    const bad = await verify(r.dir);
    assert.equal(bad.code, 'E_SIGNATURE_INVALID');
    assert.match(bad.stderr, /review\/runner\/credit\.json/);
  } finally {
    r.dispose();
    t.dispose();
  }
});

test('without trust, verify says plainly that the evidence is unsigned, and whether an envelope was there', async () => {
  const r = await allowed();
  const t = tempDir();
  try {
    const before = await runCli(['verify', '--repo', r.dir, '--now', NOW, '--explain'], { cwd: r.dir });
    assert.equal(before.stdout, 'ALLOW\n');
    assert.match(before.stderr, /UNSIGNED: the policy has no trust section.*no attestation present/);
    const k = await keygen(join(t.dir, 'runner'));
    assert.equal((await attest(r.dir, k.priv)).exit, 0);
    const after = await runCli(['verify', '--repo', r.dir, '--now', NOW, '--explain'], { cwd: r.dir });
    assert.match(after.stderr, /UNSIGNED: .*a runner attestation is present but was not checked/);
  } finally {
    r.dispose();
    t.dispose();
  }
});

test('signing key: mode 0644, a link or a key in the variable are refused; the variable names a path', async () => {
  const r = await allowed();
  const t = tempDir();
  try {
    const k = await keygen(join(t.dir, 'runner'));
    chmodSync(k.priv, 0o644);
    const loose = await attest(r.dir, k.priv);
    assert.equal(loose.stdout, 'E_INPUT_INVALID\n');
    assert.match(loose.stderr, /chmod 600/);
    assert.doesNotMatch(loose.stderr, /BEGIN/);
    chmodSync(k.priv, 0o600);
    const inEnv = await runCli(['attest', '--repo', r.dir], {
      cwd: r.dir,
      env: { SEALGATE_SIGNING_KEY: readFileSync(k.priv, 'utf8') },
    });
    assert.equal(inEnv.exit, 2);
    assert.doesNotMatch(inEnv.stderr, /PRIVATE KEY-----\n[A-Za-z0-9]/);
    const viaEnv = await runCli(['attest', '--repo', r.dir], { cwd: r.dir, env: { SEALGATE_SIGNING_KEY: k.priv } });
    assert.equal(viaEnv.exit, 0, viaEnv.stderr);
    assert.ok(existsSync(join(r.dir, 'review/runner/attestation.dsse.json')));
  } finally {
    r.dispose();
    t.dispose();
  }
});

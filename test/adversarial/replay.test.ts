// A genuinely signed attestation, replayed: from another proposal, another runner job or
// another digest. Copied envelopes fail on their subjects; envelopes whose subjects match
// (the runner key made to sign these files under another job's name) fail on the predicate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toEnvelopeText } from '../../src/attest/dsse.js';
import { ATTESTATION_PATH, collectEvidence } from '../../src/attest/evidence.js';
import { parsePrivateKeyPem } from '../../src/core/keys.js';
import { signPayload, toPayload } from '../../src/attest/sign.js';
import { toRunnerStatement, type RunnerPredicate } from '../../src/attest/statement.js';
import { tempDir } from '../helpers/git.js';
import { AGENT_PATCH, verify, writeScoring } from '../workflow/review.js';
import { allowed, attest, keygen, signedAllowed, trustedProposedAndSealed } from '../attest/helpers.js';

test('adversarial: an envelope copied from another proposal is E_SIGNATURE_INVALID', async () => {
  const t = tempDir();
  const k = await keygen(join(t.dir, 'runner'));
  const a = await trustedProposedAndSealed({ runnerKeys: [k.pem] }, AGENT_PATCH, 'p-2026-10-12-013');
  const b = await allowed({ runnerKeys: [k.pem] });
  try {
    writeScoring(a, 'property');
    assert.equal((await attest(a.dir, k.priv)).exit, 0);
    copyFileSync(join(a.dir, ATTESTATION_PATH), join(b.dir, ATTESTATION_PATH));
    const v = await verify(b.dir);
    assert.equal(v.code, 'E_SIGNATURE_INVALID');
    assert.match(v.stderr, /review\/proposal\.json: its SHA-256/);
  } finally {
    a.dispose();
    b.dispose();
    t.dispose();
  }
});

test('adversarial: matching subjects under another proposal, runner job or digest: the predicate is refused', async () => {
  const { r, k, dispose } = await signedAllowed();
  try {
    const env = JSON.parse(readFileSync(join(r.dir, ATTESTATION_PATH), 'utf8')) as { payload: string };
    const genuine = (JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate: RunnerPredicate })
      .predicate;
    const key = parsePrivateKeyPem(readFileSync(k.priv, 'utf8'));
    if ('problem' in key) throw new Error(key.problem);
    const subjects = [...collectEvidence(r.dir, 'patches.diff')].map(([name, sha256]) => ({
      name,
      digest: { sha256 },
    }));
    const replays: [string, Partial<RunnerPredicate>, RegExp][] = [
      [
        'another proposal',
        { proposal_id: 'p-2026-10-12-013' },
        /predicate\.proposal_id: the attestation is for proposal "p-2026-10-12-013"/,
      ],
      [
        'another runner job',
        { runner_job: 'server-job-87' },
        /predicate\.runner_job: the attestation is from runner job "server-job-87"/,
      ],
      ['another digest', { digest: 'f'.repeat(64) }, /predicate\.digest: the attestation is for digest f{64}/],
      ['another credit', { credit_id: 'credit-old' }, /predicate\.credit_id/],
      ['another test command', { test_command: ['true'] }, /predicate\.test_command/],
    ];
    for (const [name, edit, want] of replays) {
      const envelope = signPayload(toPayload(toRunnerStatement(subjects, { ...genuine, ...edit })), key);
      writeFileSync(join(r.dir, ATTESTATION_PATH), toEnvelopeText(envelope));
      const v = await verify(r.dir);
      assert.equal(v.code, 'E_SIGNATURE_INVALID', name);
      assert.match(v.stderr, want, name);
    }
    // Control: the genuine predicate with the same subjects verifies.
    writeFileSync(
      join(r.dir, ATTESTATION_PATH),
      toEnvelopeText(signPayload(toPayload(toRunnerStatement(subjects, genuine)), key)),
    );
    assert.equal((await verify(r.dir)).code, 'ALLOW');
  } finally {
    dispose();
  }
});

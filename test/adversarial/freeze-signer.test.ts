// A freeze is the reviewer's: signed by the runner's key, the author's key, or no key, it
// is refused; and a policy that lists one key for both roles is refused outright.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toEnvelopeText } from '../../src/attest/dsse.js';
import { ATTESTATION_PATH, FREEZE_ATTESTATION_PATH, signFreeze } from '../../src/attest/write.js';
import { parsePrivateKeyPem } from '../../src/core/keys.js';
import { LAYOUT } from '../../src/core/layout.js';
import type { Freeze } from '../../src/freeze/schema.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/git.js';
import { FLAKE, NOW, verify } from '../workflow/review.js';
import { allowed, attest, keygen, trustPolicyFile } from '../attest/helpers.js';

const freeze = (dir: string, key: string) =>
  runCli(
    [
      'freeze',
      '--repo',
      dir,
      '--author-job',
      'reviewer-job-2',
      '--test-id',
      FLAKE,
      '--expires-at',
      '2026-10-19T00:00:00Z',
      '--now',
      NOW,
      '--signing-key',
      key,
    ],
    { cwd: dir },
  );

test("adversarial: a freeze signed by the runner's or the author's key is refused; the reviewer's is accepted", async () => {
  const t = tempDir();
  const runner = await keygen(join(t.dir, 'runner'));
  const reviewer = await keygen(join(t.dir, 'reviewer'));
  const author = await keygen(join(t.dir, 'author'));
  const r = await allowed({ runnerKeys: [runner.pem], reviewerKeys: [reviewer.pem] });
  try {
    assert.equal((await attest(r.dir, runner.priv)).exit, 0);
    for (const [who, key, want] of [
      ['runner', runner.priv, /a runner key/],
      ['author', author.priv, /not among the trusted keys/],
    ] as const) {
      const z = await freeze(r.dir, key);
      assert.equal(z.stdout, 'E_SIGNATURE_INVALID\n', who);
      assert.match(z.stderr, want, who);
      assert.equal(existsSync(join(r.dir, LAYOUT.freeze)), false, `${who}: no freeze left behind`);
      assert.equal(existsSync(join(r.dir, FREEZE_ATTESTATION_PATH)), false, `${who}: no envelope left behind`);
    }
    const unsignedTry = await runCli(
      [
        'freeze',
        '--repo',
        r.dir,
        '--author-job',
        'reviewer-job-2',
        '--test-id',
        FLAKE,
        '--expires-at',
        '2026-10-19T00:00:00Z',
        '--now',
        NOW,
      ],
      { cwd: r.dir },
    );
    assert.equal(unsignedTry.exit, 2, 'a trust policy needs a signed freeze');
    const good = await freeze(r.dir, reviewer.priv);
    assert.equal(good.exit, 0, good.stderr);
    assert.equal((await verify(r.dir)).code, 'ALLOW');

    // Swap in an envelope the runner's key signed over the same freeze: refused at the gate too.
    const bytes = readFileSync(join(r.dir, LAYOUT.freeze));
    const z = JSON.parse(bytes.toString('utf8')) as Freeze;
    const runnerKey = parsePrivateKeyPem(readFileSync(runner.priv, 'utf8'));
    if ('problem' in runnerKey) throw new Error(runnerKey.problem);
    const genuine = readFileSync(join(r.dir, FREEZE_ATTESTATION_PATH));
    writeFileSync(
      join(r.dir, FREEZE_ATTESTATION_PATH),
      toEnvelopeText(
        signFreeze(bytes, z, 'p-2026-10-12-014', readFileSync(join(r.dir, ATTESTATION_PATH)), runnerKey, '0.1.0'),
      ),
    );
    const swapped = await verify(r.dir);
    assert.equal(swapped.code, 'E_SIGNATURE_INVALID');
    assert.match(swapped.stderr, /freeze\.dsse\.json: signed by sha256:[0-9a-f]{64}, a runner key/);
    // The gate reads the envelope beside --freeze.
    const gate = await runCli(
      [
        'gate',
        '--repo',
        r.dir,
        '--record',
        join(r.dir, LAYOUT.record),
        '--credit',
        join(r.dir, LAYOUT.credit),
        '--freeze',
        join(r.dir, LAYOUT.freeze),
        '--now',
        NOW,
      ],
      { cwd: r.dir },
    );
    assert.equal(gate.stdout, 'E_SIGNATURE_INVALID\n');
    writeFileSync(join(r.dir, FREEZE_ATTESTATION_PATH), genuine);
    assert.equal((await verify(r.dir)).code, 'ALLOW');
    // An unsigned freeze (envelope removed) is refused.
    rmSync(join(r.dir, FREEZE_ATTESTATION_PATH));
    const unsigned = await verify(r.dir);
    assert.equal(unsigned.code, 'E_SIGNATURE_INVALID');
    assert.match(unsigned.stderr, /review\/freeze\.dsse\.json: absent/);
    writeFileSync(join(r.dir, FREEZE_ATTESTATION_PATH), genuine);
    // One key trusted for both roles: refused, even though every signature verifies. (The
    // policy at the base is sealed; this one is given with --policy from outside the repository.)
    const policy = trustPolicyFile(r.dir, join(t.dir, 'both.config.json'), {
      runnerKeys: [runner.pem],
      reviewerKeys: [reviewer.pem, runner.pem],
    });
    const bothRun = await runCli(['verify', '--repo', r.dir, '--now', NOW, '--policy', policy], { cwd: r.dir });
    const both = { code: bothRun.stdout.trim(), stderr: bothRun.stderr };
    assert.equal(both.code, 'E_SIGNATURE_INVALID');
    assert.match(both.stderr, /trusted as both runner and reviewer/);
  } finally {
    r.dispose();
    t.dispose();
  }
});

test('adversarial: the same key signing the runner evidence and the freeze is refused, even when trusted as reviewer only', async () => {
  const t = tempDir();
  const shared = await keygen(join(t.dir, 'shared'));
  const runner = await keygen(join(t.dir, 'runner'));
  // The policy trusts `runner` as runner and `shared` as reviewer; `shared` signs both.
  const r = await allowed({ runnerKeys: [runner.pem], reviewerKeys: [shared.pem] });
  try {
    assert.equal((await attest(r.dir, shared.priv)).exit, 0);
    const v = await verify(r.dir);
    assert.equal(v.code, 'E_SIGNATURE_INVALID');
    assert.match(v.stderr, /a reviewer key: the runner's evidence needs a runner key/);
  } finally {
    r.dispose();
    t.dispose();
  }
});

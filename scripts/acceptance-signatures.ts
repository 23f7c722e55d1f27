// Writes the signature acceptance cases (acceptance/sig-*) from two spec cases, with fresh
// throwaway keys: only public keys and envelopes are written, the private keys are dropped.
// Regenerate: node --import tsx scripts/acceptance-signatures.ts
import { cpSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePrivateKeyPem, generateKeyPairPem, type KeyPairPem } from '../src/core/keys.js';
import { toEnvelopeText } from '../src/attest/dsse.js';
import { judgedEvidence } from '../src/attest/read.js';
import { signFreeze, toRunnerPredicate } from '../src/attest/write.js';
import { signPayload, toPayload } from '../src/attest/sign.js';
import { toRunnerStatement } from '../src/attest/statement.js';
import { policyDigest } from '../src/policy/check.js';
import { ConfigSchema, normaliseConfig, type Config } from '../src/config/schema.js';
import { parseGateFiles, readGateFiles } from '../src/gate/read.js';
import { parseInstant, isInstant } from '../src/core/time.js';
import { toJsonText } from '../src/core/json.js';
import { FreezeSchema } from '../src/freeze/schema.js';
import { VERSION } from '../src/core/version.js';
import * as v from 'valibot';

const ROOT = new URL('../acceptance/', import.meta.url).pathname;
const now = parseInstant('2026-10-12T12:00:00+00:00');
if (!isInstant(now)) throw new Error('clock');

const runnerKey = generateKeyPairPem();
const reviewerKey = generateKeyPairPem();
const strangerKey = generateKeyPairPem();
const priv = (k: KeyPairPem) => {
  const key = parsePrivateKeyPem(k.privatePem);
  if ('problem' in key) throw new Error(key.problem);
  return key;
};

const TRUST = { trust: { runnerKeys: [runnerKey.publicPem], reviewerKeys: [reviewerKey.publicPem] } };
const policyOf = (dir: string): string => `${dir}.policy.json`;
const readCasePolicy = (dir: string): Config =>
  normaliseConfig(v.parse(ConfigSchema, JSON.parse(readFileSync(policyOf(dir), 'utf8'))));

function makeCase(name: string, from: string, expected: string, reason: string, edit: (dir: string) => void): void {
  const dir = join(ROOT, name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(ROOT, from), dir, { recursive: true });
  rmSync(join(dir, 'reason'), { force: true });
  // The case's policy sits beside the case folders (a --policy file must be outside the repository).
  rmSync(join(dir, 'sealgate.config.json'), { force: true });
  writeFileSync(policyOf(dir), toJsonText(TRUST));
  edit(dir);
  writeFileSync(join(dir, 'expected'), `${expected}\n`);
  if (reason) writeFileSync(join(dir, 'reason'), `${reason}\n`);
}

/** Sign the case's runner evidence exactly as the gate will judge it. */
function signRunner(dir: string, key: KeyPairPem): Buffer {
  const files = readGateFiles({
    record: join(dir, 'record.json'),
    credit: join(dir, 'credit.json'),
    freeze: undefined,
    repo: dir,
  });
  const config = readCasePolicy(dir);
  const parsed = parseGateFiles(files, config, now as Exclude<typeof now, { problem: string }>);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.findings));
  const x = parsed.value;
  const judged = judgedEvidence(dir, files, x);
  const predicate = toRunnerPredicate(x.record, x.credit, x.record.digest ?? '', x.patchSha256, config, VERSION, {
    base_commit: x.record.base_commit,
    policy_digest: policyDigest(readFileSync(policyOf(dir))),
  });
  const env = signPayload(
    toPayload(
      toRunnerStatement(
        [...judged].map(([n, sha256]) => ({ name: n, digest: { sha256 } })),
        predicate,
      ),
    ),
    priv(key),
  );
  const text = Buffer.from(toEnvelopeText(env));
  mkdirSync(join(dir, 'review/runner'), { recursive: true });
  writeFileSync(join(dir, 'review/runner/attestation.dsse.json'), text);
  return text;
}

function signFreezeCase(dir: string, runnerEnvelope: Buffer, key: KeyPairPem): void {
  const bytes = readFileSync(join(dir, 'freeze.json'));
  const freeze = v.parse(FreezeSchema, JSON.parse(bytes.toString('utf8')));
  const record = JSON.parse(readFileSync(join(dir, 'record.json'), 'utf8')) as { proposal_id: string };
  writeFileSync(
    join(dir, 'freeze.dsse.json'),
    toEnvelopeText(signFreeze(bytes, freeze, record.proposal_id, runnerEnvelope, priv(key), VERSION)),
  );
}

makeCase('sig-runner-signed-allows', 'row-5-sealed-no-freeze', 'ALLOW', '', (d) => void signRunner(d, runnerKey));
makeCase(
  'sig-runner-unsigned',
  'row-5-sealed-no-freeze',
  'E_SIGNATURE_INVALID',
  'attestation.dsse.json: absent',
  () => undefined,
);
makeCase(
  'sig-forged-credit',
  'row-5-sealed-no-freeze',
  'E_SIGNATURE_INVALID',
  'review/runner/credit.json: its SHA-256',
  (d) => {
    signRunner(d, runnerKey);
    const credit = JSON.parse(readFileSync(join(d, 'credit.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(d, 'credit.json'), toJsonText({ ...credit, credit_id: 'credit-forged' }));
  },
);
makeCase(
  'sig-untrusted-key',
  'row-5-sealed-no-freeze',
  'E_SIGNATURE_INVALID',
  'not among the trusted keys',
  (d) => void signRunner(d, strangerKey),
);
makeCase(
  'sig-runner-signed-by-reviewer-key',
  'row-5-sealed-no-freeze',
  'E_SIGNATURE_INVALID',
  'a reviewer key',
  (d) => void signRunner(d, reviewerKey),
);
makeCase('sig-freeze-signed-allows', 'row-6-freeze-matches', 'ALLOW', '', (d) =>
  signFreezeCase(d, signRunner(d, runnerKey), reviewerKey),
);
makeCase(
  'sig-freeze-unsigned',
  'row-6-freeze-matches',
  'E_SIGNATURE_INVALID',
  'review/freeze.dsse.json: absent',
  (d) => void signRunner(d, runnerKey),
);
makeCase('sig-freeze-signed-by-runner-key', 'row-6-freeze-matches', 'E_SIGNATURE_INVALID', 'a runner key', (d) =>
  signFreezeCase(d, signRunner(d, runnerKey), runnerKey),
);
console.log('wrote acceptance/sig-*');

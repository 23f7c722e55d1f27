import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { toEnvelopeText } from '../../attest/dsse.js';
import { ATTESTATION_PATH, FREEZE_ATTESTATION_PATH, signFreeze } from '../../attest/write.js';
import { MAX_ENVELOPE_BYTES } from '../../attest/dsse.js';
import { SealgateError } from '../../core/errors.js';
import { fileExists, readBoundedFile, writeFileAtomic } from '../../core/io.js';
import { auditReview } from '../../verify/audit.js';
import { readSigningKey, signingKeyPath, SIGNING_KEY_ENV } from '../keys.js';
import { VERSION } from '../../core/version.js';
import { readRecordFile } from '../../record/file.js';
import { usageError } from '../../core/errors.js';
import { LAYOUT, layoutPath } from '../../core/layout.js';
import { isInstant, parseInstant } from '../../core/time.js';
import { writeFreeze } from '../../freeze/write.js';
import { parseCommandArgs, parseJobOption, requireOption } from '../args.js';
import type { Command } from '../context.js';
import { policyFor } from '../policy.js';

export const command: Command = {
  usage: `Usage: sealgate freeze --author-job X --test-id T --expires-at TIME [--freeze-id ID] [--now T] [--repo DIR] [--policy FILE]
                       [--signing-key FILE]

Writes a flake freeze, review/freeze.json, bound to the current sealed digest, the credit
id and the record's runner job. Before writing, it runs the same audit as verify with the
freeze in place and refuses, printing the code the gate would give, unless that is ALLOW:
  E_SHARED_JOB            X is the author or the runner job (a freeze needs a third job)
  E_CREDIT_MISSING        the credit does not pass (a freeze does not repair it)
  E_FREEZE_COVERS_CREDIT  T is a credit-bearing test
  E_FREEZE_EXPIRED        TIME is not later than the clock
  (and any code the digest, journal or credit audit gives). It never writes a freeze
  that the gate would reject.

  --author-job X   the job filing the freeze (e.g. a reviewer's job)
  --test-id T      the noisy test to waive, as the runner names it (see credit.json)
  --expires-at T   RFC 3339 with an offset; choose one your rotation will revisit
  --freeze-id ID   default: fz-<random>
  --now T          the clock to check the expiry against (default: the current time)
  --repo DIR       the repository (default: .)
  --signing-key F  the reviewer's Ed25519 private key (default: the file $${SIGNING_KEY_ENV} names):
                   signs the freeze and the runner attestation it relies on into
                   ${FREEZE_ATTESTATION_PATH}. Required when the config has a trust section;
                   then the key must be a trusted reviewer key, not the runner's.

Prints the freeze id on stdout. Exit: 0 written, 1 refused, 2 bad arguments.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      'author-job': { type: 'string' },
      'test-id': { type: 'string' },
      'expires-at': { type: 'string' },
      'freeze-id': { type: 'string' },
      now: { type: 'string' },
      repo: { type: 'string' },
      policy: { type: 'string' },
      'signing-key': { type: 'string' },
    });
    const authorJob = parseJobOption(values['author-job'], 'author-job');
    const testId = requireOption(values['test-id'], 'test-id');
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(testId)) throw usageError('--test-id must not contain control characters');
    const expiresAt = requireOption(values['expires-at'], 'expires-at');
    if (!isInstant(parseInstant(expiresAt)))
      throw usageError(`--expires-at: "${expiresAt}" is not an RFC 3339 date-time with an offset`);
    const freezeId = values['freeze-id'];
    if (freezeId !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$/.test(freezeId))
      throw usageError(`--freeze-id: "${freezeId}" is not an id`);
    const now = parseInstant(values.now ?? ctx.clock().toISOString());
    if (!isInstant(now)) throw usageError(`--now: ${now.problem}`);
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const policy = policyFor(ctx, repo, values.policy);
    const config = policy.config;
    const keyPath = signingKeyPath(values['signing-key'], ctx.env);
    const key = keyPath === null ? null : readSigningKey(resolve(ctx.cwd, keyPath)).key;
    if (key === null && config.trust !== undefined)
      throw usageError(
        'the policy trusts reviewer keys (trust.reviewerKeys): give --signing-key FILE so the freeze is signed',
      );
    const runnerEnvelopePath = join(repo, ATTESTATION_PATH);
    if (key !== null && !fileExists(runnerEnvelopePath))
      throw usageError(
        `a signed freeze vouches for the runner's attestation, and ${ATTESTATION_PATH} is absent (run the runner with --signing-key)`,
      );
    const { freeze } = await writeFreeze(
      repo,
      policy,
      now,
      {
        authorJob,
        testId,
        expiresAt,
        ...(freezeId === undefined ? {} : { freezeId }),
      },
      auditReview,
    );
    if (key !== null) {
      const envelopePath = join(repo, FREEZE_ATTESTATION_PATH);
      const freezeBytes = readBoundedFile(layoutPath(repo, 'freeze'), undefined, LAYOUT.freeze);
      const runnerEnvelope = readBoundedFile(runnerEnvelopePath, MAX_ENVELOPE_BYTES, ATTESTATION_PATH);
      writeFileAtomic(
        envelopePath,
        toEnvelopeText(
          signFreeze(
            freezeBytes,
            freeze,
            readRecordFile(layoutPath(repo, 'record'), LAYOUT.record).record.proposal_id,
            runnerEnvelope,
            key,
            VERSION,
          ),
        ),
      );
      if (config.trust !== undefined) {
        // The same audit as the gate's, now with the signature: a wrong-role key undoes both files.
        const audit = await auditReview({ repo, policy, now });
        if (audit.code !== 'ALLOW') {
          rmSync(envelopePath, { force: true });
          rmSync(layoutPath(repo, 'freeze'), { force: true });
          throw new SealgateError(
            audit.code,
            audit.findings.filter((f) => f.code === audit.code),
          );
        }
      }
    }
    ctx.stdout(`${freeze.freeze_id}\n`);
    ctx.stderr(
      `freeze: wrote ${LAYOUT.freeze}: ${freeze.test_id} waived until ${freeze.expires_at}, bound to digest ${freeze.runner_digest}, credit ${freeze.credit_id}, runner ${freeze.runner_job}\n`,
    );
    return 0;
  },
};

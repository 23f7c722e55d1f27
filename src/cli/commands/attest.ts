import { resolve } from 'node:path';
import { writeRunnerAttestation } from '../../attest/write.js';
import { readSealParams } from '../../seal/seal.js';
import { policyFor } from '../policy.js';
import { usageError } from '../../core/errors.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../context.js';
import { readSigningKey, signingKeyPath, SIGNING_KEY_ENV } from '../keys.js';
import { VERSION } from '../../core/version.js';

export const command: Command = {
  usage: `Usage: sealgate attest [--signing-key FILE] [--repo DIR] [--policy FILE]

The runner's signature, as its own step (sealgate runner --signing-key does it at the end
of the job): every evidence file (the record, the patch, everything under review/runner/
and the published logs) with its SHA-256, and a predicate naming the runner job, proposal,
digest, base commit, tree id, policy digest, sandbox, credit id and test command, in a DSSE envelope signed with the runner's Ed25519
key: review/runner/attestation.dsse.json. Run it after publish, when the evidence is final;
any later change to a signed file is E_SIGNATURE_INVALID at the gate.

  --signing-key FILE  the runner's private key (sealgate keygen); default: the file
                      $${SIGNING_KEY_ENV} names. Mode 0600, not a link.
  --repo DIR          the repository (default: .)
  --policy FILE       a sealgate config outside the repository (default: the one at base_commit)

Prints the key id on stdout. Exit: 0 signed, 1 refused, 2 bad arguments.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      'signing-key': { type: 'string' },
      repo: { type: 'string' },
      policy: { type: 'string' },
    });
    const keyPath = signingKeyPath(values['signing-key'], ctx.env);
    if (keyPath === null) throw usageError(`--signing-key FILE (or $${SIGNING_KEY_ENV}) is required`);
    const { key } = readSigningKey(resolve(ctx.cwd, keyPath));
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const policy = policyFor(ctx, repo, values.policy);
    const sealed = readSealParams(repo);
    const r = writeRunnerAttestation(repo, key, policy.config, VERSION, {
      policy_digest: policy.digest,
      sandbox: policy.config.sandbox,
      ...(sealed === null ? {} : { tree_id: sealed.tree, base_commit: sealed.base_commit }),
    });
    const keyId = r.envelope.signatures[0]?.keyid ?? '';
    ctx.stdout(`${keyId}\n`);
    ctx.stderr(`attest: signed ${r.subjects} evidence file(s) with ${keyId}: review/runner/attestation.dsse.json\n`);
    return 0;
  },
};

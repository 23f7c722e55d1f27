import { dirname, join, resolve } from 'node:path';
import { readSignatureState } from '../../attest/read.js';
import { CODE_INFO } from '../../core/codes.js';
import { decide, type Decision } from '../../gate/decide.js';
import { SealgateError } from '../../core/errors.js';
import { parseGateFiles, readGateFiles } from '../../gate/read.js';
import { explainDecision } from '../../report/explain.js';
import { parseCommandArgs, parseCommitOption, parseNowOption, requireOption } from '../args.js';
import { expectedBaseFinding, reasonsWithBase, recordChangedFinding, withExpectedBase } from '../../gate/base.js';
import type { Command } from '../context.js';
import { policyFor } from '../policy.js';
import { readRecordBytes, recordBaseOf } from '../../record/file.js';
import { formatJson, formatReasons } from '../report.js';

export const command: Command = {
  usage: `Usage: sealgate gate --record R --credit C [--freeze F] [--results FILE] --now T [--repo DIR] [--policy FILE]
                     [--attestation A] [--freeze-attestation FA] [--expect-base SHA] [--explain | --json]

Decides one proposal and prints exactly one code on stdout: ALLOW or a reject code.
When the config has a trust section, the runner's attestation must be signed by a
trusted runner key over exactly the bytes judged, and a freeze by a trusted reviewer
key (else E_SIGNATURE_INVALID, which outranks every other reject; docs/attest.md).

  --record R     the proposal record (JSON, or YAML by .yaml/.yml extension)
  --credit C     the runner's credit file (JSON); a missing file is E_CREDIT_MISSING
  --freeze F     a flake freeze (JSON), optional
  --results FILE the sealed run's results.json, bound by the credit's results_sha256
                 (default: results.json beside the credit file); ALLOW needs every case
                 passed or skipped but the one a freeze waives
  --now T        the review clock, RFC 3339 with an offset, e.g. 2026-10-12T12:00:00Z
  --repo DIR     the repository the record's patch_path is inside (default: .)
  --policy FILE  a sealgate config outside --repo (default: sealgate.config.json|yaml|yml
                 at the record's base_commit in --repo; a record without base_commit is
                 classified with the defaults and never allowed: E_CREDIT_UNBOUND)
  --attestation A         the runner's envelope (default: review/runner/attestation.dsse.json in --repo)
  --freeze-attestation FA the freeze's envelope (default: freeze.dsse.json beside the freeze)
  --expect-base SHA       the full commit id the record's base_commit must be (the pull
                 request's base, from CI); another base turns ALLOW into E_INPUT_INVALID
  --explain      a full human account on stderr
  --json         a machine-readable account on stderr

Exit: 0 ALLOW, 1 reject, 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      record: { type: 'string' },
      credit: { type: 'string' },
      freeze: { type: 'string' },
      results: { type: 'string' },
      now: { type: 'string' },
      repo: { type: 'string' },
      policy: { type: 'string' },
      attestation: { type: 'string' },
      'freeze-attestation': { type: 'string' },
      'expect-base': { type: 'string' },
      explain: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const now = parseNowOption(values.now);
    const expected =
      values['expect-base'] === undefined ? null : parseCommitOption(values['expect-base'], 'expect-base');
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const record = resolve(ctx.cwd, requireOption(values.record, 'record'));
    // The record is read once: its base commit decides the policy (and the base side of mixed
    // policy files: package.json, pyproject.toml), and the same bytes are judged. A record
    // that cannot be read is read again by readGateFiles, which reports why.
    const recordBytes = readRecordBytes(record, 'record');
    const base = recordBytes === null ? null : recordBaseOf(recordBytes, record);
    const paths = {
      record,
      ...(recordBytes === null ? {} : { recordBytes }),
      credit: resolve(ctx.cwd, requireOption(values.credit, 'credit')),
      freeze: values.freeze === undefined ? undefined : resolve(ctx.cwd, requireOption(values.freeze, 'freeze')),
      repo,
      ...(values.results === undefined ? {} : { results: resolve(ctx.cwd, requireOption(values.results, 'results')) }),
      ...(base === null ? {} : { base }),
    };
    const policy = policyFor(ctx, repo, values.policy, base);
    const config = policy.config;
    const files = readGateFiles(paths);
    const parsed = parseGateFiles(files, config, now);
    if (!parsed.ok) throw new SealgateError('E_INPUT_INVALID', parsed.findings);
    const inputs = parsed.value;
    // The bytes judged are the bytes the base came from, unless the first read failed and the
    // second found a file: then the base the policy was chosen by must still be the record's.
    const replaced = recordChangedFinding(
      base,
      inputs.record.base_commit ?? null,
      requireOption(values.record, 'record'),
    );
    if (replaced !== null) throw new SealgateError('E_INPUT_INVALID', [replaced]);
    const signatures = readSignatureState({
      repo,
      config,
      files,
      inputs,
      expect: { policy_digest: policy.digest },
      attestation: values.attestation === undefined ? undefined : resolve(ctx.cwd, values.attestation),
      freezeAttestation:
        values['freeze-attestation'] !== undefined
          ? resolve(ctx.cwd, values['freeze-attestation'])
          : paths.freeze === undefined
            ? undefined
            : join(dirname(paths.freeze), 'freeze.dsse.json'),
    });
    const judged = decide(inputs);
    // A signature problem voids every other finding: it says who wrote the files at all.
    const signed: Decision =
      signatures.findings.length > 0
        ? {
            code: 'E_SIGNATURE_INVALID',
            decisive: signatures.findings[0] ?? null,
            findings: [...signatures.findings, ...judged.findings],
          }
        : judged;
    const mismatch =
      expected === null ? null : expectedBaseFinding(base, expected, requireOption(values.record, 'record'));
    const decision = withExpectedBase(signed, mismatch);
    // The account is built before the code is printed: a failure while building it is then E_INTERNAL alone, never a second code.
    const account = values.json
      ? formatJson(decision.code, decision.findings, {
          now: now.text,
          signatures: {
            checked: signatures.checked,
            runner_attestation: signatures.runnerEnvelope,
            freeze_attestation: signatures.freezeEnvelope,
            runner_key: signatures.runnerKeyId,
            reviewer_key: signatures.reviewerKeyId,
          },
        })
      : values.explain
        ? explainDecision(inputs, decision, signatures)
        : decision.code !== 'ALLOW'
          ? formatReasons(decision.code, reasonsWithBase(decision, mismatch))
          : '';
    ctx.stdout(`${decision.code}\n`);
    if (account !== '') ctx.stderr(account);
    return CODE_INFO[decision.code].exit;
  },
};

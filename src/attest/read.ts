import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import type { Finding } from '../core/errors.js';
import { fileExists, readBoundedFile } from '../core/io.js';
import { LAYOUT } from '../core/layout.js';
import { crypto } from '../core/builtins.js';
import { sha256Hex } from '../core/sha256.js';
import type { GateFiles } from '../gate/read.js';
import type { GateInputs } from '../gate/decide.js';
import { MAX_ENVELOPE_BYTES } from './dsse.js';
import { checkFreezeAttestation, checkRunnerAttestation, type RunnerExpectation } from './check.js';
import { ATTESTATION_PATH, FREEZE_ATTESTATION_PATH, collectEvidence } from './evidence.js';

/** What a report says about signatures. */
export interface SignatureState {
  /** true when the policy has a trust section and the signatures were checked. */
  readonly checked: boolean;
  readonly runnerEnvelope: boolean;
  readonly freezeEnvelope: boolean;
  readonly runnerKeyId: string | null;
  readonly reviewerKeyId: string | null;
  readonly findings: readonly Finding[];
}

const sha = (b: Uint8Array): string => sha256Hex(b);

function readEnvelope(path: string, label: string): Uint8Array | null {
  return fileExists(path) ? readBoundedFile(path, MAX_ENVELOPE_BYTES, label) : null;
}

export interface SignatureOptions {
  readonly repo: string;
  readonly config: Config;
  readonly files: GateFiles;
  readonly inputs: GateInputs;
  /** The runner envelope (default review/runner/attestation.dsse.json in the repository). */
  readonly attestation?: string | undefined;
  /** The freeze envelope (default review/freeze.dsse.json); read only when a freeze is judged. */
  readonly freezeAttestation?: string | undefined;
  /** The freeze bytes judged, when they are not files.freeze (verify's candidate freeze). */
  readonly freezeBytes?: Uint8Array | null;
  /** Predicate fields the caller knows from elsewhere (policy digest, tree id). */
  readonly expect?: Partial<Pick<RunnerExpectation, 'policy_digest' | 'tree_id'>>;
}

/**
 * The bytes judged, by subject name: every evidence file on disk, with the gate's own reads
 * in place of the files it was pointed at (record, credit, patch, digest, status).
 */
export function judgedEvidence(repo: string, files: GateFiles, inputs: GateInputs): Map<string, string> {
  const judged = collectEvidence(repo, inputs.record.patch_path);
  judged.set(LAYOUT.record, sha(files.record));
  if (files.credit === null) judged.delete(LAYOUT.credit);
  else judged.set(LAYOUT.credit, sha(files.credit));
  judged.set(inputs.record.patch_path, inputs.patchSha256);
  for (const [key, bytes] of [
    [LAYOUT.digest, files.digestTxt],
    [LAYOUT.status, files.statusTxt],
  ] as const) {
    if (bytes === null) judged.delete(key);
    else judged.set(key, sha(bytes));
  }
  return judged;
}

/**
 * Read the envelopes and check them against the policy's trust section and the bytes the
 * gate judged. Without a trust section nothing is checked and the state says so.
 */
export function readSignatureState(opts: SignatureOptions): SignatureState {
  const { repo, config, files, inputs } = opts;
  const runnerPath = opts.attestation ?? join(repo, ATTESTATION_PATH);
  const freezePath = opts.freezeAttestation ?? join(repo, FREEZE_ATTESTATION_PATH);
  const freezeBytes = opts.freezeBytes !== undefined ? opts.freezeBytes : files.freeze;
  const trust = config.trust;
  if (trust === undefined) {
    return {
      checked: false,
      runnerEnvelope: fileExists(runnerPath),
      freezeEnvelope: freezeBytes !== null && fileExists(freezePath),
      runnerKeyId: null,
      reviewerKeyId: null,
      findings: [],
    };
  }
  // node:crypto verifies the signatures below; loaded first, it also hashes the evidence
  // (src/core/sha256.ts uses it once loaded), faster than the JavaScript SHA-256 cold.
  crypto();
  const runnerEnvelope = readEnvelope(runnerPath, ATTESTATION_PATH);
  const record = inputs.record;
  const judged = judgedEvidence(repo, files, inputs);
  const expect: RunnerExpectation = {
    proposal_id: record.proposal_id,
    runner_job: record.runner_job ?? '',
    author_job: record.author_job ?? '',
    digest: inputs.runnerFiles.digest ?? record.digest ?? null,
    credit_id: inputs.credit?.credit_id ?? null,
    patch_sha256: inputs.patchSha256,
    base_commit: (record as { base_commit?: string }).base_commit,
    test_command: config.test.command,
    ...opts.expect,
  };
  const runner = checkRunnerAttestation({ envelope: runnerEnvelope, label: ATTESTATION_PATH, trust, judged, expect });
  const findings: Finding[] = [...runner.findings];
  let reviewerKeyId: string | null = null;
  let freezeEnvelope = false;
  if (inputs.freeze !== null && freezeBytes !== null) {
    const envelope = readEnvelope(freezePath, FREEZE_ATTESTATION_PATH);
    freezeEnvelope = envelope !== null;
    const z = inputs.freeze;
    const fz = checkFreezeAttestation({
      envelope,
      label: FREEZE_ATTESTATION_PATH,
      trust,
      freeze: { name: LAYOUT.freeze, sha256: sha(freezeBytes), value: { ...z } },
      proposalId: record.proposal_id,
      runnerEnvelopeSha256: runnerEnvelope === null ? null : sha(runnerEnvelope),
      runnerKeyId: runner.keyId,
    });
    reviewerKeyId = fz.findings.length === 0 ? fz.keyId : null;
    findings.push(...fz.findings);
  }
  return {
    checked: true,
    runnerEnvelope: runnerEnvelope !== null,
    freezeEnvelope,
    runnerKeyId: runner.findings.length === 0 ? runner.keyId : null,
    reviewerKeyId,
    findings,
  };
}

/** One line for a report. */
export function describeSignatures(s: SignatureState): string {
  if (!s.checked) {
    const present = [
      s.runnerEnvelope ? 'a runner attestation is present' : '',
      s.freezeEnvelope ? 'a freeze signature is present' : '',
    ].filter(Boolean);
    return `UNSIGNED: the policy has no trust section, so no signature was checked${present.length > 0 ? ` (${present.join(' and ')} but was not checked)` : ' (no attestation present)'}; anyone who can write the evidence files could have written them`;
  }
  if (s.findings.length > 0) return `signature INVALID: ${s.findings.length} problem(s)`;
  return `signed by trusted runner key ${s.runnerKeyId ?? '?'}${s.reviewerKeyId ? `, freeze by trusted reviewer key ${s.reviewerKeyId}` : ''}; every subject matches the bytes judged`;
}

import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { readDocument } from '../core/document.js';
import { SealgateError, inputInvalid } from '../core/errors.js';
import { fileExists, readBoundedFile, writeFileAtomic } from '../core/io.js';
import { LAYOUT, layoutPath } from '../core/layout.js';
import { sha256Hex } from '../core/sha256.js';
import { CreditSchema, type Credit } from '../credit/schema.js';
import { RecordSchema, type ProposalRecord } from '../record/schema.js';
import { toEnvelopeText, type Envelope } from './dsse.js';
import { ATTESTATION_PATH, FREEZE_ATTESTATION_PATH, collectEvidence } from './evidence.js';
import { signPayload, toPayload } from './sign.js';
import {
  toFreezeStatement,
  toRunnerStatement,
  type FreezePredicate,
  type RunnerPredicate,
  type Subject,
} from './statement.js';
import type { Freeze } from '../freeze/schema.js';

/** Facts other stages record, when they do: copied into the predicate as they are. */
export interface RunnerFacts {
  readonly base_commit?: string | undefined;
  readonly tree_id?: string | undefined;
  readonly policy_digest?: string | undefined;
  readonly sandbox?: string | undefined;
}

/** The runner predicate from the files the runner wrote. Pure. */
export function toRunnerPredicate(
  record: ProposalRecord,
  credit: Credit | null,
  digest: string,
  patchSha256: string,
  config: Config,
  version: string,
  facts: RunnerFacts,
): RunnerPredicate {
  if (!record.runner_job || !record.author_job)
    throw new SealgateError('E_JOB_MISSING', [
      { code: 'E_JOB_MISSING', path: 'record', detail: 'the record lacks a job id; the runner cannot sign for it' },
    ]);
  const optional = Object.fromEntries(Object.entries(facts).filter(([, v]) => v !== undefined)) as RunnerFacts;
  return {
    runner_job: record.runner_job,
    author_job: record.author_job,
    proposal_id: record.proposal_id,
    digest,
    patch_sha256: patchSha256,
    credit_id: credit?.credit_id ?? null,
    ...optional,
    test_command: config.test.command === undefined ? null : [...config.test.command],
    sealgate_version: version,
  };
}

const toSubjects = (m: ReadonlyMap<string, string>): Subject[] =>
  [...m].map(([name, sha256]) => ({ name, digest: { sha256 } }));

/** Fields of the record beyond today's schema (base_commit, written by `propose --base`), read if present. */
function recordFacts(recordBytes: Uint8Array): RunnerFacts {
  const raw = JSON.parse(Buffer.from(recordBytes).toString('utf8')) as { base_commit?: unknown };
  return typeof raw.base_commit === 'string' ? { base_commit: raw.base_commit } : {};
}

/**
 * Sign the runner's evidence: every evidence file hashed (no links followed), the predicate
 * built from the record, credit and digest, the envelope written to
 * review/runner/attestation.dsse.json (0644: it holds no secret). Returns the envelope.
 */
export function writeRunnerAttestation(
  repo: string,
  key: KeyObject,
  config: Config,
  version: string,
  facts: RunnerFacts = {},
): { envelope: Envelope; subjects: number; path: string } {
  const recordPath = layoutPath(repo, 'record');
  const recordBytes = readBoundedFile(recordPath, undefined, LAYOUT.record);
  const record = readDocument(recordPath, RecordSchema, 'json', LAYOUT.record);
  const credit = fileExists(layoutPath(repo, 'credit'))
    ? readDocument(layoutPath(repo, 'credit'), CreditSchema, 'json', LAYOUT.credit)
    : null;
  const digestPath = layoutPath(repo, 'digest');
  if (!fileExists(digestPath)) throw inputInvalid(LAYOUT.digest, 'absent: the runner signs only sealed evidence');
  const digest = readBoundedFile(digestPath, 1024, LAYOUT.digest).toString('utf8').trim();
  const evidence = collectEvidence(repo, record.patch_path);
  const patchSha = evidence.get(record.patch_path);
  const recordSha = evidence.get(LAYOUT.record);
  if (patchSha === undefined || recordSha === undefined)
    throw inputInvalid(LAYOUT.record, 'the record or its patch could not be hashed');
  if (recordSha !== sha256Hex(recordBytes)) throw inputInvalid(LAYOUT.record, 'changed while it was being signed');
  const predicate = toRunnerPredicate(record, credit, digest, patchSha, config, version, {
    ...recordFacts(recordBytes),
    ...facts,
  });
  const envelope = signPayload(toPayload(toRunnerStatement(toSubjects(evidence), predicate)), key);
  const path = join(repo, ATTESTATION_PATH);
  writeFileAtomic(path, toEnvelopeText(envelope), 0o644);
  return { envelope, subjects: evidence.size, path };
}

/** Sign a freeze: its bytes as the one subject, its fields and the runner attestation it vouches for as the predicate. */
export function signFreeze(
  freezeBytes: Uint8Array,
  freeze: Freeze,
  proposalId: string,
  runnerEnvelopeBytes: Uint8Array,
  key: KeyObject,
  version: string,
): Envelope {
  const predicate: FreezePredicate = {
    freeze_id: freeze.freeze_id,
    proposal_id: proposalId,
    author_job: freeze.author_job,
    runner_job: freeze.runner_job,
    runner_digest: freeze.runner_digest,
    credit_id: freeze.credit_id,
    test_id: freeze.test_id,
    expires_at: freeze.expires_at,
    runner_attestation_sha256: sha256Hex(runnerEnvelopeBytes),
    sealgate_version: version,
  };
  const subject: Subject = { name: LAYOUT.freeze, digest: { sha256: sha256Hex(freezeBytes) } };
  return signPayload(toPayload(toFreezeStatement([subject], predicate)), key);
}

export { ATTESTATION_PATH, FREEZE_ATTESTATION_PATH };

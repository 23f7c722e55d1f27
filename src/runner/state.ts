import { resolve } from 'node:path';
import { SealgateError, inputInvalid } from '../core/errors.js';
import { sameJob } from '../core/ids.js';
import { fileExists } from '../core/io.js';
import { LAYOUT } from '../core/layout.js';
import { formatInstant } from '../core/time.js';
import { readRecordFile, writeRecordEdit, type RecordFile } from '../record/file.js';
import {
  readSealParams,
  readSealStatus,
  reopenSeal,
  verifySeal,
  type SealParams,
  type VerifyOptions,
} from '../seal/seal.js';
import { deriveLogState, type JournalEvent, type LogState } from '../store/journal.js';
import type { StoredFile } from '../store/logs.js';

/**
 * What `run`, `publish` and `discard-logs` check before they touch anything, and how the
 * record's log fields are derived (from the journal and the files present, never by hand).
 */

const reject = (
  code: 'E_JOB_MISSING' | 'E_SHARED_JOB' | 'E_DIGEST_OPEN' | 'E_LOGS_EARLY',
  path: string,
  detail: string,
): SealgateError => new SealgateError(code, [{ code, path, detail }]);

/** The record's path: as the seal recorded it, else the default. */
export function recordPathOf(repo: string, params: SealParams | null): { path: string; label: string } {
  const rel = params?.record ?? LAYOUT.record;
  return { path: resolve(repo, rel), label: rel };
}

export interface JobCheck {
  readonly record: RecordFile;
  readonly params: SealParams;
}

/** The record names `runnerJob` as its runner, a different author job, and a sealed status (files and record). */
export function checkRunnerJob(repo: string, runnerJob: string): JobCheck {
  const params = readSealParams(repo);
  const where = recordPathOf(repo, params);
  if (!fileExists(where.path)) throw inputInvalid(where.label, 'record not found');
  const record = readRecordFile(where.path, where.label);
  const author = record.record.author_job ?? '';
  const runner = record.record.runner_job ?? '';
  if (author === '') throw reject('E_JOB_MISSING', `${where.label}#author_job`, 'the record names no author job');
  if (runner === '') throw reject('E_JOB_MISSING', `${where.label}#runner_job`, 'the record names no runner job');
  if (sameJob(author, runnerJob))
    throw reject(
      'E_SHARED_JOB',
      `${where.label}#author_job`,
      `"${runnerJob}" is the author job; the runner must be a different job`,
    );
  if (!sameJob(runner, runnerJob))
    throw inputInvalid(`${where.label}#runner_job`, `the record names runner job "${runner}", not "${runnerJob}"`);
  if (readSealStatus(repo) !== 'sealed')
    throw reject('E_DIGEST_OPEN', LAYOUT.status, 'the digest is not sealed; run `sealgate seal` first');
  if (record.record.digest_status !== 'sealed')
    throw reject('E_DIGEST_OPEN', `${where.label}#digest_status`, 'the record says the digest is open');
  if (params === null) throw inputInvalid(LAYOUT.sealParams, 'digest.status says sealed but seal.json is missing');
  if (!sameJob(params.runner_job, runnerJob))
    throw reject(
      'E_DIGEST_OPEN',
      LAYOUT.sealParams,
      `the live seal belongs to runner job "${params.runner_job}", not "${runnerJob}"`,
    );
  if (record.record.digest !== undefined && record.record.digest !== params.digest) {
    throw reject(
      'E_DIGEST_OPEN',
      `${where.label}#digest`,
      `the record is bound to digest ${record.record.digest}, the seal is ${params.digest}`,
    );
  }
  return { record, params };
}

/** Recompute the digest from the bytes now; on drift carry out the spec's reaction (reopen) and refuse. */
export async function requireSealMatch(
  repo: string,
  runnerJob: string,
  now: Date,
  opts: VerifyOptions,
): Promise<string> {
  const check = await verifySeal(repo, opts);
  if (check.status === 'open') throw reject('E_DIGEST_OPEN', LAYOUT.status, 'the digest is not sealed');
  if (check.status === 'drift') {
    await reopenSeal(repo, runnerJob, { now, reason: 'fixture drift found before the run' });
    throw new SealgateError('E_DIGEST_OPEN', [
      {
        code: 'E_DIGEST_OPEN',
        path: LAYOUT.inputs,
        detail: `the sealed bytes changed since the seal (expected ${check.expected}); credit and logs deleted, status set back to open: allocate a new runner job and reseal`,
      },
      ...check.changes.map((c) => ({ code: 'E_DIGEST_OPEN' as const, path: LAYOUT.inputs, detail: c })),
    ]);
  }
  return check.digest;
}

/** The journal's live seal (the last seal not followed by a reopen) must be this job and digest. */
export function requireLiveSeal(events: readonly JournalEvent[], runnerJob: string, digest: string): void {
  let live: { job: string; digest: string } | null = null;
  for (const e of events) {
    if (e.type === 'seal') live = { job: e.runner_job, digest: e.digest };
    else if (e.type === 'reopen') live = null;
  }
  if (live === null || !sameJob(live.job, runnerJob) || live.digest !== digest) {
    throw reject(
      'E_DIGEST_OPEN',
      LAYOUT.journal,
      `the journal has no live seal of digest ${digest} by "${runnerJob}"; seal with \`sealgate seal\``,
    );
  }
}

/**
 * The record's log fields. The journal decides for the hidden store (deriveLogState); a
 * published copy that is not exactly the store's content after a publish on this seal is
 * a log that became readable without publication: present, not after the seal.
 */
export function deriveFullLogState(
  events: readonly JournalEvent[],
  store: readonly StoredFile[],
  published: readonly StoredFile[],
): LogState {
  const state = deriveLogState(events, new Map(store.map((f) => [f.name, f.sha256])));
  if (published.length === 0) return state;
  const same =
    published.length === store.length &&
    published.every((p) => store.some((s) => s.name === p.name && s.sha256 === p.sha256));
  if (state.log_visibility === 'published' && same) return state;
  return { logs_present: true, logs_after_seal: false, log_visibility: 'hidden' };
}

/** Write the derived state into the record when it differs; no other field may change. Returns true when written. */
export function writeLogState(file: RecordFile, state: LogState): boolean {
  const r = file.record;
  if (
    r.logs_present === state.logs_present &&
    r.logs_after_seal === state.logs_after_seal &&
    r.log_visibility === state.log_visibility
  )
    return false;
  return writeRecordEdit(file, {
    logs_present: state.logs_present,
    logs_after_seal: state.logs_after_seal,
    log_visibility: state.log_visibility,
  });
}

/** Re-read the record (another step may have rewritten it) and write the derived state. */
export function recordLogState(repo: string, params: SealParams | null, state: LogState): void {
  const where = recordPathOf(repo, params);
  if (!fileExists(where.path)) return;
  writeLogState(readRecordFile(where.path, where.label), state);
}

export function nowText(clock: () => Date): string {
  return formatInstant(clock());
}

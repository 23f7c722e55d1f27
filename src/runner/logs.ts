import { accessSync, chmodSync, constants, lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SealgateError, inputInvalid } from '../core/errors.js';
import { isJobId, sameJob } from '../core/ids.js';
import { fileExists, readBoundedFile, sha256File } from '../core/io.js';
import { LAYOUT, layoutPath } from '../core/layout.js';
import { readSealParams, readSealStatus, type VerifyOptions } from '../seal/seal.js';
import { appendJournal, readJournal, type JournalEvent } from '../store/journal.js';
import { listPublished, listStore, publishCopy, removeLogs, type StoredFile } from '../store/logs.js';
import {
  checkRunnerJob,
  deriveFullLogState,
  nowText,
  recordLogState,
  recordPathOf,
  requireLiveSeal,
  requireSealMatch,
} from './state.js';
import { readRecordFile } from '../record/file.js';

/** `publish` (runner), `discard-logs` (runner) and the author's reader behind `logs`. */

const early = (detail: string): SealgateError =>
  new SealgateError('E_LOGS_EARLY', [{ code: 'E_LOGS_EARLY', path: LAYOUT.logs, detail }]);

/**
 * Copy the hidden logs to review/logs, readable, but only on a sealed, still-matching digest
 * and only when every log was written by a run after that seal. Journal first, then the copy,
 * then the record: a crash leaves nothing readable that the journal does not account for.
 */
export async function publishLogs(
  repo: string,
  runnerJob: string,
  clock: () => Date,
  verify: VerifyOptions,
): Promise<{ files: readonly StoredFile[] }> {
  const { params } = checkRunnerJob(repo, runnerJob);
  const digest = await requireSealMatch(repo, runnerJob, clock(), verify);
  const events = readJournal(repo);
  requireLiveSeal(events, runnerJob, digest);
  const store = listStore(repo);
  const state = deriveFullLogState(events, store, listPublished(repo));
  if (state.logs_present && !state.logs_after_seal) {
    recordLogState(repo, params, state);
    throw early(
      'logs are present that no run after the current seal wrote; they cannot be published: `sealgate discard-logs`, then run again',
    );
  }
  if (!state.logs_present) throw inputInvalid(LAYOUT.logs, 'there are no logs to publish; `sealgate run` first');
  appendJournal(repo, {
    type: 'publish',
    runner_job: runnerJob,
    digest,
    at: nowText(clock),
    files: store.map((f) => f.name),
  });
  publishCopy(repo, store);
  // The results name failing tests; they become readable with the logs.
  if (fileExists(layoutPath(repo, 'results'))) chmodSync(layoutPath(repo, 'results'), 0o644);
  recordLogState(repo, params, deriveFullLogState(readJournal(repo), store, listPublished(repo)));
  return { files: store };
}

/** The digest to journal a discard under: the live seal's, else the last one the journal or digest.txt names. */
function discardDigest(repo: string, events: readonly JournalEvent[]): string | null {
  const params = readSealParams(repo);
  if (params) return params.digest;
  const last = events[events.length - 1];
  if (last) return last.digest;
  const path = layoutPath(repo, 'digest');
  if (!fileExists(path)) return null;
  const line = readBoundedFile(path, 4096, LAYOUT.digest).toString('utf8').trim();
  return /^[0-9a-f]{6,128}$/.test(line) ? line : null;
}

/**
 * The spec's "Discard logs": remove the hidden store, the published copy and the results
 * derived from them; journal a `discard`; set the record's log fields from what is left.
 */
export async function discardLogs(
  repo: string,
  runnerJob: string,
  clock: () => Date,
): Promise<{ files: readonly string[]; journaled: boolean }> {
  if (!isJobId(runnerJob)) throw inputInvalid('runner job', `"${runnerJob}" is not a job id`);
  const params = readSealParams(repo);
  const where = recordPathOf(repo, params);
  if (fileExists(where.path)) {
    const rec = readRecordFile(where.path, where.label).record;
    const author = rec.author_job ?? '';
    const runner = rec.runner_job ?? '';
    if (author !== '' && sameJob(author, runnerJob)) {
      throw new SealgateError('E_SHARED_JOB', [
        {
          code: 'E_SHARED_JOB',
          path: `${where.label}#author_job`,
          detail: `"${runnerJob}" is the author job; only the runner discards logs`,
        },
      ]);
    }
    if (runner !== '' && !sameJob(runner, runnerJob))
      throw inputInvalid(`${where.label}#runner_job`, `the record names runner job "${runner}", not "${runnerJob}"`);
  }
  const events = readJournal(repo);
  const names = [...new Set([...listStore(repo).map((f) => f.name), ...listPublished(repo).map((f) => f.name)])].sort();
  const digest = discardDigest(repo, events);
  let journaled = false;
  if (digest !== null) {
    appendJournal(repo, { type: 'discard', runner_job: runnerJob, digest, at: nowText(clock), files: names });
    journaled = true;
  }
  removeLogs(repo);
  rmSync(layoutPath(repo, 'results'), { force: true });
  recordLogState(repo, params, deriveFullLogState(readJournal(repo), [], []));
  return { files: names, journaled };
}

export interface PublishedLog {
  readonly name: string;
  readonly bytes: number;
}

/**
 * The author's reader: published logs only. Refuses (E_DIGEST_OPEN / E_LOGS_EARLY) unless the
 * digest is sealed and the record says published; when the journal is readable (same user),
 * every published file must also be one the journal's last publish accounts for.
 */
export async function readPublishedLogs(repo: string): Promise<{ files: PublishedLog[]; dir: string }> {
  if (readSealStatus(repo) !== 'sealed')
    throw new SealgateError('E_DIGEST_OPEN', [
      { code: 'E_DIGEST_OPEN', path: LAYOUT.status, detail: 'the digest is not sealed; logs stay hidden' },
    ]);
  let params;
  try {
    params = readSealParams(repo);
  } catch {
    params = null;
  }
  const where = recordPathOf(repo, params);
  if (!fileExists(where.path)) throw inputInvalid(where.label, 'record not found');
  const rec = readRecordFile(where.path, where.label).record;
  if (rec.digest_status !== 'sealed')
    throw new SealgateError('E_DIGEST_OPEN', [
      {
        code: 'E_DIGEST_OPEN',
        path: `${where.label}#digest_status`,
        detail: 'the record says the digest is open; logs stay hidden',
      },
    ]);
  if (rec.log_visibility !== 'published')
    throw early('the logs are hidden until the runner publishes them (`sealgate publish`)');
  const dir = layoutPath(repo, 'publishedLogs');
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    throw early(`${LAYOUT.publishedLogs} does not exist although the record says published`);
  }
  if (!st.isDirectory()) throw inputInvalid(LAYOUT.publishedLogs, 'not a directory');
  const published = listPublished(repo);
  // Another user (the author) cannot open the runner's journal: the record and the copy are what it has.
  let events: JournalEvent[] | null = null;
  try {
    accessSync(layoutPath(repo, 'journal'), constants.R_OK);
    events = readJournal(repo);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') events = [];
    else if (code !== 'EACCES' && code !== 'EPERM') throw err;
  }
  if (events !== null) {
    const state = deriveFullLogState(events, published, published);
    if (state.log_visibility !== 'published' || !state.logs_after_seal)
      throw early(`${LAYOUT.publishedLogs} is not what the journal says was published`);
  }
  return { files: published.map((f) => ({ name: f.name, bytes: f.bytes })), dir };
}

/** One published log's bytes, by name (no paths). */
export async function readPublishedLog(repo: string, name: string, cap: number): Promise<Buffer> {
  const { files, dir } = await readPublishedLogs(repo);
  if (!files.some((f) => f.name === name))
    throw inputInvalid(name, `no published log of that name; have: ${files.map((f) => f.name).join(', ') || 'none'}`);
  const path = join(dir, name);
  const h = sha256File(path);
  if (h.bytes > cap) throw inputInvalid(name, `larger than the ${cap}-byte cap`);
  return readBoundedFile(path, cap, `${LAYOUT.publishedLogs}/${name}`);
}

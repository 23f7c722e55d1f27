// Whether a runner job may score this proposal: its job, a sealed and unchanged digest, and the files it scores from.
import { resolve } from 'node:path';
import { SealgateError, inputInvalid } from '../../core/errors.js';
import { digestsEqual, sameJob, sha256Hex } from '../../core/ids.js';
import { readBoundedFile, resolveInRepo, MAX_INPUT_BYTES } from '../../core/io.js';
import { LAYOUT, layoutPath } from '../../core/layout.js';
import type { Policy } from '../../policy/read.js';
import { readRecordFile } from '../../record/file.js';
import type { ProposalRecord } from '../../record/schema.js';
import { parseResults, type Results } from '../../runner/results.js';
import { readSealParams, reopenSeal, verifySeal, type SealParams } from '../../seal/seal.js';
import type { Changed } from '../../symbols/schema.js';
import type { RunnerTree } from '../../tree/build.js';
import { readChanged } from '../plan/inputs.js';

/** What the step scores from, every piece checked against the seal and the record. */
export interface ScoringInputs {
  readonly params: SealParams;
  readonly record: ProposalRecord;
  readonly digest: string;
  readonly patchSha: string;
  readonly changedBytes: Buffer;
  readonly changed: Changed;
  readonly results: Results;
  readonly resultsBytes: Buffer;
}

/** The record's jobs: both named, the runner is `runnerJob`, and it is not the author. */
function checkJobs(record: ProposalRecord, recordRel: string, runnerJob: string): void {
  const author = record.author_job;
  const runner = record.runner_job;
  if (!author || !runner)
    throw new SealgateError('E_JOB_MISSING', [
      { code: 'E_JOB_MISSING', path: recordRel, detail: `${!author ? 'author_job' : 'runner_job'} is empty or absent` },
    ]);
  if (sameJob(author, runnerJob))
    throw new SealgateError('E_SHARED_JOB', [
      {
        code: 'E_SHARED_JOB',
        path: recordRel,
        detail: `"${runnerJob}" is the record's author job; it may not score its own patch`,
      },
    ]);
  if (!sameJob(runner, runnerJob))
    throw new SealgateError('E_SHARED_JOB', [
      { code: 'E_SHARED_JOB', path: recordRel, detail: `the record's runner job is "${runner}", not "${runnerJob}"` },
    ]);
  if (sameJob(author, runner))
    throw new SealgateError('E_SHARED_JOB', [
      { code: 'E_SHARED_JOB', path: recordRel, detail: 'author_job and runner_job are the same job' },
    ]);
}

/** The digest, sealed by this job on this tree and unchanged since (drift reopens the seal), and the record's. */
async function checkSeal(
  repo: string,
  runnerJob: string,
  o: { readonly policy: Policy; readonly tree: RunnerTree; readonly now?: Date },
  params: SealParams | null,
  record: ProposalRecord,
  recordRel: string,
): Promise<{ digest: string; params: SealParams }> {
  const seal = await verifySeal(repo, { policy: o.policy, tree: o.tree });
  if (seal.status === 'open')
    throw new SealgateError('E_DIGEST_OPEN', [
      { code: 'E_DIGEST_OPEN', path: LAYOUT.status, detail: 'the digest is not sealed; seal, run, then score credit' },
    ]);
  if (seal.status === 'drift') {
    await reopenSeal(repo, runnerJob, {
      ...(o.now ? { now: o.now } : {}),
      reason: 'credit found fixture drift: the sealed bytes changed',
    });
    throw new SealgateError('E_DIGEST_OPEN', [
      {
        code: 'E_DIGEST_OPEN',
        path: LAYOUT.digest,
        detail: `the sealed inputs changed (${seal.changes.slice(0, 5).join('; ')}); the seal was reopened and its credit and logs deleted`,
      },
    ]);
  }
  const digest = seal.digest;
  if (params === null) throw inputInvalid(LAYOUT.sealParams, 'missing');
  if (params.tree !== o.tree.treeId)
    throw new SealgateError('E_DIGEST_OPEN', [
      {
        code: 'E_DIGEST_OPEN',
        path: `${LAYOUT.sealParams}#tree`,
        detail: `the seal is of tree ${params.tree}, not ${o.tree.treeId}`,
      },
    ]);
  if (!sameJob(params.runner_job, runnerJob))
    throw new SealgateError('E_SHARED_JOB', [
      {
        code: 'E_SHARED_JOB',
        path: LAYOUT.sealParams,
        detail: `the digest was sealed by "${params.runner_job}", not "${runnerJob}"`,
      },
    ]);
  if (record.digest_status !== 'sealed')
    throw new SealgateError('E_DIGEST_OPEN', [
      {
        code: 'E_DIGEST_OPEN',
        path: `${recordRel}#digest_status`,
        detail: `digest_status is "${record.digest_status}"`,
      },
    ]);
  if (record.digest !== undefined && !digestsEqual(record.digest, digest))
    throw inputInvalid(
      `${recordRel}#digest`,
      `the record's digest ${record.digest} is not the sealed digest ${digest}`,
    );
  return { digest, params };
}

/** The patch, changed.json and results.json: each from the record's patch, base and sealed digest, by this job. */
function readScored(
  repo: string,
  runnerJob: string,
  tree: RunnerTree,
  record: ProposalRecord,
  recordRel: string,
  digest: string,
): Pick<ScoringInputs, 'patchSha' | 'changedBytes' | 'changed' | 'results' | 'resultsBytes'> {
  const patchBytes = readBoundedFile(
    resolveInRepo(repo, record.patch_path, `${recordRel}#patch_path`),
    256 * 1024 * 1024,
    'patch',
  );
  const patchSha = sha256Hex(patchBytes);
  const { changedBytes, changed } = readChanged(repo);
  if (!digestsEqual(changed.patch_sha256, patchSha))
    throw inputInvalid(
      `${LAYOUT.changed}#patch_sha256`,
      "changed.json was extracted from other patch bytes than the record's patch",
    );
  if (record.patch_sha256 !== undefined && !digestsEqual(record.patch_sha256, patchSha))
    throw inputInvalid(`${recordRel}#patch_sha256`, 'the patch file changed after the proposal was recorded');
  if (changed.base !== tree.baseCommit)
    throw inputInvalid(
      `${LAYOUT.changed}#base`,
      `changed.json was extracted on base ${changed.base}, not the record's ${tree.baseCommit}`,
    );
  const resultsBytes = readBoundedFile(layoutPath(repo, 'results'), MAX_INPUT_BYTES * 8, LAYOUT.results);
  const parsedResults = parseResults(resultsBytes);
  if (!parsedResults.ok) throw new SealgateError('E_INPUT_INVALID', parsedResults.findings);
  const results = parsedResults.value;
  if (!digestsEqual(results.digest, digest))
    throw inputInvalid(
      `${LAYOUT.results}#digest`,
      `the results are from digest ${results.digest}, not the sealed ${digest}; run the tests again`,
    );
  if (!sameJob(results.runner_job, runnerJob))
    throw inputInvalid(
      `${LAYOUT.results}#runner_job`,
      `the results were written by "${results.runner_job}", not "${runnerJob}"`,
    );
  return { patchSha, changedBytes, changed, results, resultsBytes };
}

/**
 * Check that `runnerJob` may score this proposal on a sealed, unchanged digest, and read what it
 * scores from; a refusal is a SealgateError with its code.
 */
export async function readScoringInputs(o: {
  readonly repo: string;
  readonly runnerJob: string;
  readonly policy: Policy;
  readonly tree: RunnerTree;
  readonly now?: Date;
}): Promise<ScoringInputs> {
  const params0 = readSealParams(o.repo);
  const recordRel = params0?.record ?? LAYOUT.record;
  const record = readRecordFile(resolve(o.repo, recordRel), recordRel).record;
  checkJobs(record, recordRel, o.runnerJob);
  const { digest, params } = await checkSeal(o.repo, o.runnerJob, o, params0, record, recordRel);
  return { params, record, digest, ...readScored(o.repo, o.runnerJob, o.tree, record, recordRel, digest) };
}

import * as v from 'valibot';
import { realpathSync, rmSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { SealgateError, inputInvalid } from '../core/errors.js';
import { gitObjectId, glob, jobId, sha256 } from '../core/fields.js';
import { digestsEqual, isJobId, sameJob, sha256Hex } from '../core/ids.js';
import { fileExists, readBoundedFile, writeFileAtomic } from '../core/io.js';
import { toJsonText } from '../core/json.js';
import { LAYOUT, layoutPath } from '../core/layout.js';
import { formatInstant } from '../core/time.js';
import { decodeStrictUtf8 } from '../core/text.js';
import { appendJournal, readJournal } from '../store/journal.js';
import { ensureRunnerDir } from '../store/logs.js';
import { hashFiles } from './hash.js';
import {
  checkBound,
  checkClock,
  checkLocale,
  checkSeed,
  diffInputs,
  digestOfInputs,
  toInputsText,
  type BoundInputs,
  type VerdictInputs,
} from './inputs.js';
import type { Policy } from '../policy/read.js';
import { buildRecordTree, type RunnerTree } from '../tree/build.js';
import { readRecordFile, writeRecordEdit } from '../record/file.js';
import { checkAgainst, parseJsonBytes } from './doc.js';
import { collectFixtures } from './walk.js';

/**
 * `sealgate seal` (spec section 2): hash the verdict inputs, write inputs.sha256,
 * digest.txt and, last, digest.status; bind the record to the digest and runner job.
 * The fixtures are hashed in the runner's own tree (base + patch, src/tree/), never the
 * work tree, and the tree id and the policy digest are sealed with them.
 * `verifySeal` rebuilds the tree and recomputes; `reopenSeal` is the drift reaction.
 */

/** review/runner/seal.json: what was sealed, so a later check needs no arguments. */
export const SealParamsSchema = v.strictObject({
  version: v.literal(2),
  runner_job: jobId,
  record: v.pipe(v.string(), v.minLength(1)),
  /** Empty for a project without fixtures: the digest still covers seed, clock and locale. */
  fixtures: v.array(glob),
  seed: v.pipe(
    v.string(),
    v.check((s) => checkSeed(s) === undefined, 'not a sealable seed'),
  ),
  clock: v.pipe(
    v.string(),
    v.check((s) => checkClock(s) === undefined, 'not a sealable clock mode'),
  ),
  locale: v.pipe(
    v.string(),
    v.check((s) => checkLocale(s) === undefined, 'not a sealable locale'),
  ),
  files: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** The record's base commit, and the tree id of base + patch the fixtures were hashed in. */
  base_commit: gitObjectId,
  tree: gitObjectId,
  /** SHA-256 of the policy bytes, or "default"; and where the policy was read. */
  policy: v.pipe(v.string(), v.regex(/^(?:[0-9a-f]{64}|default)$/, 'a SHA-256 or "default"')),
  policy_source: v.pipe(v.string(), v.minLength(1)),
  digest: sha256,
});

export type SealParams = v.InferOutput<typeof SealParamsSchema>;

export interface SealRequest extends VerdictInputs {
  readonly repo: string;
  readonly runnerJob: string;
  readonly fixtures: readonly string[];
  /** The record, absolute or relative to the repository (default review/proposal.json). */
  readonly record?: string;
  /** The runner's tree, built from the record's base commit and patch. */
  readonly tree: RunnerTree;
  readonly policy: Policy;
  readonly now: Date;
}

export interface SealOutcome {
  readonly digest: string;
  readonly files: number;
  /** False when an identical seal by the same job was already in place (nothing written). */
  readonly written: boolean;
  /** The job whose earlier seal this one replaced (its credit and logs were deleted), if any. */
  readonly replaced: string | null;
}

export interface Recomputed {
  readonly text: string;
  readonly digest: string;
  readonly files: number;
}

/**
 * Hash the fixtures under `root` (the runner's tree) and build inputs.sha256; refuses bad
 * input unless allowEmpty (then empty globs add no lines).
 */
export async function computeInputs(
  root: string,
  fixtures: readonly string[],
  inputs: VerdictInputs,
  bound: BoundInputs,
  allowEmpty = false,
  record?: string,
): Promise<Recomputed> {
  for (const [name, problem] of [
    ['seed', checkSeed(inputs.seed)],
    ['clock', checkClock(inputs.clock)],
    ['locale', checkLocale(inputs.locale)],
    ['tree', checkBound(bound)],
  ] as const) {
    if (problem) throw inputInvalid(name, problem);
  }
  const set = collectFixtures(root, fixtures, { allowEmpty });
  if (record !== undefined && set.files.includes(record)) {
    throw inputInvalid(
      record,
      'the proposal record matches a fixture glob, but the seal writes the record; narrow the globs',
    );
  }
  const hashes = await hashFiles(root, set.files);
  const text = toInputsText(
    set.files.map((path, i) => ({ path, sha256: hashes[i] as string })),
    inputs,
    bound,
  );
  return { text, digest: digestOfInputs(text), files: set.files.length };
}

/** A record path as stored in seal.json: POSIX, relative to the repository, inside it. */
function recordRelPath(repo: string, record: string | undefined): string {
  if (record === undefined) return LAYOUT.record;
  const top = realpathSync(repo);
  const full = resolve(top, record);
  let real: string;
  try {
    real = realpathSync(full);
  } catch {
    throw inputInvalid(record, 'record not found');
  }
  const rel = relative(top, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw inputInvalid(record, 'the record must be inside the repository');
  return rel.split(sep).join('/');
}

function readLine(path: string, label: string): string | null {
  if (!fileExists(path)) return null;
  const d = decodeStrictUtf8(readBoundedFile(path, 4096, label));
  if ('problem' in d) throw inputInvalid(label, d.detail);
  if (!/^[^\n]*\n$/.test(d.text)) throw inputInvalid(label, 'must be exactly one line ending in a newline');
  return d.text.slice(0, -1);
}

/** The sealed status as the files say it: true only for exactly `sealed`. */
export function readSealStatus(repo: string): 'sealed' | 'open' {
  return readLine(layoutPath(repo, 'status'), LAYOUT.status) === 'sealed' ? 'sealed' : 'open';
}

export function readSealParams(repo: string): SealParams | null {
  const path = layoutPath(repo, 'sealParams');
  if (!fileExists(path)) return null;
  return checkAgainst(
    SealParamsSchema,
    parseJsonBytes(readBoundedFile(path, 1024 * 1024, LAYOUT.sealParams), LAYOUT.sealParams),
    LAYOUT.sealParams,
  );
}

function readInputsText(repo: string): string | null {
  const path = layoutPath(repo, 'inputs');
  if (!fileExists(path)) return null;
  const d = decodeStrictUtf8(readBoundedFile(path, 256 * 1024 * 1024, LAYOUT.inputs));
  if ('problem' in d) throw inputInvalid(LAYOUT.inputs, d.detail);
  return d.text;
}

export async function sealFixtures(req: SealRequest): Promise<SealOutcome> {
  const { repo, runnerJob } = req;
  if (!isJobId(runnerJob)) throw inputInvalid('runner job', `"${runnerJob}" is not a job id`);
  const recordRel = recordRelPath(repo, req.record);
  const recordFile = readRecordFile(resolve(repo, recordRel), recordRel);
  const rec = recordFile.record;
  const author = rec.author_job ?? '';
  if (author === '')
    throw new SealgateError('E_JOB_MISSING', [
      {
        code: 'E_JOB_MISSING',
        path: `${recordRel}#author_job`,
        detail: 'the record names no author job; record both ids before sealing',
      },
    ]);
  if (sameJob(author, runnerJob)) {
    throw new SealgateError('E_SHARED_JOB', [
      {
        code: 'E_SHARED_JOB',
        path: `${recordRel}#author_job`,
        detail: `runner job "${runnerJob}" is the author job; the runner must be a different job`,
      },
    ]);
  }
  const named = rec.runner_job ?? '';
  if (named !== '' && !sameJob(named, runnerJob)) {
    throw inputInvalid(
      `${recordRel}#runner_job`,
      `the record names runner job "${named}" but this seal runs as "${runnerJob}"; seal under the record's runner job or record the new one first`,
    );
  }

  if (rec.base_commit !== req.tree.baseCommit)
    throw inputInvalid(
      `${recordRel}#base_commit`,
      `the runner's tree was built from ${req.tree.baseCommit}, not the record's base ${rec.base_commit ?? '(none)'}`,
    );
  if (rec.patch_sha256 === undefined || rec.patch_sha256 !== req.tree.patchSha256)
    throw inputInvalid(`${recordRel}#patch_sha256`, "the runner's tree was not built from the record's patch bytes");
  // Before anything is read from it: review/runner must be sealgate's own, or absent.
  ensureRunnerDir(repo, false);
  const bound = { tree: req.tree.treeId, policy: req.policy.digest };
  const current = await computeInputs(req.tree.root, req.fixtures, req, bound, false, recordRel);
  const journal = readJournal(repo);
  const priorOwn = journal.find(
    (e) => e.type === 'seal' && sameJob(e.runner_job, runnerJob) && e.digest !== current.digest,
  );
  const params = readSealParams(repo);
  const conflict =
    priorOwn?.digest ??
    (params && sameJob(params.runner_job, runnerJob) && params.digest !== current.digest ? params.digest : undefined);
  if (conflict !== undefined) {
    throw new SealgateError('E_DIGEST_OPEN', [
      {
        code: 'E_DIGEST_OPEN',
        path: LAYOUT.digest,
        detail: `runner job "${runnerJob}" already sealed digest ${conflict}; the fixtures, seed, clock or locale changed since (now ${current.digest}): allocate a new runner job`,
      },
    ]);
  }

  const nextParams: SealParams = {
    version: 2,
    runner_job: runnerJob,
    record: recordRel,
    fixtures: [...req.fixtures],
    seed: req.seed,
    clock: req.clock,
    locale: req.locale,
    files: current.files,
    base_commit: req.tree.baseCommit,
    tree: req.tree.treeId,
    policy: req.policy.digest,
    policy_source: req.policy.source,
    digest: current.digest,
  };
  const paramsText = toJsonText(nextParams);
  const status = readSealStatus(repo);
  const digestTxt = readLine(layoutPath(repo, 'digest'), LAYOUT.digest);
  const sameSeal =
    params !== null &&
    sameJob(params.runner_job, runnerJob) &&
    params.digest === current.digest &&
    digestTxt === current.digest;
  let replaced: string | null = null;
  if (status === 'sealed' && !sameSeal) {
    // A live seal of other bytes or another job: its credit and logs go before anything is overwritten.
    replaced = params?.runner_job ?? runnerJob;
    await reopenSeal(repo, replaced, { now: req.now, reason: `superseded by a seal under runner job ${runnerJob}` });
  }

  const inputsPath = layoutPath(repo, 'inputs');
  const recordEdit = { digest_status: 'sealed', digest: current.digest, runner_job: named !== '' ? named : runnerJob };
  const alreadyDone =
    status === 'sealed' &&
    sameSeal &&
    readInputsText(repo) === current.text &&
    readBoundedFile(layoutPath(repo, 'sealParams'), 1024 * 1024, LAYOUT.sealParams).toString('utf8') === paramsText &&
    rec.digest_status === 'sealed' &&
    rec.digest === current.digest &&
    named !== '';
  if (alreadyDone) return { digest: current.digest, files: current.files, written: false, replaced: null };

  ensureRunnerDir(repo, true);
  writeFileAtomic(inputsPath, current.text);
  writeFileAtomic(layoutPath(repo, 'sealParams'), paramsText);
  writeFileAtomic(layoutPath(repo, 'digest'), `${current.digest}\n`);
  const live = liveSeal(readJournal(repo));
  if (!(live && sameJob(live.job, runnerJob) && live.digest === current.digest)) {
    appendJournal(repo, { type: 'seal', runner_job: runnerJob, digest: current.digest, at: formatInstant(req.now) });
  }
  writeRecordEdit(recordFile, recordEdit);
  writeFileAtomic(layoutPath(repo, 'status'), 'sealed\n');
  return { digest: current.digest, files: current.files, written: true, replaced };
}

function liveSeal(events: ReturnType<typeof readJournal>): { job: string; digest: string } | null {
  let live: { job: string; digest: string } | null = null;
  for (const e of events) {
    if (e.type === 'seal') live = { job: e.runner_job, digest: e.digest };
    else if (e.type === 'reopen') live = null;
  }
  return live;
}

export type SealCheck =
  | { readonly status: 'match'; readonly digest: string }
  | { readonly status: 'drift'; readonly digest: string; readonly expected: string; readonly changes: string[] }
  | { readonly status: 'open' };

export interface VerifyOptions {
  /** The policy the caller decides under; its digest must be the sealed `policy=` line. */
  readonly policy: Policy;
  /**
   * The runner's tree, when the caller built it (the runner job hands its tree to its steps).
   * Without it, the tree is rebuilt from the record's base commit and the patch bytes on disk.
   */
  readonly tree?: RunnerTree;
}

/**
 * Recompute the digest from the current bytes, using only what seal.json recorded: the tree
 * rebuilt from the base commit and the patch on disk (a changed patch, a patch that no
 * longer applies or another base is drift), its fixtures re-hashed, and the policy's digest.
 * New files matching the globs, removed files, changed bytes and fixtures that can no longer
 * be hashed (now a link) are all drift. Seal files that disagree with each other are refused
 * as E_INPUT_INVALID. Read-only.
 */
export async function verifySeal(repo: string, opts: VerifyOptions): Promise<SealCheck> {
  if (readSealStatus(repo) !== 'sealed') return { status: 'open' };
  const params = readSealParams(repo);
  if (params === null)
    throw inputInvalid(
      LAYOUT.sealParams,
      'digest.status says sealed but seal.json is missing, so the seal cannot be checked; reseal with `sealgate seal`',
    );
  const digestTxt = readLine(layoutPath(repo, 'digest'), LAYOUT.digest);
  const sealedText = readInputsText(repo);
  if (digestTxt === null) throw inputInvalid(LAYOUT.digest, 'digest.status says sealed but digest.txt is missing');
  if (sealedText === null) throw inputInvalid(LAYOUT.inputs, 'digest.status says sealed but inputs.sha256 is missing');
  if (!digestsEqual(digestTxt, params.digest) || !digestsEqual(sha256Hex(sealedText), digestTxt)) {
    throw inputInvalid(
      LAYOUT.digest,
      'digest.txt, inputs.sha256 and seal.json disagree (edited after sealing?); reseal under a new runner job',
    );
  }
  let tree: RunnerTree | undefined = opts.tree;
  let own: RunnerTree | null = null;
  try {
    if (tree === undefined) {
      try {
        own = buildRecordTree(repo, { record: params.record, checkHash: false });
        tree = own;
      } catch (err) {
        if (!(err instanceof SealgateError) || err.code !== 'E_INPUT_INVALID') throw err;
        const changes = err.findings.map((f) => `! tree: ${f.path}: ${f.detail}`);
        return { status: 'drift', digest: '', expected: digestTxt, changes };
      }
    }
    let current: Recomputed;
    try {
      current = await computeInputs(
        tree.root,
        params.fixtures,
        params,
        { tree: tree.treeId, policy: opts.policy.digest },
        true,
        params.record,
      );
    } catch (err) {
      if (!(err instanceof SealgateError) || err.code !== 'E_INPUT_INVALID') throw err;
      const changes = err.findings.map((f) => `! ${f.path}: ${f.detail}`);
      return { status: 'drift', digest: '', expected: digestTxt, changes };
    }
    if (digestsEqual(current.digest, digestTxt)) return { status: 'match', digest: digestTxt };
    return {
      status: 'drift',
      digest: current.digest,
      expected: digestTxt,
      changes: diffInputs(sealedText, current.text),
    };
  } finally {
    own?.dispose();
  }
}

/**
 * The spec's drift reaction: status back to open (digest.status first, then the record),
 * delete the credit, cases, results and every log, and journal a `reopen`.
 */
export async function reopenSeal(
  repo: string,
  runnerJob: string,
  options: { now?: Date; reason?: string } = {},
): Promise<void> {
  const params = readSealParams(repo);
  let digest: string | null = params?.digest ?? null;
  try {
    digest ??= readLine(layoutPath(repo, 'digest'), LAYOUT.digest);
  } catch {
    digest = null;
  }
  if (fileExists(layoutPath(repo, 'runnerDir'))) writeFileAtomic(layoutPath(repo, 'status'), 'open\n');
  const recordRel = params?.record ?? LAYOUT.record;
  const recordPath = resolve(repo, recordRel);
  if (fileExists(recordPath)) {
    const file = readRecordFile(recordPath, recordRel);
    if (file.record.digest_status !== 'open') writeRecordEdit(file, { digest_status: 'open' });
  }
  for (const key of ['credit', 'cases', 'results'] as const) rmSync(layoutPath(repo, key), { force: true });
  for (const key of ['logs', 'publishedLogs'] as const) rmSync(layoutPath(repo, key), { recursive: true, force: true });
  if (digest !== null && /^[0-9a-f]{6,128}$/.test(digest) && isJobId(runnerJob)) {
    appendJournal(repo, {
      type: 'reopen',
      runner_job: runnerJob,
      digest,
      at: formatInstant(options.now ?? new Date()),
      reason: options.reason ?? 'fixture drift: the sealed bytes changed',
    });
  }
}

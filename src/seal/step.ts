// The runner's seal and seal --verify steps: the verdict inputs chosen and sealed, or the seal checked again.
import { resolve } from 'node:path';
import { usageError, type Finding } from '../core/errors.js';
import { LAYOUT } from '../core/layout.js';
import type { Config } from '../config/schema.js';
import type { Policy } from '../policy/read.js';
import { buildRecordTree, type RunnerTree } from '../tree/build.js';
import { checkClock, checkLocale, checkSeed, type VerdictInputs } from './inputs.js';
import { readSealParams, reopenSeal, sealFixtures, verifySeal, type SealCheck, type SealOutcome } from './seal.js';

/** What the caller asked for; each missing value comes from the policy (the seed from $SEED). */
export interface SealChoices {
  readonly fixtures?: readonly string[] | undefined;
  readonly seed?: string | undefined;
  readonly clock?: string | undefined;
  readonly locale?: string | undefined;
}

export interface ChosenInputs extends VerdictInputs {
  readonly fixtures: readonly string[];
}

/**
 * The fixtures, seed, clock and locale to seal: the caller's, else the policy's (the seed: else
 * `envSeed`). Nothing is defaulted silently: a missing or unsealable value is a usage error. Pure.
 */
export function chooseSealInputs(choices: SealChoices, config: Config, envSeed: string | undefined): ChosenInputs {
  const fixtures = choices.fixtures ?? config.fixtures;
  if (fixtures === undefined)
    throw usageError(
      'no fixtures: pass --fixtures GLOB or set "fixtures" in sealgate.config.json (`[]` for a project without fixtures)',
    );
  if (choices.seed !== undefined && envSeed !== undefined && envSeed !== '' && envSeed !== choices.seed) {
    throw usageError('--seed and $SEED disagree; pass one seed');
  }
  const seed = choices.seed ?? (envSeed === '' ? undefined : envSeed);
  if (seed === undefined) throw usageError('no seed: pass --seed S or set $SEED');
  const clock = choices.clock ?? config.clock;
  if (clock === undefined) throw usageError('no clock mode: pass --clock MODE or set "clock" in sealgate.config.json');
  const locale = choices.locale ?? config.locale;
  if (locale === undefined) throw usageError('no locale: pass --locale L or set "locale" in sealgate.config.json');
  for (const [name, problem] of [
    ['seed', checkSeed(seed)],
    ['clock', checkClock(clock)],
    ['locale', checkLocale(locale)],
  ] as const) {
    if (problem) throw usageError(`--${name}: ${problem}`);
  }
  return { fixtures, seed, clock, locale };
}

export interface SealStepRequest extends SealChoices {
  readonly repo: string;
  readonly runnerJob: string;
  readonly policy: Policy;
  /** The runner's tree; without it, built from the record's recorded patch bytes and disposed after. */
  readonly tree?: RunnerTree;
  /** The record, relative to the repository (default review/proposal.json). */
  readonly record?: string;
  /** The runner's environment: its $SEED stands in for a missing seed. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: Date;
}

export interface SealStepOutcome extends SealOutcome {
  /** The tree the fixtures were hashed in. */
  readonly treeId: string;
  readonly baseCommit: string;
}

/** `sealgate seal`: choose the inputs, then seal them in the runner's tree. */
export async function sealRunnerInputs(req: SealStepRequest): Promise<SealStepOutcome> {
  const inputs = chooseSealInputs(req, req.policy.config, req.env['SEED']);
  const own =
    req.tree === undefined
      ? buildRecordTree(req.repo, { ...(req.record === undefined ? {} : { record: req.record }), checkHash: true })
      : null;
  const tree = req.tree ?? (own as RunnerTree);
  try {
    const outcome = await sealFixtures({
      repo: req.repo,
      tree,
      policy: req.policy,
      runnerJob: req.runnerJob,
      ...inputs,
      ...(req.record === undefined ? {} : { record: resolve(req.repo, req.record) }),
      now: req.now,
    });
    return { ...outcome, treeId: tree.treeId, baseCommit: tree.baseCommit };
  } finally {
    own?.dispose();
  }
}

export interface SealRecheckRequest {
  readonly repo: string;
  readonly policy: Policy;
  /** The runner's tree; without it, rebuilt from the base commit and the patch on disk. */
  readonly tree?: RunnerTree;
  /** The job a drift reopen is journaled under (default: the job that sealed). */
  readonly runnerJob?: string;
  readonly now: () => Date;
}

/**
 * `sealgate seal --verify`: recompute the digest right before the tests. On drift the seal is
 * reopened (credit, cases, results and logs deleted, the status back to open) before returning.
 */
export async function recheckSeal(req: SealRecheckRequest): Promise<SealCheck> {
  const check = await verifySeal(req.repo, { policy: req.policy, ...(req.tree ? { tree: req.tree } : {}) });
  if (check.status === 'drift') {
    const sealedBy = readSealParams(req.repo)?.runner_job;
    await reopenSeal(req.repo, req.runnerJob ?? sealedBy ?? 'unknown', {
      now: req.now(),
      reason: `fixture drift: ${check.changes.length} inputs line(s) changed`,
    });
  }
  return check;
}

/** Why a check that is not a match refuses the tests (E_DIGEST_OPEN); none for a match. */
export function sealCheckFindings(check: SealCheck): Finding[] {
  if (check.status === 'match') return [];
  if (check.status === 'open') return [{ code: 'E_DIGEST_OPEN', path: LAYOUT.status, detail: 'not sealed' }];
  return [
    {
      code: 'E_DIGEST_OPEN',
      path: '',
      detail: `the fixtures drifted from sealed digest ${check.expected}${check.digest ? ` (now ${check.digest})` : ''}.`,
    },
  ];
}

// The runner job as one call: its tree and policy, the steps in the spec's order, then the full audit, all as data.
import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { writeRunnerAttestation } from '../attest/write.js';
import type { DecisionCode, RejectCode } from '../core/codes.js';
import { readDocument } from '../core/document.js';
import { SealgateError, usageError, type Finding } from '../core/errors.js';
import { LAYOUT, layoutPath } from '../core/layout.js';
import type { Instant } from '../core/time.js';
import { VERSION } from '../core/version.js';
import type { Progress } from '../credit/oracle/types.js';
import { defaultCacheDir } from '../credit/speedups/cache.js';
import { disposePrelude, startCreditPrelude, type CreditPrelude } from '../credit/speedups/prelude.js';
import { scoreCredit, type ScoreOutcome } from '../credit/step/credit-step.js';
import { readRepoRoot } from '../diff/git.js';
import { expectedBaseFinding } from '../gate/base.js';
import { readPolicyAt, type Policy } from '../policy/read.js';
import { RecordSchema } from '../record/schema.js';
import { flaggedSymbols } from '../report/model.js';
import { publishLogs } from '../runner/logs.js';
import { runSealedTests, type RunSummary } from '../runner/run.js';
import { bwrapOverride, bwrapProgram, prefetchSandboxProbe } from '../sandbox/host.js';
import { readSealParams, type SealCheck } from '../seal/seal.js';
import { recheckSeal, sealCheckFindings, sealRunnerInputs, type SealStepOutcome } from '../seal/step.js';
import type { Changed } from '../symbols/schema.js';
import { extractRecordSymbols, writeChangedFile } from '../symbols/step.js';
import { buildRecordTree, type RunnerTree } from '../tree/build.js';
import { auditReview, type Audit } from '../verify/audit.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The steps before the audit, in the spec's order; `attest` follows them when the job has a signing key. */
export const RUNNER_STEPS = ['seal', 'symbols', 'verify', 'run', 'credit', 'publish'] as const;
export type RunnerStep = (typeof RUNNER_STEPS)[number] | 'attest';

export interface RunnerJobOptions {
  readonly repo: string;
  /** The record's runner job. */
  readonly runnerJob: string;
  /** A policy file outside the repository, instead of the one at the record's base commit. */
  readonly policyFile?: string;
  /** The full commit id the record's base_commit must be (the pull request's base): another is E_INPUT_INVALID before anything is read at it. */
  readonly expectBase?: string;
  /** The seed to seal; without it, `env.SEED`. */
  readonly seed?: string;
  /** The runner's key: the evidence is signed after publish. Required when the policy trusts runner keys. */
  readonly signingKey: KeyObject | null;
  /** The clock of the closing audit. */
  readonly now: Instant;
  /** The steps' environment (without the signing key's variable: every child inherits from it). */
  readonly env: Env;
  /** The wall clock: journal entries and timings. */
  readonly clock: () => Date;
  /** Parallel credit runs (default: the number of cores). */
  readonly workers?: number;
  /** The credit step neither reads nor writes its mutant result cache. */
  readonly noCache?: boolean;
  /** Told of each step as it starts and ends, and of the credit oracle's progress. */
  readonly onEvent?: (event: RunnerJobEvent) => void;
}

/** Why the job stopped: a step's (or its tree's, its base's, the audit's) typed error, as data. */
export interface Refusal {
  readonly code: RejectCode;
  readonly findings: readonly Finding[];
  readonly message: string;
  /** Bad arguments (a missing seed): the step's own command would exit 2. */
  readonly usage: boolean;
}

/** What each step produced. */
export interface StepData {
  readonly seal: SealStepOutcome;
  readonly symbols: Changed;
  readonly verify: SealCheck;
  readonly run: RunSummary;
  readonly credit: ScoreOutcome;
  readonly publish: { readonly files: readonly { readonly name: string }[] };
  readonly attest: { readonly subjects: number; readonly keyId: string | null; readonly path: string };
}

export type StepOutcome = {
  readonly [S in RunnerStep]: {
    readonly step: S;
    /** By the job's clock, from the step's start to its end. */
    readonly ms: number;
    /** What the step produced; null when it refused before producing anything. */
    readonly data: StepData[S] | null;
    /** Why the step stopped the job; null when it did not (credit that misses a symbol is a result, not a refusal). */
    readonly refusal: Refusal | null;
  };
}[RunnerStep];

/** The runner's tree as the job built it. */
export interface TreeFacts {
  readonly treeId: string;
  readonly baseCommit: string;
  readonly patchPath: string;
  readonly patchSha256: string;
}

export type RunnerJobEvent =
  | { readonly kind: 'ready'; readonly tree: TreeFacts; readonly buildMs: number; readonly policy: Policy }
  | { readonly kind: 'step-start'; readonly step: RunnerStep; readonly at: number }
  | { readonly kind: 'step-end'; readonly outcome: StepOutcome }
  | { readonly kind: 'credit-progress'; readonly progress: Progress };

/** The full audit on the files the job wrote, and what its closing line names. */
export interface JobClosing {
  readonly audit: Audit;
  /** Changed symbols without credit. */
  readonly missing: readonly string[];
  /** Credited symbols whose revert survived or could not run (flaggedSymbols). */
  readonly flagged: readonly string[];
  /** From the first step's start to the audit's end. */
  readonly jobMs: number;
}

export interface RunnerJobResult {
  /** The refusal's code when the job stopped short, else the audit's. */
  readonly code: DecisionCode;
  /** Where the job stopped short and why; null when it reached the audit. */
  readonly stopped: { readonly at: 'base' | 'tree' | RunnerStep | 'audit'; readonly refusal: Refusal } | null;
  /** Every step that ran, in order, the refusing one last. */
  readonly steps: readonly StepOutcome[];
  readonly closing: JobClosing | null;
}

/** A step's error as a refusal; anything but a SealgateError is E_INTERNAL. */
function refusalOf(err: unknown): Refusal {
  if (err instanceof SealgateError)
    return { code: err.code, findings: err.findings, message: err.message, usage: err.usage };
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  return { code: 'E_INTERNAL', findings: [{ code: 'E_INTERNAL', path: '', detail }], message: detail, usage: false };
}

const stoppedShort = (
  at: NonNullable<RunnerJobResult['stopped']>['at'],
  refusal: Refusal,
  steps: readonly StepOutcome[] = [],
): RunnerJobResult => ({ code: refusal.code, stopped: { at, refusal }, steps, closing: null });

/**
 * `sealgate runner`: build the runner's tree from the record's base commit and patch, read the
 * policy at that base, then seal, symbols, verify, run, credit, publish and (with a key) attest,
 * and audit the files they wrote. A step that refuses stops the job with its code; missing
 * credit does not. The record that cannot be read, a usage error and anything unexpected
 * outside a step are thrown.
 */
export async function runRunnerJob(o: RunnerJobOptions): Promise<RunnerJobResult> {
  const record = readDocument(layoutPath(o.repo, 'record'), RecordSchema, 'json', LAYOUT.record);
  // The base decides the policy every step reads: a record naming another base stops here, before any of it is used.
  const mismatch =
    o.expectBase === undefined ? null : expectedBaseFinding(record.base_commit ?? null, o.expectBase, LAYOUT.record);
  if (mismatch !== null) return stoppedShort('base', refusalOf(new SealgateError(mismatch.code, [mismatch])));
  let policy: Policy;
  let tree: RunnerTree;
  let buildMs: number;
  try {
    policy = readPolicyAt(o.repo, record.base_commit ?? null, o.policyFile);
    if (o.signingKey === null && policy.config.trust !== undefined)
      throw usageError(
        'the policy trusts runner keys (trust.runnerKeys): give --signing-key FILE so the evidence is signed',
      );
    const t0 = performance.now();
    tree = buildRecordTree(o.repo);
    buildMs = Math.round(performance.now() - t0);
  } catch (err) {
    if (!(err instanceof SealgateError) || err.usage) throw err;
    return stoppedShort('tree', refusalOf(err));
  }
  const prelude: { current: CreditPrelude | null } = { current: null };
  try {
    const facts = { treeId: tree.treeId, baseCommit: tree.baseCommit, patchSha256: tree.patchSha256 };
    o.onEvent?.({ kind: 'ready', tree: { ...facts, patchPath: record.patch_path }, buildMs, policy });
    return await runSteps(o, tree, policy, prelude);
  } finally {
    // The credit prelude's copy of the tree (Python byte code) goes too, whether or not the credit step ran.
    await disposePrelude(prelude.current);
    tree.dispose();
  }
}

async function runSteps(
  o: RunnerJobOptions,
  tree: RunnerTree,
  policy: Policy,
  prelude: { current: CreditPrelude | null },
): Promise<RunnerJobResult> {
  const { repo, runnerJob, env, clock } = o;
  const config = policy.config;
  const bwrap = bwrapOverride(env);
  const steps: StepOutcome[] = [];
  const jobStart = clock().getTime();

  /** Run one step: a refusal is its typed error (or, with `refuses`, its data); `others` are E_INTERNAL unless rethrown. */
  async function step<S extends RunnerStep>(
    name: S,
    work: () => Promise<StepData[S]>,
    refuses: (data: StepData[S]) => Refusal | null = () => null,
    others: 'refuse' | 'throw' = 'refuse',
  ): Promise<Refusal | null> {
    const started = clock().getTime();
    o.onEvent?.({ kind: 'step-start', step: name, at: started });
    let data: StepData[S] | null = null;
    let refusal: Refusal | null;
    try {
      data = await work();
      refusal = refuses(data);
    } catch (err) {
      if (others === 'throw' && !(err instanceof SealgateError)) throw err;
      refusal = refusalOf(err);
    }
    const outcome = { step: name, ms: clock().getTime() - started, data, refusal } as StepOutcome;
    steps.push(outcome);
    o.onEvent?.({ kind: 'step-end', outcome });
    return refusal;
  }

  const plan: Record<(typeof RUNNER_STEPS)[number], () => Promise<Refusal | null>> = {
    // The seal creates review/runner (and refuses one it did not create).
    seal: () =>
      step('seal', () =>
        sealRunnerInputs({
          repo,
          runnerJob,
          policy,
          tree,
          ...(o.seed !== undefined ? { seed: o.seed } : {}),
          env,
          now: clock(),
        }),
      ),
    // Before any test runs, so a patch that touches the policy surface (E_POLICY_CHANGED) never runs.
    symbols: () =>
      step('symbols', async () => {
        const root = readRepoRoot(repo);
        const params = readSealParams(root);
        const changed = await extractRecordSymbols({
          repo: root,
          config,
          tree,
          sealedTree: params?.tree ?? null,
          record: params?.record,
        });
        writeChangedFile(resolve(root, LAYOUT.changed), changed);
        return changed;
      }),
    verify: () =>
      step(
        'verify',
        () => recheckSeal({ repo, policy, tree, now: clock }),
        (check) =>
          check.status === 'match' ? null : refusalOf(new SealgateError('E_DIGEST_OPEN', sealCheckFindings(check))),
      ),
    run: () => {
      // The credit step's mutants are drafted and checked while the sealed run goes on: they need the tree, the
      // seal and changed.json, no test result. So is the oracle's first round, made as the credit step will make it.
      prelude.current = startCreditPrelude(repo, tree, config, {
        env,
        cacheDir: o.noCache === true ? null : defaultCacheDir(env),
        workers: o.workers ?? availableParallelism(),
        ...(bwrap !== undefined ? { bwrap } : {}),
      });
      return step('run', async () => {
        const program = bwrapProgram(env);
        if (existsSync(program)) await prefetchSandboxProbe(program);
        return runSealedTests({
          repo,
          runnerJob,
          config,
          policy,
          tree,
          baseEnv: env,
          clock,
          bwrap: program,
          treeSingleUse: false,
        });
      });
    },
    credit: () =>
      step('credit', () =>
        scoreCredit({
          repo,
          runnerJob,
          config,
          policy,
          tree,
          env,
          ...(o.noCache === true ? { cacheDir: null } : {}),
          ...(o.workers !== undefined ? { workers: o.workers } : {}),
          progress: (progress) => o.onEvent?.({ kind: 'credit-progress', progress }),
          now: clock(),
          prelude: prelude.current,
          ...(bwrap !== undefined ? { bwrap } : {}),
        }),
      ),
    // The logs become readable after the seal only; missing credit is a result, so they are published then too.
    publish: () => step('publish', () => publishLogs(repo, runnerJob, clock, { policy, tree })),
  };
  for (const name of RUNNER_STEPS) {
    const refusal = await plan[name]();
    if (refusal !== null) return stoppedShort(name, refusal, steps);
  }

  try {
    const key = o.signingKey;
    if (key !== null) {
      const refusal = await step(
        'attest',
        () => {
          const signed = writeRunnerAttestation(repo, key, config, VERSION, {
            base_commit: tree.baseCommit,
            tree_id: tree.treeId,
            policy_digest: policy.digest,
            sandbox: config.sandbox,
          });
          const keyId = signed.envelope.signatures[0]?.keyid ?? null;
          return Promise.resolve({ subjects: signed.subjects, keyId, path: signed.path });
        },
        undefined,
        'throw',
      );
      if (refusal !== null) return stoppedShort('attest', refusal, steps);
    }
    const audit = await auditReview({ repo, policy, now: o.now, tree });
    const credit = audit.inputs.credit;
    return {
      code: audit.code,
      stopped: null,
      steps,
      closing: {
        audit,
        missing: credit?.missing ?? [],
        flagged: credit ? flaggedSymbols(credit) : [],
        jobMs: clock().getTime() - jobStart,
      },
    };
  } catch (err) {
    if (!(err instanceof SealgateError)) throw err;
    return stoppedShort('audit', refusalOf(err), steps);
  }
}

import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Config } from '../../config/schema.js';
import type { Policy } from '../../policy/read.js';
import type { RunnerTree } from '../../tree/build.js';
import { listTreeFiles } from '../../tree/list.js';
import { SealgateError, inputInvalid } from '../../core/errors.js';
import { digestsEqual, sameJob, sha256Hex } from '../../core/ids.js';
import { readBoundedFile, writeFileAtomic, MAX_INPUT_BYTES } from '../../core/io.js';
import { toJsonText } from '../../core/json.js';
import { LAYOUT, layoutPath } from '../../core/layout.js';
import { parseInstant, type Instant } from '../../core/time.js';
import { resolveInRepo } from '../../core/io.js';
import { readRecordFile } from '../../record/file.js';
import { readSealParams, reopenSeal, verifySeal } from '../../seal/seal.js';
import { parseResults, type Results } from '../../runner/results.js';
import type { PrecompileResult } from '../lang/python/pycache.js';
import { checkRunnerTypeChecks } from '../lang/typescript/runner-checks.js';
import { runOracle } from '../oracle/oracle.js';
import type { OracleResult, Progress } from '../oracle/types.js';
import { CaseFileSchema, CreditSchema } from '../schema.js';
import { toScored, type Scored } from '../score/score.js';
import {
  cheapCommand,
  detectRunner,
  installedOptions,
  narrowCommand,
  type JudgingEnv,
} from '../../test-runners/index.js';
import { classifyCases } from '../tests/match.js';
import { readTestSources } from '../lang/tests.js';
import { checkSchema } from '../../core/document.js';
import { readChanged, readsTreeFile, readsDepFile, draftArgs } from '../plan/inputs.js';
import { narrowFor, narrowByNameFor, testsOfTargetsFor } from '../plan/narrowing.js';
import { noiseKeyFor } from '../plan/noise.js';
import { draftSymbols } from '../plan/symbols.js';
import { creditRunEnv, openCreditBox, fastEnvFor, creditCacheSalt } from '../runs/setup.js';
import { defaultCacheDir } from '../speedups/cache.js';
import { disposePrelude, type CreditPrelude } from '../speedups/prelude.js';

export interface ScoreOptions {
  readonly repo: string;
  readonly runnerJob: string;
  readonly config: Config;
  readonly policy: Policy;
  /** The runner's pristine tree: the classifier and the mutants read it; every run is in a copy. */
  readonly tree: RunnerTree;
  /** The caller's environment (the pinned one is derived from it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Cache folder; null disables the cache. Default: $XDG_CACHE_HOME/sealgate/credit. */
  readonly cacheDir?: string | null;
  readonly workers?: number;
  readonly progress?: (p: Progress) => void;
  /** Write cases.json and credit.json (default true). */
  readonly write?: boolean;
  /** Clock for the journal entry of a drift reopen. */
  readonly now?: Date;
  /** The bubblewrap program (default: bwrap in the system paths). */
  readonly bwrap?: string;
  /** Mutants drafted and checked ahead (startCreditPrelude); used only when drafted from the very inputs this scoring reads. */
  readonly prelude?: CreditPrelude | null;
}

export interface ScoreOutcome extends Scored {
  readonly stats: {
    readonly mutantsRun: number;
    readonly mutantsCached: number;
    readonly mutantsSettled: number;
    readonly mutantsAhead: number;
    readonly symbols: number;
    readonly kills: number;
    readonly wallMs: number;
    readonly fastEnv: 'kept' | 'dropped' | null;
    readonly bytecode?: PrecompileResult;
    readonly fastEnvDetail?: { readonly vars: readonly string[]; readonly skips: string };
    readonly typeCheckStalled: string | null;
    readonly ahead: 'used' | 'ended' | null;
  };
}

function durationMs(r: Results): number {
  const s = parseInstant(r.started_at) as Instant;
  const e = parseInstant(r.ended_at) as Instant;
  return Math.max(0, Number((e.ns - s.ns) / 1_000_000n));
}

/** Why the baseline run cannot vouch for any pass, or null. */
export function checkBaseline(r: Results): string | null {
  if (r.timed_out) return 'the sealed baseline run timed out, so none of its passes count';
  if (r.signal !== null) return `the sealed baseline run was killed by ${r.signal}, so none of its passes count`;
  const bad = r.junit.filter((j) => j.status !== 'ok');
  if (bad.length > 0)
    return `the sealed baseline run's JUnit file(s) ${bad.map((j) => `${j.path} (${j.status})`).join(', ')} are unusable, so none of its passes count`;
  return null;
}

/**
 * `sealgate credit --runner-job J`: check that J may score this proposal on a sealed, unchanged
 * digest, run the oracle, and write cases.json and credit.json.
 */
export async function scoreCredit(opts: ScoreOptions): Promise<ScoreOutcome> {
  const t0 = performance.now();
  const { repo, runnerJob } = opts;
  const params = readSealParams(repo);
  const recordRel = params?.record ?? LAYOUT.record;
  const recordFile = readRecordFile(resolve(repo, recordRel), recordRel);
  const record = recordFile.record;
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

  const seal = await verifySeal(repo, { policy: opts.policy, tree: opts.tree });
  if (seal.status === 'open')
    throw new SealgateError('E_DIGEST_OPEN', [
      { code: 'E_DIGEST_OPEN', path: LAYOUT.status, detail: 'the digest is not sealed; seal, run, then score credit' },
    ]);
  if (seal.status === 'drift') {
    await reopenSeal(repo, runnerJob, {
      ...(opts.now ? { now: opts.now } : {}),
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
  if (params.tree !== opts.tree.treeId)
    throw new SealgateError('E_DIGEST_OPEN', [
      {
        code: 'E_DIGEST_OPEN',
        path: `${LAYOUT.sealParams}#tree`,
        detail: `the seal is of tree ${params.tree}, not ${opts.tree.treeId}`,
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
  if (changed.base !== opts.tree.baseCommit)
    throw inputInvalid(
      `${LAYOUT.changed}#base`,
      `changed.json was extracted on base ${changed.base}, not the record's ${opts.tree.baseCommit}`,
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
  const junit = opts.config.test.junit;
  if (junit.length === 0)
    throw inputInvalid(
      'sealgate.config#test.junit',
      'credit needs the JUnit report path(s) of the test command to tell which tests a mutant fails',
    );

  const { env, plan } = creditRunEnv(opts.env, params, digest, opts.config);
  const cacheDir = opts.cacheDir === undefined ? defaultCacheDir(opts.env) : opts.cacheDir;
  // Every control, trace, probe and mutant run goes through this box; none starts without it.
  const sandbox = openCreditBox({
    repo,
    config: opts.config,
    env: opts.env,
    cacheDir,
    clock: plan,
    ...(opts.bwrap !== undefined ? { bwrap: opts.bwrap } : {}),
  });

  // The classifier reads the pristine tree: no test has run in it.
  const root = opts.tree.root;
  // A test file that reads a changed production file's text earns nothing (readsProductionSource).
  const productionFiles = changed.changed.flatMap((sym) =>
    changed.locations[sym]?.path !== undefined ? [changed.locations[sym].path] : [],
  );
  const treeFiles = listTreeFiles(root);
  const sources = await readTestSources(
    root,
    opts.config,
    opts.config.credit.assertionFunctions,
    treeFiles,
    productionFiles,
  );
  const { caseSources, verdicts } = classifyCases(results.cases, sources);
  const namedCases = new Map(results.cases.map((c) => [c.id, { suite: c.suite, name: c.name }]));
  const baselineProblem = checkBaseline(results);
  // A case no test file of the tree defines (a name the reporter made up) earns nothing.
  const undefinedTests = results.cases.filter((c) => (caseSources.get(c.id)?.files.length ?? 0) === 0).map((c) => c.id);
  const undefinedSet = new Set(undefinedTests);
  const eligible = new Set(
    baselineProblem === null
      ? results.cases.filter((c) => c.status === 'passed' && !undefinedSet.has(c.id)).map((c) => c.id)
      : [],
  );
  const typeCheck = checkRunnerTypeChecks(results.command, readsTreeFile(root), readsDepFile(repo));
  // The validity checks of the mutants (seconds of TypeScript where the runner type-checks) go on
  // while the oracle's first runs do; under `sealgate runner` they started during the sealed run
  // (startCreditPrelude), and are used when they were drafted from exactly these inputs.
  const noiseKey = noiseKeyFor(cacheDir, changed, params.seed);
  const args = draftArgs(
    root,
    changedBytes,
    opts.config.credit.mutantBudget,
    params.seed,
    opts.tree.baseCommit,
    repo,
    typeCheck,
    results.command,
    noiseKey,
  );
  const { drafts, judged, unsupported, typeCheckStalled } = await (opts.prelude?.args === args
    ? opts.prelude.drafted
    : draftSymbols(
        root,
        changed,
        opts.config.credit.mutantBudget,
        params.seed,
        opts.tree.baseCommit,
        repo,
        typeCheck,
        noiseKey,
      ));

  let oracle: OracleResult | null = null;
  let fast: JudgingEnv | null = null;
  const fromPrelude = opts.prelude?.args === args ? opts.prelude : null;
  // A prelude drafted from other inputs: its runs stop now, not after the oracle's.
  if (fromPrelude === null) await disposePrelude(opts.prelude);
  try {
    if (drafts.length > 0 && eligible.size > 0) {
      const command = cheapCommand(results.command, installedOptions(repo));
      fast = fastEnvFor(command, opts.config, treeFiles);
      oracle = await runOracle(drafts, {
        judged,
        workTree: root,
        depsFrom: repo,
        command,
        junit,
        env,
        fastEnv: fast?.env ?? null,
        sandbox,
        controlTimeoutMs: opts.config.test.timeoutSeconds * 1000,
        baselineMs: durationMs(results),
        timeoutFactor: opts.config.credit.timeoutFactor,
        require: opts.config.credit.require,
        seed: params.seed,
        workers: Math.max(1, opts.workers ?? availableParallelism()),
        eligible,
        ignore: new Set([...verdicts].filter(([, v]) => v?.kind === 'tautology').map(([id]) => id)),
        narrow: narrowFor(command, caseSources),
        narrowByName: narrowByNameFor(command, caseSources, namedCases),
        filesOf: (t) => caseSources.get(t)?.files ?? [],
        narrowTargets: (targets) => narrowCommand(command, targets),
        testsOfTargets: testsOfTargetsFor(caseSources, namedCases, detectRunner(command)),
        cacheDir,
        cacheSalt: creditCacheSalt(digest, patchSha, changed.base),
        ...(opts.progress ? { progress: opts.progress } : {}),
        // A prelude that failed to make its copy leaves the oracle to make its own, as without one.
        ...(fromPrelude !== null ? { prepared: fromPrelude.based.catch(() => null), ahead: fromPrelude.ahead } : {}),
      });
    }
  } finally {
    // The prelude's copy of the tree, used or not, goes (the oracle already removed one it used).
    await disposePrelude(opts.prelude);
  }
  const plans = await judged;
  const raw = toScored({
    require: opts.config.credit.require,
    changed,
    results,
    resultsSha256: sha256Hex(resultsBytes),
    undefinedTests,
    digest,
    runnerJob,
    proposalId: record.proposal_id,
    treeId: opts.tree.treeId,
    verdicts,
    plans,
    unsupported,
    baselineProblem: baselineProblem ?? (eligible.size === 0 ? 'no test passed on the sealed baseline run' : null),
    oracle,
  });
  // The isolation the runs had is part of the evidence (verify rejects "none" unless the policy allows it).
  const scored = {
    ...raw,
    credit: { ...raw.credit, sandbox: sandbox.isolation },
    cases: { ...raw.cases, sandbox: sandbox.isolation },
  };
  // What we write must pass the schemas the gate and `--cases` read.
  for (const [schema, value, label] of [
    [CreditSchema, scored.credit, LAYOUT.credit],
    [CaseFileSchema, scored.cases, LAYOUT.cases],
  ] as const) {
    const r = checkSchema(schema, value, label);
    if (!r.ok)
      throw new Error(
        `internal: the ${label} sealgate built fails its own schema: ${r.findings.map((f) => `${f.path}: ${f.detail}`).join('; ')}`,
      );
  }
  if (opts.write ?? true) {
    writeFileAtomic(layoutPath(repo, 'cases'), toJsonText(scored.cases), 0o600);
    writeFileAtomic(layoutPath(repo, 'credit'), toJsonText(scored.credit), 0o644);
  }
  const kills = [...(oracle?.mutants.values() ?? [])]
    .flat()
    .filter((r) => r.mutant.kind !== 'null' && r.status === 'ok' && r.failed.length > 0).length;
  return {
    ...scored,
    stats: {
      mutantsRun: oracle?.mutantsRun ?? 0,
      mutantsCached: oracle?.mutantsCached ?? 0,
      mutantsSettled: oracle?.mutantsSettled ?? 0,
      mutantsAhead: oracle?.mutantsAhead ?? 0,
      symbols: plans.length,
      kills,
      wallMs: performance.now() - t0,
      fastEnv: oracle?.fastEnv ?? null,
      ...(oracle?.bytecode ? { bytecode: oracle.bytecode } : {}),
      ...(fast !== null && oracle?.fastEnv
        ? { fastEnvDetail: { vars: Object.keys(fast.env), skips: fast.skips } }
        : {}),
      typeCheckStalled: typeCheckStalled(),
      ahead: oracle?.ahead ?? null,
    },
  };
}

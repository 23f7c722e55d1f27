// The credit step: whether this runner job may score, then the tests judged, the mutants drafted, the oracle run, the credit written.
import { availableParallelism } from 'node:os';
import type { Config } from '../../config/schema.js';
import type { Policy } from '../../policy/read.js';
import type { RunnerTree } from '../../tree/build.js';
import { listTreeFiles } from '../../tree/list.js';
import { inputInvalid } from '../../core/errors.js';
import { sha256Hex } from '../../core/ids.js';
import { writeFileAtomic } from '../../core/io.js';
import { toJsonText } from '../../core/json.js';
import { LAYOUT, layoutPath } from '../../core/layout.js';
import { parseInstant, type Instant } from '../../core/time.js';
import { type Results } from '../../runner/results.js';
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
  type NamedTest,
} from '../../test-runners/index.js';
import { classifyCases, type CaseSource } from '../tests/match.js';
import { readTestSources } from '../lang/tests.js';
import { checkSchema } from '../../core/document.js';
import { readsTreeFile, readsDepFile, draftArgs } from '../plan/inputs.js';
import { narrowFor, narrowByNameFor, testsOfTargetsFor } from '../plan/narrowing.js';
import { noiseKeyFor } from '../plan/noise.js';
import { draftSymbols, type Drafted } from '../plan/symbols.js';
import { creditRunEnv, openCreditBox, fastEnvFor, creditCacheSalt } from '../runs/setup.js';
import { defaultCacheDir } from '../speedups/cache.js';
import { disposePrelude, type CreditPrelude } from '../speedups/prelude.js';
import type { Box } from '../../sandbox/run.js';
import type { Changed } from '../../symbols/schema.js';
import type { Verdict } from '../tests/classify.js';
import { readScoringInputs, type ScoringInputs } from './checks.js';

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

/** How the step's runs are made: their pinned environment, the cache, and the box every run goes through. */
interface StepRuns {
  readonly env: Record<string, string>;
  readonly cacheDir: string | null;
  readonly sandbox: Box;
}

function stepRuns(opts: ScoreOptions, inputs: ScoringInputs): StepRuns {
  const { env, plan } = creditRunEnv(opts.env, inputs.params, inputs.digest, opts.config);
  const cacheDir = opts.cacheDir === undefined ? defaultCacheDir(opts.env) : opts.cacheDir;
  // Every control, trace, probe and mutant run goes through this box; none starts without it.
  const sandbox = openCreditBox({
    repo: opts.repo,
    config: opts.config,
    env: opts.env,
    cacheDir,
    clock: plan,
    ...(opts.bwrap !== undefined ? { bwrap: opts.bwrap } : {}),
  });
  return { env, cacheDir, sandbox };
}

/** The sealed run's cases as the step judges them: their sources and static verdicts, which may earn credit, and why none may. */
interface JudgedCases {
  readonly treeFiles: readonly string[];
  readonly caseSources: ReadonlyMap<string, CaseSource>;
  readonly verdicts: ReadonlyMap<string, Verdict | null>;
  readonly namedCases: ReadonlyMap<string, NamedTest>;
  readonly baselineProblem: string | null;
  /** Cases no test file of the tree defines (a name the reporter made up): they earn nothing. */
  readonly undefinedTests: readonly string[];
  /** Tests that passed on the sealed run and are defined: only they may earn credit. */
  readonly eligible: ReadonlySet<string>;
}

/** Every test of the pristine tree (no test has run in it) read and classified, and matched to the sealed run's cases. */
async function judgeCases(opts: ScoreOptions, results: Results, changed: Changed): Promise<JudgedCases> {
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
  const undefinedTests = results.cases.filter((c) => (caseSources.get(c.id)?.files.length ?? 0) === 0).map((c) => c.id);
  const undefinedSet = new Set(undefinedTests);
  const eligible = new Set(
    baselineProblem === null
      ? results.cases.filter((c) => c.status === 'passed' && !undefinedSet.has(c.id)).map((c) => c.id)
      : [],
  );
  return { treeFiles, caseSources, verdicts, namedCases, baselineProblem, undefinedTests, eligible };
}

/**
 * The symbols' plans: drafted now, or taken from the prelude when it drafted them from exactly
 * these inputs (under `sealgate runner` it started during the sealed run). Their validity
 * checks (seconds of TypeScript where the runner type-checks) go on while the oracle's first
 * runs do.
 */
async function draftPlans(
  opts: ScoreOptions,
  inputs: ScoringInputs,
  cacheDir: string | null,
): Promise<{ drafted: Drafted; fromPrelude: CreditPrelude | null }> {
  const root = opts.tree.root;
  const { params, changed, results } = inputs;
  const typeCheck = checkRunnerTypeChecks(results.command, readsTreeFile(root), readsDepFile(opts.repo));
  const noiseKey = noiseKeyFor(cacheDir, changed, params.seed);
  const args = draftArgs(
    root,
    inputs.changedBytes,
    opts.config.credit.mutantBudget,
    params.seed,
    opts.tree.baseCommit,
    opts.repo,
    typeCheck,
    results.command,
    noiseKey,
  );
  const fromPrelude = opts.prelude?.args === args ? opts.prelude : null;
  const drafted = await (fromPrelude !== null
    ? fromPrelude.drafted
    : draftSymbols(
        root,
        changed,
        opts.config.credit.mutantBudget,
        params.seed,
        opts.tree.baseCommit,
        opts.repo,
        typeCheck,
        noiseKey,
      ));
  return { drafted, fromPrelude };
}

/** The oracle on the drafts, when a symbol has mutants and a test may earn; the prelude's copy goes either way. */
async function judgeSymbols(
  opts: ScoreOptions,
  inputs: ScoringInputs,
  runs: StepRuns,
  cases: JudgedCases,
  drafted: Drafted,
  fromPrelude: CreditPrelude | null,
): Promise<{ oracle: OracleResult | null; fast: JudgingEnv | null }> {
  let oracle: OracleResult | null = null;
  let fast: JudgingEnv | null = null;
  // A prelude drafted from other inputs: its runs stop now, not after the oracle's.
  if (fromPrelude === null) await disposePrelude(opts.prelude);
  try {
    if (drafted.drafts.length > 0 && cases.eligible.size > 0) {
      const { caseSources, namedCases } = cases;
      const command = cheapCommand(inputs.results.command, installedOptions(opts.repo));
      fast = fastEnvFor(command, opts.config, cases.treeFiles);
      oracle = await runOracle(drafted.drafts, {
        judged: drafted.judged,
        workTree: opts.tree.root,
        depsFrom: opts.repo,
        command,
        junit: opts.config.test.junit,
        env: runs.env,
        fastEnv: fast?.env ?? null,
        sandbox: runs.sandbox,
        controlTimeoutMs: opts.config.test.timeoutSeconds * 1000,
        baselineMs: durationMs(inputs.results),
        timeoutFactor: opts.config.credit.timeoutFactor,
        require: opts.config.credit.require,
        seed: inputs.params.seed,
        workers: Math.max(1, opts.workers ?? availableParallelism()),
        eligible: cases.eligible,
        ignore: new Set([...cases.verdicts].filter(([, v]) => v?.kind === 'tautology').map(([id]) => id)),
        narrow: narrowFor(command, caseSources),
        narrowByName: narrowByNameFor(command, caseSources, namedCases),
        filesOf: (t) => caseSources.get(t)?.files ?? [],
        narrowTargets: (targets) => narrowCommand(command, targets),
        testsOfTargets: testsOfTargetsFor(caseSources, namedCases, detectRunner(command)),
        cacheDir: runs.cacheDir,
        cacheSalt: creditCacheSalt(inputs.digest, inputs.patchSha, inputs.changed.base),
        ...(opts.progress ? { progress: opts.progress } : {}),
        // A prelude that failed to make its copy leaves the oracle to make its own, as without one.
        ...(fromPrelude !== null ? { prepared: fromPrelude.baseCopy.catch(() => null), ahead: fromPrelude.ahead } : {}),
      });
    }
  } finally {
    // The prelude's copy of the tree, used or not, goes (the oracle already removed one it used).
    await disposePrelude(opts.prelude);
  }
  return { oracle, fast };
}

/** What we write must pass the schemas the gate and `--cases` read. */
function checkOwnSchemas(scored: Scored): void {
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
}

function statsOf(
  oracle: OracleResult | null,
  fast: JudgingEnv | null,
  symbols: number,
  wallMs: number,
  typeCheckStalled: string | null,
): ScoreOutcome['stats'] {
  const kills = [...(oracle?.mutants.values() ?? [])]
    .flat()
    .filter((r) => r.mutant.kind !== 'null' && r.status === 'ok' && r.failed.length > 0).length;
  return {
    mutantsRun: oracle?.mutantsRun ?? 0,
    mutantsCached: oracle?.mutantsCached ?? 0,
    mutantsSettled: oracle?.mutantsSettled ?? 0,
    mutantsAhead: oracle?.mutantsAhead ?? 0,
    symbols,
    kills,
    wallMs,
    fastEnv: oracle?.fastEnv ?? null,
    ...(oracle?.bytecode ? { bytecode: oracle.bytecode } : {}),
    ...(fast !== null && oracle?.fastEnv ? { fastEnvDetail: { vars: Object.keys(fast.env), skips: fast.skips } } : {}),
    typeCheckStalled,
    ahead: oracle?.ahead ?? null,
  };
}

/**
 * `sealgate credit --runner-job J`: check that J may score this proposal on a sealed, unchanged
 * digest; judge the sealed run's tests statically; draft the changed symbols' mutants; run the
 * oracle; and write cases.json and credit.json.
 */
export async function scoreCredit(opts: ScoreOptions): Promise<ScoreOutcome> {
  const t0 = performance.now();
  const inputs = await readScoringInputs(opts);
  if (opts.config.test.junit.length === 0)
    throw inputInvalid(
      'sealgate.config#test.junit',
      'credit needs the JUnit report path(s) of the test command to tell which tests a mutant fails',
    );
  const runs = stepRuns(opts, inputs);
  const cases = await judgeCases(opts, inputs.results, inputs.changed);
  const { drafted, fromPrelude } = await draftPlans(opts, inputs, runs.cacheDir);
  const { oracle, fast } = await judgeSymbols(opts, inputs, runs, cases, drafted, fromPrelude);
  const plans = await drafted.judged;
  const raw = toScored({
    require: opts.config.credit.require,
    changed: inputs.changed,
    results: inputs.results,
    resultsSha256: sha256Hex(inputs.resultsBytes),
    undefinedTests: cases.undefinedTests,
    digest: inputs.digest,
    runnerJob: opts.runnerJob,
    proposalId: inputs.record.proposal_id,
    treeId: opts.tree.treeId,
    verdicts: cases.verdicts,
    plans,
    unsupported: drafted.unsupported,
    baselineProblem:
      cases.baselineProblem ?? (cases.eligible.size === 0 ? 'no test passed on the sealed baseline run' : null),
    oracle,
  });
  // The isolation the runs had is part of the evidence (verify rejects "none" unless the policy allows it).
  const scored = {
    ...raw,
    credit: { ...raw.credit, sandbox: runs.sandbox.isolation },
    cases: { ...raw.cases, sandbox: runs.sandbox.isolation },
  };
  checkOwnSchemas(scored);
  if (opts.write ?? true) {
    writeFileAtomic(layoutPath(opts.repo, 'cases'), toJsonText(scored.cases), 0o600);
    writeFileAtomic(layoutPath(opts.repo, 'credit'), toJsonText(scored.credit), 0o644);
  }
  return {
    ...scored,
    stats: statsOf(oracle, fast, plans.length, performance.now() - t0, drafted.typeCheckStalled()),
  };
}

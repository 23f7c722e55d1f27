import { availableParallelism, homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHmac } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Config } from '../../config/schema.js';
import type { Policy } from '../../policy/read.js';
import type { RunnerTree } from '../../tree/build.js';
import { listTreeFiles } from '../../tree/list.js';
import { parseDocument } from '../../core/document.js';
import { SealgateError, inputInvalid } from '../../core/errors.js';
import { digestsEqual, sameJob, sha256Hex } from '../../core/ids.js';
import { readBoundedFile, writeFileAtomic, MAX_INPUT_BYTES } from '../../core/io.js';
import { toJsonText } from '../../core/json.js';
import { LAYOUT, layoutPath } from '../../core/layout.js';
import { parseInstant, type Instant } from '../../core/time.js';
import { resolveInRepo } from '../../core/io.js';
import { readRecordFile } from '../../record/file.js';
import { readSealParams, reopenSeal, verifySeal, type SealParams } from '../../seal/seal.js';
import { findLibfaketime, pinnedEnv, planClock, type ClockPlan } from '../../runner/env.js';
import { findBwrap, installRoot, readSecrets } from '../../sandbox/host.js';
import { openBox, type Box } from '../../sandbox/run.js';
import { SANDBOX_WORK } from '../../sandbox/plan.js';
import { stampTree } from '../../core/times.js';
import { makeScratch, makeWorkspace } from '../runs/test-run.js';
import { parseResults, type Results } from '../../runner/results.js';
import { ChangedSchema, type Changed } from '../../symbols/schema.js';
import type { PrecompileResult } from '../lang/python/pycache.js';
import {
  applyEdits,
  camouflage,
  noiseFor,
  randomNoiseKey,
  revertMutant,
  selectMutants,
  type Edit,
  type Mutant,
  type Noise,
  type SymbolSpan,
} from '../mutants/mutant.js';
import { checkRunnerTypeChecks } from '../lang/typescript/runner-checks.js';
import { pickValidAsync } from '../mutants/valid.js';
import type { SymbolChange } from '../mutants/change.js';
import { byteCodeFor, checkSymbolChange, creditLanguage, lostNames, mutantsOf, topLevelNames } from '../lang/index.js';
import type { CreditLanguage, ValiditySession } from '../lang/language.js';
import { runGit } from '../../diff/git.js';
import { extractFile } from '../../symbols/jobs.js';
import { decodeSource, type FileSymbols } from '../../symbols/model.js';
import { preparedKey, type PreparedBase } from '../speedups/prepared.js';
import { runOracle } from '../oracle/oracle.js';
import { startAhead, type AheadOptions, type AheadRound } from '../speedups/ahead.js';
import type { OracleResult, Progress } from '../oracle/types.js';
import type { SymbolPlan } from '../mutants/plan.js';
import { CaseFileSchema, CreditSchema } from '../schema.js';
import { toScored, type Scored } from '../score/score.js';
import {
  cheapCommand,
  detectRunner,
  installedOptions,
  TEST_RUNNERS,
  judgingEnvFor,
  runsInOneProcess,
  narrowByName,
  narrowCommand,
  toNamePattern,
  type JudgingEnv,
  type NamedTest,
  type RunnerKind,
} from '../../test-runners/index.js';
import { classifyCases, type CaseSource } from '../tests/match.js';
import { readTestSources } from '../lang/tests.js';
import { checkSchema } from '../../core/document.js';

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

type Drafted = Awaited<ReturnType<typeof draftSymbols>>;

/**
 * The mutants of a runner job's changed symbols, drafted and checked (parse, compile, type
 * check) ahead, while the sealed run goes on: `sealgate runner` starts it once the symbols are
 * extracted, and the credit step uses it instead of drafting again when `args` (every input
 * of the drafting: the tree, changed.json's bytes, the budget, the seed, the base, whether the
 * runner type-checks and the command that decided it) is the one it computes itself. It reads
 * the pristine tree and git only; it runs nothing of the tree, and no test result reaches it.
 */
export interface CreditPrelude {
  readonly args: string;
  readonly drafted: Promise<Drafted>;
  /**
   * Where a changed symbol is Python: a copy of the tree with its byte code made (the oracle's
   * step 0, pycache.ts), which the oracle takes only when it would make the very same
   * (PreparedBase); null otherwise. Whoever ends up not using it disposes of it (disposePrelude).
   */
  readonly based: Promise<PreparedBase | null>;
  /**
   * The oracle's first round (the control, and the trace or the probes) started on the drafts
   * while the sealed run goes on (startAhead), when the caller said how the credit step's runs are made
   * (PreludeRuns); the oracle takes it only when made from the very inputs it would use.
   */
  readonly ahead: Promise<AheadRound | null>;
}

/** How the credit step will make its runs: what `sealgate credit` takes from its own options and environment. */
export interface PreludeRuns {
  /** The credit step's environment (the pinned one is derived from it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Its cache folder; null: no cache. */
  readonly cacheDir: string | null;
  /** Its bubblewrap program, when not the default. */
  readonly bwrap?: string;
  /** Its runs at once (`--workers`); the prelude makes no more than that beside the sealed run. */
  readonly workers: number;
}

/** Remove the prelude's copy of the tree, whether or not anything used it (dispose is idempotent). */
export async function disposePrelude(p: CreditPrelude | null | undefined): Promise<void> {
  if (!p) return;
  // Its runs first: they may be running in the copy.
  await (await p.ahead.catch(() => null))?.cancel();
  const b = await p.based.catch(() => null);
  b?.dispose();
}

function draftArgs(
  root: string,
  changedBytes: Buffer,
  budget: number,
  seed: string,
  base: string,
  repo: string,
  typeCheck: boolean,
  command: readonly string[],
  noiseKey: string,
): string {
  return JSON.stringify([
    root,
    sha256Hex(changedBytes),
    budget,
    seed,
    base,
    resolve(repo),
    typeCheck,
    command,
    sha256Hex(noiseKey),
  ]);
}

/** The noise secret of a process that keeps no cache folder: one for its prelude and its credit step alike. */
let processSecret: string | null = null;
const SECRET = /^[0-9a-f]{64}$/;

/** The noise secret kept in the cache folder (hidden from every test like the rest of it), made on first use. */
function cacheSecret(dir: string): string {
  const path = join(dir, 'noise.key');
  try {
    const t = readFileSync(path, 'utf8');
    if (SECRET.test(t)) return t;
  } catch {
    /* none yet */
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.noise.key.${process.pid}.tmp`);
  writeFileSync(tmp, randomNoiseKey(), { mode: 0o600 });
  try {
    // A first one made by another process at the same moment wins; a damaged or unreadable one is replaced.
    linkSync(tmp, path);
  } catch {
    let there: string | null = null;
    try {
      there = readFileSync(path, 'utf8');
    } catch {
      /* none: the link itself failed */
    }
    if (there === null || !SECRET.test(there)) renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
  const t = readFileSync(path, 'utf8');
  if (!SECRET.test(t)) throw new Error(`the noise key ${path} is not 64 hex digits`);
  return t;
}

/**
 * The key the null changes of one proposal are written with (noiseFor): HMAC-SHA-256 of a
 * secret no test sees (kept in the credit cache folder, so a rerun finds its cached runs; per
 * process without one) over the patch, the base and the seed. A test cannot know the words
 * ahead; the evidence names them afterwards, for that proposal only.
 */
export function noiseKeyFor(
  cacheDir: string | null,
  changed: Pick<Changed, 'patch_sha256' | 'base'>,
  seed: string,
): string {
  const secret = cacheDir === null ? (processSecret ??= randomNoiseKey()) : cacheSecret(cacheDir);
  return createHmac('sha256', secret)
    .update(JSON.stringify(['sealgate-noise-v1', changed.patch_sha256, changed.base, seed]))
    .digest('hex');
}

/** changed.json, strictly parsed, with the bytes it was parsed from (readDocument's checks). */
function readChanged(repo: string): { changedBytes: Buffer; changed: Changed } {
  const changedBytes = readBoundedFile(layoutPath(repo, 'changed'), MAX_INPUT_BYTES, LAYOUT.changed);
  const r = parseDocument(changedBytes, ChangedSchema, 'json', LAYOUT.changed);
  if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
  return { changedBytes, changed: r.value };
}

function readsTreeFile(root: string): (p: string) => string | null {
  return (p) => {
    try {
      return readFileSync(resolveInRepo(root, p, p), 'utf8');
    } catch {
      return null;
    }
  };
}

/** A file of the repository's installed dependencies (node_modules, which every run sees read-only), up to 1 MB, or null. */
function readsDepFile(repo: string): (p: string) => string | null {
  return (p) => {
    try {
      const path = join(repo, p);
      return statSync(path).size > 1024 * 1024 ? null : readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  };
}

/**
 * Start drafting the credit step's mutants ahead (see CreditPrelude), or null when the inputs
 * are not there yet or not readable: the credit step then drafts them itself, as it always can.
 */
export function startCreditPrelude(
  repo: string,
  tree: RunnerTree,
  config: Config,
  runs?: PreludeRuns,
): CreditPrelude | null {
  try {
    const params = readSealParams(repo);
    const command = config.test.command;
    if (params === null || command === undefined) return null;
    const { changedBytes, changed } = readChanged(repo);
    const root = tree.root;
    const typeCheck = checkRunnerTypeChecks(command, readsTreeFile(root), readsDepFile(repo));
    const noiseKey = noiseKeyFor(runs?.cacheDir ?? null, changed, params.seed);
    const args = draftArgs(
      root,
      changedBytes,
      config.credit.mutantBudget,
      params.seed,
      tree.baseCommit,
      repo,
      typeCheck,
      command,
      noiseKey,
    );
    // After the current task: the sealed run's own start goes first.
    const drafted = new Promise<void>((go) => setImmediate(go)).then(() =>
      draftSymbols(root, changed, config.credit.mutantBudget, params.seed, tree.baseCommit, repo, typeCheck, noiseKey),
    );
    // Nobody may be waiting (the run step refused, or the credit step drafted again): a failure
    // is the credit step's to report, never an unhandled rejection; the checked plans' either.
    drafted.then(
      (d) => d.judged.catch(() => undefined),
      () => undefined,
    );
    // Python: the copy every credit run is copied from, with its byte code (about 0.45 s on
    // r1chardj0n3s/parse), made now too. What the oracle would compute from its own command
    // and environment decides whether it is used (preparedKey); a guess that differs costs
    // only the copy.
    const based = drafted.then(async (d): Promise<PreparedBase | null> => {
      const byteCode = byteCodeFor(d.drafts.map((p) => p.path));
      if (byteCode === null) return null;
      const scratch = makeScratch();
      try {
        const ws = makeWorkspace(root, scratch.dir, repo);
        const cwd = config.sandbox === 'bwrap' ? SANDBOX_WORK : null;
        const noRewrite = byteCode.step.configured(ws.root, [
          ...cheapCommand(command),
          ...Object.values(config.test.env ?? {}),
        ]);
        const bytecode = await byteCode.step.precompile(ws.root, byteCode.files, { cwd, noRewrite });
        stampTree(ws.root);
        return {
          root: ws.root,
          dispose: scratch.dispose,
          made: preparedKey(root, repo, byteCode.files, cwd, noRewrite),
          bytecode,
        };
      } catch (err) {
        scratch.dispose();
        throw err;
      }
    });
    based.catch(() => undefined);
    // The oracle's first round needs no test result either: where the sealed run keeps to one
    // process (runsInOneProcess), it starts on the drafts and runs beside it, on the idle cores.
    const ahead =
      runs === undefined || config.test.junit.length === 0 || !runsInOneProcess(command)
        ? Promise.resolve(null)
        : drafted.then((d) =>
            d.drafts.length === 0
              ? null
              : startAhead(
                  d.drafts,
                  aheadOptions(repo, tree, config, params, changed, runs),
                  byteCodeFor(d.drafts.map((p) => p.path)) !== null ? based : null,
                ),
          );
    ahead.catch(() => undefined);
    return { args, drafted, based, ahead };
  } catch {
    return null;
  }
}

/** The credit runs' pinned environment: the sealed seed, clock, locale and digest, the policy's variables, no byte code written. */
function creditRunEnv(
  callerEnv: Readonly<Record<string, string | undefined>>,
  params: SealParams,
  digest: string,
  config: Config,
): { env: Record<string, string>; plan: ClockPlan } {
  const plan = planClock(params.clock, findLibfaketime());
  if ('problem' in plan) throw inputInvalid(LAYOUT.sealParams, plan.problem);
  return {
    plan,
    env: {
      ...pinnedEnv(
        callerEnv,
        { seed: params.seed, clock: params.clock, locale: params.locale, digest },
        plan,
        config.test.env,
      ),
      PYTHONDONTWRITEBYTECODE: '1',
    },
  };
}

/** The variables that skip work no test outcome depends on (judgingEnvFor), for the tree's files. */
function fastEnvFor(command: readonly string[], config: Config, treeFiles: readonly string[]): JudgingEnv | null {
  return judgingEnvFor(command, config.test.env, (rel) => treeFiles.includes(rel));
}

/** What binds a cached credit run to its proposal: the sealed digest, the patch, the base. */
function creditCacheSalt(digest: string, patchSha: string, base: string): string {
  return JSON.stringify([digest, patchSha, base]);
}

/** The first round's inputs as the credit step will compute them, from the sealed digest it will verify (digest.txt). */
function aheadOptions(
  repo: string,
  tree: RunnerTree,
  config: Config,
  params: SealParams,
  changed: Changed,
  runs: PreludeRuns,
): AheadOptions {
  const digest = readBoundedFile(layoutPath(repo, 'digest'), 1024, LAYOUT.digest).toString('utf8').trim();
  const { env, plan } = creditRunEnv(runs.env, params, digest, config);
  const command = cheapCommand(config.test.command ?? [], installedOptions(repo));
  const treeFiles = listTreeFiles(tree.root);
  return {
    workTree: tree.root,
    depsFrom: repo,
    command,
    junit: config.test.junit,
    env,
    fastEnv: fastEnvFor(command, config, treeFiles)?.env ?? null,
    sandbox: openCreditBox({
      repo,
      config,
      env: runs.env,
      cacheDir: runs.cacheDir,
      clock: plan,
      ...(runs.bwrap !== undefined ? { bwrap: runs.bwrap } : {}),
    }),
    controlTimeoutMs: config.test.timeoutSeconds * 1000,
    cacheDir: runs.cacheDir,
    cacheSalt: creditCacheSalt(digest, changed.patch_sha256, changed.base),
    workers: runs.workers,
  };
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

export function defaultCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  const base =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== ''
      ? env.XDG_CACHE_HOME
      : join(env.HOME ?? homedir(), '.cache');
  return join(base, 'sealgate', 'credit');
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
 * A file's text at the base revision (null when it did not exist there). `rev` is passed in:
 * today changed.json's base, the runner's base_commit once the runner builds its own tree.
 */
export function readBaseFile(repo: string, rev: string, path: string): string | null {
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(rev))
    throw inputInvalid(`${LAYOUT.changed}#base`, `"${rev}" is not a full commit id`);
  const r = runGit(repo, ['cat-file', 'blob', `${rev}:${path}`]);
  return r.status === 0 ? decodeSource(r.stdout) : null;
}

/** Symbols by qualified name in one file's text (null when it does not parse). */
async function symbolsOf(language: string, path: string, text: string): Promise<FileSymbols | null> {
  const s = await extractFile(language, path, Buffer.from(text, 'utf8'), { docstringChanges: false });
  return s.parsed ? s : null;
}

/** Mutants for every changed symbol the oracle supports: on its changed tokens, its revert, its null mutant. */
/** `repo` is the tree the mutants are planned on; `gitRepo` the repository holding the base commit (default: `repo`). */
/** `typeCheck`: the test runner type-checks TS (checkRunnerTypeChecks), so TS mutants are type-checked before they run. */
export async function planSymbols(
  repo: string,
  changed: Changed,
  budget: number,
  seed: string,
  baseRev: string = changed.base,
  gitRepo: string = repo,
  typeCheck = false,
  noiseKey: string = randomNoiseKey(),
): Promise<{ plans: SymbolPlan[]; unsupported: Map<string, string> }> {
  const d = await draftSymbols(repo, changed, budget, seed, baseRev, gitRepo, typeCheck, noiseKey);
  return { plans: await d.judged, unsupported: d.unsupported };
}

/**
 * The revert for a symbol whose null changes fall inside what its revert puts back (a body the
 * patch rewrote whole, where the null's comment, no-op and renamed local go): the base version
 * put back with the null changes the mutator makes on the base version itself, under the same
 * noise (the same comment word and renamed-local suffix), as one edit of the patched file. So
 * it still carries what marks a null run, and the tests must tell it by what it changes. Null
 * when the base version takes none of them either.
 */
export async function ownNoiseRevert(
  text: string,
  span: SymbolSpan,
  revert: readonly Edit[],
  language: string,
  noise: Noise,
): Promise<Mutant | null> {
  const reverted = applyEdits(text, revert);
  const lines = (t: string): number => t.split('\n').length;
  const endLine = span.endLine + lines(reverted) - lines(text);
  if (endLine < span.startLine) return null;
  const base = { ...span, endLine, changedLines: [[span.startLine, endLine]] as [number, number][] };
  const m = await mutantsOf(language, reverted, base, undefined, noise);
  const nulls = m.nulls[0]?.edits ?? [];
  if (m.noise.length === 0 || nulls.length === 0) return null;
  const target = applyEdits(reverted, nulls);
  // One edit: what differs between the patched text and the base version with its null changes.
  let a = 0;
  while (a < text.length && a < target.length && text[a] === target[a]) a++;
  let b = 0;
  while (b < text.length - a && b < target.length - a && text[text.length - 1 - b] === target[target.length - 1 - b])
    b++;
  return revertMutant(span, [{ start: a, end: text.length - b, text: target.slice(a, target.length - b) }]);
}

/**
 * planSymbols in two parts: `drafts` at once (every symbol's probe, trace, null mutant and
 * change, no behavioural mutant or revert yet), and `judged`, the plans with their valid
 * mutants, which the validity checks (TypeScript's type check: seconds) make while the first
 * runs go on. The oracle runs the trace, the control and the probes on the drafts, and judges
 * with the plans. `judged` never rejects unhandled: await it. `noiseKey` writes the null
 * changes (noiseFor); the credit step's comes from noiseKeyFor, a fresh random one otherwise.
 */
export async function draftSymbols(
  repo: string,
  changed: Changed,
  budget: number,
  seed: string,
  baseRev: string = changed.base,
  gitRepo: string = repo,
  typeCheck = false,
  noiseKey: string = randomNoiseKey(),
): Promise<{
  drafts: SymbolPlan[];
  judged: Promise<SymbolPlan[]>;
  unsupported: Map<string, string>;
  typeCheckStalled: () => string | null;
}> {
  const drafts: SymbolPlan[] = [];
  const later: (() => Promise<SymbolPlan>)[] = [];
  const unsupported = new Map<string, string>();
  const texts = new Map<string, string>();
  // Each language's checks of this proposal's mutants, opened with its first symbol and closed when the last check is done.
  const sessions = new Map<CreditLanguage, ValiditySession>();
  const sessionOf = (language: CreditLanguage): ValiditySession => {
    let v = sessions.get(language);
    if (v === undefined) sessions.set(language, (v = language.validity({ repo, gitRepo, typeCheck })));
    return v;
  };
  /** Why a mutant of `path` is not a valid program (null: valid): its language's checks, then the names it takes away. */
  const validityFor = (
    language: string,
    path: string,
    text: string,
    check: (m: Mutant) => Promise<string | null>,
    declared: Promise<ReadonlySet<string>>,
  ): ((m: Mutant) => Promise<string | null>) => {
    const memo = new Map<string, string | null>();
    return async (x) => {
      const known = memo.get(x.id);
      if (known !== undefined) return known;
      let why = await check(x);
      // A name the patched or the base file declared that the mutant takes away but still uses (bindings.ts).
      why ??= await lostNames(language, path, await declared, applyEdits(text, x.edits));
      memo.set(x.id, why);
      return why;
    };
  };
  /** The top-level names of a file's base and patched versions, once per file: a mutant that takes one away and still uses it is invalid (bindings.ts). */
  const declaredByPath = new Map<string, Promise<ReadonlySet<string>>>();
  const declaredIn = (
    path: string,
    language: string,
    base: string | null,
    text: string,
  ): Promise<ReadonlySet<string>> => {
    let p = declaredByPath.get(path);
    if (p === undefined) {
      p = (async () =>
        new Set([
          ...((base === null ? null : await topLevelNames(language, path, base)) ?? []),
          ...((await topLevelNames(language, path, text)) ?? []),
        ]))();
      p.catch(() => undefined);
      declaredByPath.set(path, p);
    }
    return p;
  };
  const parsed = new Map<
    string,
    Promise<{ base: string | null; baseSymbols: FileSymbols | null; symbols: FileSymbols | null }>
  >();
  const fileOf = (path: string, language: string, text: string) => {
    let p = parsed.get(path);
    if (p === undefined) {
      const entry = changed.files.find((f) => f.path === path);
      const oldPath = entry?.status === 'added' ? null : (entry?.old_path ?? path);
      p = (async () => {
        const base = oldPath === null ? null : readBaseFile(gitRepo, baseRev, oldPath);
        return {
          base,
          baseSymbols: base === null ? null : await symbolsOf(language, oldPath ?? path, base),
          symbols: await symbolsOf(language, path, text),
        };
      })();
      parsed.set(path, p);
    }
    return p;
  };
  for (const symbol of changed.changed) {
    const loc = changed.locations[symbol];
    if (!loc) {
      unsupported.set(symbol, 'changed.json gives no location for it');
      continue;
    }
    const credit = creditLanguage(loc.language);
    if (!credit.credit) {
      unsupported.set(symbol, credit.reason);
      continue;
    }
    let text = texts.get(loc.path);
    if (text === undefined) {
      try {
        text = readFileSync(resolveInRepo(repo, loc.path, `${LAYOUT.changed}#locations`), 'utf8');
      } catch (err) {
        if (err instanceof SealgateError) {
          unsupported.set(symbol, `its file ${loc.path} is not in the runner's tree`);
          continue;
        }
        throw err;
      }
      texts.set(loc.path, text);
    }
    const span = {
      symbol,
      path: loc.path,
      startLine: loc.start_line,
      endLine: loc.end_line,
      changedLines: loc.changed_lines,
    };
    const name = symbol.slice(loc.path.length + 2);
    const f = await fileOf(loc.path, loc.language, text);
    const pieces = f.symbols?.symbols.get(name);
    // Where the file or the symbol cannot be found again, the whole of the symbol's lines is the change (no revert).
    const change: SymbolChange | undefined = pieces
      ? checkSymbolChange(
          loc.language,
          text,
          pieces,
          f.base,
          f.base === null ? null : (f.baseSymbols?.symbols.get(name) ?? null),
        )
      : undefined;
    const noise = noiseFor(noiseKey, symbol);
    const m = await mutantsOf(loc.language, text, span, change, noise);
    // The revert carries the null's changes too (camouflage); where they fall inside what it
    // puts back, the base version carries its own (ownNoiseRevert); else there is none.
    const built = change?.revert
      ? (camouflage(revertMutant(span, change.revert), m.noise, text) ??
        (await ownNoiseRevert(text, span, change.revert, loc.language, noise)))
      : null;
    const noRevert =
      change?.noRevert ??
      (change === undefined
        ? 'the symbol could not be found again in its file'
        : change.revert && built === null
          ? "the base version cannot carry the null mutant's changes (they fall inside what it puts back)"
          : undefined);
    const draft: SymbolPlan = {
      symbol,
      path: loc.path,
      probe: m.probe,
      trace: m.trace,
      mutants: [],
      candidates: m.candidates.length,
      change: change?.status ?? 'modified',
      revert: null,
      ...(noRevert !== undefined ? { noRevert } : {}),
      // The null mutant is never discarded (that would only weaken the check); mutant.ts keeps it valid.
      nulls: m.nulls,
    };
    drafts.push(draft);
    const { path, language } = loc;
    const body = text;
    const judgedMutants = [...(built ? [built] : []), ...m.candidates];
    const checks = sessionOf(credit).checker(path, body, judgedMutants);
    const declared = declaredIn(path, language, f.base, body);
    later.push(async () => {
      // Invalid mutants (no compile, no type-check, a name taken away) are discarded before they run; the next candidate takes the place.
      const invalid = validityFor(language, path, body, checks, declared);
      // One check at a time, the event loop turning between them: the parse check runs in this
      // thread, Python's compile in its interpreter, the type check in its worker; the runs go on meanwhile.
      const check = async (x: Mutant): Promise<string | null> => {
        await new Promise<void>((r) => setImmediate(r));
        return await invalid(x);
      };
      const revertWhy = built ? await check(built) : null;
      const revert = revertWhy === null ? built : null;
      const { picked, discarded } = await pickValidAsync(
        selectMutants(m.candidates, m.candidates.length, seed),
        budget,
        check,
      );
      return {
        ...draft,
        mutants: picked,
        revert,
        ...(revertWhy !== null ? { revertInvalid: revertWhy } : {}),
        discarded: [...(built && revertWhy !== null ? [{ mutant: built.id, reason: revertWhy }] : []), ...discarded],
      };
    });
  }
  for (const v of sessions.values()) v.start();
  const judged = (async () => {
    try {
      const out: SymbolPlan[] = [];
      for (const f of later) out.push(await f());
      return out;
    } finally {
      for (const v of sessions.values()) v.close();
    }
  })();
  // Awaited by the caller; until then a failure must not count as unhandled.
  judged.catch(() => undefined);
  const typeCheckStalled = (): string | null => {
    for (const v of sessions.values()) {
      const stalled = v.stalled();
      if (stalled !== null) return stalled;
    }
    return null;
  };
  return { drafts, judged, unsupported, typeCheckStalled };
}

/** Narrowing targets for a set of reaching tests: pytest node ids or test files; null when any is unknown. */
export function narrowFor(
  command: readonly string[],
  sources: ReadonlyMap<string, CaseSource>,
): (ids: readonly string[]) => readonly string[] | null {
  return (ids) => {
    const picked = ids.map((id) => sources.get(id));
    if (picked.some((s) => s === undefined || s.files.length === 0)) return null;
    const all = picked as CaseSource[];
    const py = all.every((s) => s.nodeIds.length > 0);
    const targets = py ? all.flatMap((s) => s.nodeIds) : all.flatMap((s) => s.files);
    return narrowCommand(command, [...new Set(targets)].sort());
  };
}

/**
 * The tests of `tests` that the trace's targets name: a pytest node id, the test with that
 * node id; a file and a name (jest's and vitest's current test name), the one test of that file
 * whose full name it is; a jest or vitest test file alone (a symbol entered while no test of it
 * ran: the file loading or being collected, a hook of no test), every test of that file, as its
 * probe gives them (a throw while a file loads or is collected fails every test of the file; a
 * test file is loaded on its own, its modules with it). Null when a target is a whole node:test
 * file (its probe tells its tests apart), a pytest target without a node id, a name that none
 * of them has or more than one could have, or a file with a test that cannot be named exactly
 * (toNamePattern): the oracle runs the probe then.
 */
export function testsOfTargetsFor(
  sources: ReadonlyMap<string, CaseSource>,
  cases: ReadonlyMap<string, NamedTest> = new Map(),
  kind: RunnerKind = 'unknown',
): (targets: readonly string[], tests: readonly string[]) => string[] | null {
  const runner = TEST_RUNNERS[kind];
  const patterns = new Map<string, RegExp | null>();
  const patternOf = (t: string): RegExp | null => {
    if (!patterns.has(t)) {
      const named = cases.get(t);
      const p = named === undefined ? null : toNamePattern(kind, [named]);
      patterns.set(t, p === null ? null : new RegExp(p));
    }
    return patterns.get(t) ?? null;
  };
  return (targets, tests) => {
    const out = new Set<string>();
    for (const target of targets) {
      const tab = target.indexOf('\t');
      if (tab >= 0) {
        if (!runner.traceNamesTests) return null;
        const file = target.slice(0, tab);
        let name: unknown;
        try {
          name = JSON.parse(target.slice(tab + 1));
        } catch {
          return null;
        }
        if (typeof name !== 'string' || name === '') return null;
        const inFile = tests.filter((t) => {
          const s = sources.get(t);
          return s?.nodeIds.length === 0 && s.files.length === 1 && s.files[0] === file;
        });
        const hit: string[] = [];
        for (const t of inFile) {
          const re = patternOf(t);
          if (re === null) return null;
          if (re.test(name)) hit.push(t);
        }
        if (hit.length !== 1) return null;
        out.add(hit[0] as string);
        continue;
      }
      if (!target.includes('::')) {
        if (!runner.traceNamesTests) return null;
        for (const t of tests) {
          const s = sources.get(t);
          if (s?.nodeIds.length === 0 && s.files.length === 1 && s.files[0] === target) out.add(t);
        }
        continue;
      }
      const hit = tests.filter((t) => sources.get(t)?.nodeIds.includes(target) === true);
      if (hit.length === 0) return null;
      for (const t of hit) out.add(t);
    }
    return [...out].sort();
  };
}

/**
 * The command narrowed to the reaching tests by file and name (vitest, jest, node:test), or null
 * when any of them cannot be named exactly (the oracle then narrows by file). pytest's node ids
 * already name each test (narrowFor).
 */
export function narrowByNameFor(
  command: readonly string[],
  sources: ReadonlyMap<string, CaseSource>,
  cases: ReadonlyMap<string, NamedTest>,
): (ids: readonly string[]) => readonly string[] | null {
  return (ids) => {
    const picked = ids.map((id) => ({ source: sources.get(id), named: cases.get(id) }));
    if (
      picked.some(
        (p) =>
          p.source === undefined || p.source.files.length === 0 || p.source.nodeIds.length > 0 || p.named === undefined,
      )
    )
      return null;
    const files = [...new Set(picked.flatMap((p) => (p.source as CaseSource).files))].sort();
    return narrowByName(
      command,
      files,
      picked.map((p) => p.named as NamedTest),
    );
  };
}

/**
 * The box of the credit step's runs: E_SANDBOX_UNAVAILABLE unless the policy's isolation works
 * here. Hidden from them besides the repository's own secrets: the credit cache.
 */
export function openCreditBox(o: {
  repo: string;
  config: Config;
  env: Readonly<Record<string, string | undefined>>;
  cacheDir: string | null;
  clock: ClockPlan;
  bwrap?: string;
}): Box {
  return openBox({
    isolation: o.config.sandbox,
    bwrap: o.bwrap ?? findBwrap(),
    env: o.env,
    secrets: readSecrets(o.repo, o.env, installRoot(), o.cacheDir !== null ? [o.cacheDir] : []),
    ...(o.clock.kind === 'faketime' ? { extraReadOnly: [o.clock.library] } : {}),
    path: 'sealgate.config#sandbox',
  });
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

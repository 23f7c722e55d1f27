// The credit prelude: the credit step's drafts, base copy and first round, made while the sealed run goes on.
import type { Config } from '../../config/schema.js';
import type { RunnerTree } from '../../tree/build.js';
import { listTreeFiles } from '../../tree/list.js';
import { readBoundedFile } from '../../core/io.js';
import { LAYOUT, layoutPath } from '../../core/layout.js';
import { readSealParams, type SealParams } from '../../seal/seal.js';
import { type Changed } from '../../symbols/schema.js';
import { checkRunnerTypeChecks } from '../lang/typescript/runner-checks.js';
import { byteCodeFor } from '../lang/index.js';
import { makePreparedBase, type PreparedBase } from './prepared.js';
import { startAhead, type AheadOptions, type AheadRound } from './ahead.js';
import { cheapCommand, installedOptions, runsInOneProcess } from '../../test-runners/index.js';
import { readChanged, readsTreeFile, readsDepFile, draftArgs } from '../plan/inputs.js';
import { noiseKeyFor } from '../plan/noise.js';
import { type Drafted, draftSymbols } from '../plan/symbols.js';
import { creditRunEnv, fastEnvFor, openCreditBox, creditCacheSalt } from '../runs/setup.js';

/**
 * The credit step's mutants drafted and checked while the sealed run goes on (started by the
 * runner job once the symbols are extracted). The credit step uses them only when `args`, every
 * input of the drafting, is the one it computes itself. It reads the pristine tree and git only.
 */
export interface CreditPrelude {
  readonly args: string;
  readonly drafted: Promise<Drafted>;
  /**
   * Where a changed symbol is Python: a copy of the tree with its byte code made (the oracle's
   * step 0, pycache.ts), which the oracle takes only when it would make the very same
   * (PreparedBase); null otherwise. Whoever ends up not using it disposes of it (disposePrelude).
   */
  readonly baseCopy: Promise<PreparedBase | null>;
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
  const b = await p.baseCopy.catch(() => null);
  b?.dispose();
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
    // The base copy with its byte code (Python), made now too; the oracle takes it only when it
    // would make the very same (preparedKey): a guess that differs costs only the copy.
    const baseCopy = drafted.then((d) =>
      makePreparedBase(
        root,
        repo,
        d.drafts.map((p) => p.path),
        config.sandbox,
        [...cheapCommand(command), ...Object.values(config.test.env ?? {})],
      ),
    );
    baseCopy.catch(() => undefined);
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
                  byteCodeFor(d.drafts.map((p) => p.path)) !== null ? baseCopy : null,
                ),
          );
    ahead.catch(() => undefined);
    return { args, drafted, baseCopy, ahead };
  } catch {
    return null;
  }
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

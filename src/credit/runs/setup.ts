// How the credit step's runs are made: their pinned environment, the judging environment, the cache, the sandbox.
import type { Config } from '../../config/schema.js';
import { inputInvalid } from '../../core/errors.js';
import { LAYOUT } from '../../core/layout.js';
import { type SealParams } from '../../seal/seal.js';
import { findLibfaketime, pinnedEnv, planClock, type ClockPlan } from '../../runner/env.js';
import { findBwrap, installRoot, readSecrets } from '../../sandbox/host.js';
import { openBox, type Box } from '../../sandbox/run.js';
import { judgingEnvFor, type JudgingEnv } from '../../test-runners/index.js';

/** The credit runs' pinned environment: the sealed seed, clock, locale and digest, the policy's variables, no byte code written. */
export function creditRunEnv(
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
export function fastEnvFor(
  command: readonly string[],
  config: Config,
  treeFiles: readonly string[],
): JudgingEnv | null {
  return judgingEnvFor(command, config.test.env, (rel) => treeFiles.includes(rel));
}

/** What binds a cached credit run to its proposal: the sealed digest, the patch, the base. */
export function creditCacheSalt(digest: string, patchSha: string, base: string): string {
  return JSON.stringify([digest, patchSha, base]);
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

// The runs' base copy with its byte code made before the first run (Python), made ahead or by the oracle itself.
import { stampTree } from '../../core/times.js';
import type { Box } from '../../sandbox/run.js';
import { SANDBOX_WORK } from '../../sandbox/plan.js';
import { byteCodeFor } from '../lang/index.js';
import type { PrecompileResult } from '../lang/python/pycache.js';
import { makeScratch, makeWorkspace } from '../runs/test-run.js';

/**
 * A copy of the tree with its byte code already made (the credit prelude makes it while the
 * sealed run goes on). The oracle uses it as
 * the copy every run is copied from only when it would make the very same; otherwise it
 * disposes of it and makes its own.
 */
export interface PreparedBase {
  readonly root: string;
  readonly dispose: () => void;
  /** What it was made from (preparedKey). */
  readonly key: string;
  readonly bytecode: PrecompileResult;
}

/** Every input of the byte code step: the tree, where dependencies come from, the changed files, the runs' working directory, and whether pytest's rewrite is left out. */
export function preparedKey(
  workTree: string,
  depsFrom: string,
  changedPy: Iterable<string>,
  cwd: string | null,
  noRewrite: boolean,
): string {
  return JSON.stringify([workTree, depsFrom, [...changedPy].sort(), cwd, noRewrite]);
}

/** The runs' working directory, where it is the same for every run (the sandbox's): byte code may hold it. */
const fixedCwd = (sandbox: Box): string | null => (sandbox.isolation === 'bwrap' ? SANDBOX_WORK : null);

/** What the oracle's base copy and its byte code are made from. */
export interface ByteCodeInputs {
  readonly workTree: string;
  readonly depsFrom?: string;
  readonly command: readonly string[];
  readonly sandbox: Box;
}

/**
 * Byte code for every file of the base copy that no run changes, before any run (a language's
 * byte-code step: Python's), so every judging run finds the same byte code (none for a file a
 * mutant changes) and none compiles the rest again: the copy made ahead (`madeAhead`) when made from
 * the very inputs this step would use (the copy's config files are the tree's), else made now
 * in `baseRoot()`. Null `bytecode` when no changed file's language has such a step.
 */
export async function baseByteCode(
  paths: readonly string[],
  o: ByteCodeInputs,
  env: Readonly<Record<string, string>>,
  madeAhead: PreparedBase | null,
  baseRoot: () => string,
): Promise<{ bytecode: PrecompileResult | null; prepared: PreparedBase | null }> {
  const byteCode = byteCodeFor(paths);
  if (byteCode === null) return { bytecode: null, prepared: null };
  const cwd = fixedCwd(o.sandbox);
  const depsFrom = o.depsFrom ?? o.workTree;
  if (
    madeAhead !== null &&
    madeAhead.key ===
      preparedKey(
        o.workTree,
        depsFrom,
        byteCode.files,
        cwd,
        byteCode.step.configured(madeAhead.root, [...o.command, ...Object.values(env)]),
      )
  )
    return { bytecode: madeAhead.bytecode, prepared: madeAhead };
  const root = baseRoot();
  const bytecode = await byteCode.step.precompile(root, byteCode.files, {
    cwd,
    noRewrite: byteCode.step.configured(root, [...o.command, ...Object.values(env)]),
  });
  // The folders and files made now get the tree's one time too (core/times.ts).
  stampTree(root);
  return { bytecode, prepared: null };
}

/**
 * The base copy of `root` with its byte code, made ahead (the credit prelude), for the drafted
 * symbols' `paths`; null when no changed file's language has a byte-code step. What the oracle
 * would compute from its own command and environment decides whether it is used (preparedKey).
 */
export async function makePreparedBase(
  root: string,
  repo: string,
  paths: readonly string[],
  sandbox: Box['isolation'],
  commandAndEnv: readonly string[],
): Promise<PreparedBase | null> {
  const byteCode = byteCodeFor(paths);
  if (byteCode === null) return null;
  const scratch = makeScratch();
  try {
    const ws = makeWorkspace(root, scratch.dir, repo);
    const cwd = sandbox === 'bwrap' ? SANDBOX_WORK : null;
    const noRewrite = byteCode.step.configured(ws.root, commandAndEnv);
    const bytecode = await byteCode.step.precompile(ws.root, byteCode.files, { cwd, noRewrite });
    stampTree(ws.root);
    return {
      root: ws.root,
      dispose: scratch.dispose,
      key: preparedKey(root, repo, byteCode.files, cwd, noRewrite),
      bytecode,
    };
  } catch (err) {
    scratch.dispose();
    throw err;
  }
}

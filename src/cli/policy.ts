import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readDocument } from '../core/document.js';
import { LAYOUT } from '../core/layout.js';
import { readPolicy, readPolicyAsync, type Policy } from '../policy/read.js';
import { DEFAULT_POLICY, policyDigest } from '../policy/check.js';
import { RecordSchema } from '../record/schema.js';
import { SealgateError } from '../core/errors.js';
import { buildRecordTree, type RunnerTree } from '../tree/build.js';
import type { CommandContext } from './context.js';

/** The record's base commit, or null when the record does not name one (or cannot be read: its reader reports that). */
export function recordBase(repo: string, record: string = LAYOUT.record): string | null {
  const path = resolve(repo, record);
  if (!existsSync(path)) return null;
  try {
    return readDocument(path, RecordSchema, 'json-or-yaml', record).base_commit ?? null;
  } catch (err) {
    if (err instanceof SealgateError) return null;
    throw err;
  }
}

/**
 * The policy a command decides under: --policy FILE (outside the repository), else the
 * sealgate config at the record's base commit. Without a base commit (an old record, one
 * cut short) the defaults stand in, so the earlier rules can still name their code; such a
 * record binds nothing and never reaches ALLOW (E_CREDIT_UNBOUND).
 */
export function policyFor(
  ctx: CommandContext,
  repo: string,
  policyArg: string | undefined,
  base: string | null = recordBase(repo),
): Policy {
  if (ctx.runner !== undefined && policyArg === undefined) return ctx.runner.policy;
  if (policyArg !== undefined)
    return readPolicy({ repo, baseCommit: base ?? '', policyFile: resolve(ctx.cwd, policyArg) });
  if (base === null)
    return {
      config: DEFAULT_POLICY,
      bytes: null,
      digest: policyDigest(null),
      source: 'default (the record names no base commit)',
    };
  return readPolicy({ repo, baseCommit: base });
}

/** policyFor with git started now and awaited later (the same policy, the same errors). */
export async function policyForAsync(
  ctx: CommandContext,
  repo: string,
  policyArg: string | undefined,
  base: string | null,
): Promise<Policy> {
  if (ctx.runner !== undefined || policyArg !== undefined || base === null)
    return policyFor(ctx, repo, policyArg, base);
  return readPolicyAsync({ repo, baseCommit: base });
}

/**
 * The runner's tree for a step: the one `sealgate runner` built, else built now from the
 * record (and disposed by `release`). The seal builds only from the recorded patch bytes
 * (`checkHash`); the steps after it rebuild from the bytes on disk, and their tree id must
 * be the sealed one (a changed patch is drift, with the spec's reaction).
 */
export function treeFor(
  ctx: CommandContext,
  repo: string,
  record: string | undefined,
  checkHash: boolean,
): { tree: RunnerTree; release: () => void } {
  if (ctx.runner !== undefined) return { tree: ctx.runner.tree, release: () => undefined };
  const tree = buildRecordTree(repo, { ...(record === undefined ? {} : { record }), checkHash });
  return { tree, release: () => tree.dispose() };
}

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readDocument } from '../core/document.js';
import { LAYOUT } from '../core/layout.js';
import { readPolicyAsync, readPolicyAt, type Policy } from '../policy/read.js';
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

/** The policy a command decides under: --policy FILE (outside the repository), else the one at the record's base (readPolicyAt). */
export function policyFor(
  ctx: Pick<CommandContext, 'cwd'>,
  repo: string,
  policyArg: string | undefined,
  base: string | null = recordBase(repo),
): Policy {
  return readPolicyAt(repo, base, policyArg === undefined ? undefined : resolve(ctx.cwd, policyArg));
}

/** policyFor with git started now and awaited later (the same policy, the same errors). */
export async function policyForAsync(
  ctx: Pick<CommandContext, 'cwd'>,
  repo: string,
  policyArg: string | undefined,
  base: string | null,
): Promise<Policy> {
  if (policyArg !== undefined || base === null) return policyFor(ctx, repo, policyArg, base);
  return readPolicyAsync({ repo, baseCommit: base });
}

/**
 * The runner's tree for a step run on its own, built now from the record. The seal builds only
 * from the recorded patch bytes (`checkHash`); the steps after it rebuild from the bytes on
 * disk, and their tree id must be the sealed one (a changed patch is drift, with the spec's
 * reaction). Dispose of it when done.
 */
export function treeFor(repo: string, record: string | undefined, checkHash: boolean): RunnerTree {
  return buildRecordTree(repo, { ...(record === undefined ? {} : { record }), checkHash });
}

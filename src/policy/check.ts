import { isAbsolute, relative } from 'node:path';
import { parseDocument } from '../core/document.js';
import type { Finding } from '../core/errors.js';
import { sha256Hex } from '../core/ids.js';
import { fail, ok, type Result } from '../core/result.js';
import { ConfigSchema, DEFAULT_CONFIG, normaliseConfig, type Config } from '../config/schema.js';

/**
 * The policy (sealgate.config.json|yaml|yml) as a verdict input, pure: which entry of the
 * base commit is the policy, its bytes to a Config, and its digest. The I/O is in read.ts.
 */

export const POLICY_NAMES = ['sealgate.config.json', 'sealgate.config.yaml', 'sealgate.config.yml'] as const;

/** The digest sealed as `policy=`: the SHA-256 of the policy bytes, or "default" when there is no policy file. */
export function policyDigest(bytes: Uint8Array | null): string {
  return bytes === null ? 'default' : sha256Hex(bytes);
}

export const POLICY_DIGEST_PATTERN = /^(?:[0-9a-f]{64}|default)$/;

/** One `git ls-tree` entry at the top of the base commit. */
export interface TreeEntry {
  readonly mode: string;
  readonly type: string;
  readonly name: string;
}

/** The base's policy entry: none, exactly one regular file, or a finding (two of them, a link, a folder). */
export function checkPolicyEntries(entries: readonly TreeEntry[], base: string): Result<TreeEntry | null> {
  const found = entries.filter((e) => (POLICY_NAMES as readonly string[]).includes(e.name));
  if (found.length === 0) return ok(null);
  const where = `${base.slice(0, 12)}:`;
  if (found.length > 1)
    return fail([
      {
        code: 'E_INPUT_INVALID',
        path: found.map((e) => where + e.name).join(', '),
        detail: 'more than one sealgate config file at the base commit; keep one',
      },
    ]);
  const e = found[0] as TreeEntry;
  if (e.type !== 'blob' || (e.mode !== '100644' && e.mode !== '100755')) {
    return fail([
      {
        code: 'E_INPUT_INVALID',
        path: where + e.name,
        detail: `is not a regular file at the base commit (mode ${e.mode}, ${e.type}); the policy must be a plain file`,
      },
    ]);
  }
  return ok(e);
}

/** Policy bytes to the Config every stage reads; strict schema, every problem named. */
export function parsePolicy(bytes: Uint8Array, name: string, label: string): Result<Config> {
  const format = /\.ya?ml$/i.test(name) ? 'yaml' : 'json';
  const r = parseDocument(bytes, ConfigSchema, format, label);
  return r.ok ? ok(normaliseConfig(r.value)) : r;
}

/** Why a --policy file may not be used, or undefined: it must resolve outside the repository. */
export function checkPolicyOutside(repoReal: string, fileReal: string): string | undefined {
  const rel = relative(repoReal, fileReal);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
    return 'is inside the repository, where the patch can write it; keep --policy files outside the repository, or commit the policy to the base branch';
  }
  return undefined;
}

export const DEFAULT_POLICY = DEFAULT_CONFIG;

export type PolicyFinding = Finding;

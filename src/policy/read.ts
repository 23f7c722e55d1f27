import { realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { SealgateError, inputInvalid } from '../core/errors.js';
import { readBoundedFile, MAX_INPUT_BYTES } from '../core/io.js';
import type { Config } from '../config/schema.js';
import { runGit } from '../diff/git.js';
import { checkPolicyEntries, checkPolicyOutside, DEFAULT_POLICY, parsePolicy, policyDigest, POLICY_NAMES, type TreeEntry } from './check.js';

/**
 * The policy every verdict is decided under, read at the base commit (`git show
 * <base>:sealgate.config.json|yaml|yml`) or from a --policy file outside the repository:
 * never from the work tree or the patched tree, which the patch controls.
 */
export interface Policy {
  readonly config: Config;
  /** The policy file's bytes; null for the defaults (no policy file at the base). */
  readonly bytes: Buffer | null;
  /** SHA-256 of the bytes, or "default". Sealed as the `policy=` line of inputs.sha256. */
  readonly digest: string;
  /** Where it came from: `<base>:sealgate.config.json`, `file:/abs/path`, or `default (...)`. */
  readonly source: string;
}

export interface PolicyRequest {
  /** The user's repository (any folder inside its work tree). */
  readonly repo: string;
  /** The full base commit id (the record's base_commit). */
  readonly baseCommit: string;
  /** A policy file outside the repository, instead of the base's. */
  readonly policyFile?: string;
}

function parseLsTree(out: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const rec of out.toString('utf8').split('\0')) {
    if (rec === '') continue;
    const tab = rec.indexOf('\t');
    const [mode = '', type = ''] = rec.slice(0, tab).split(' ');
    entries.push({ mode, type, name: rec.slice(tab + 1) });
  }
  return entries;
}

export function readPolicy(req: PolicyRequest): Policy {
  if (req.policyFile !== undefined) return readPolicyFile(req.repo, req.policyFile);
  const base = req.baseCommit;
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(base)) throw inputInvalid('base_commit', `"${base}" is not a full commit id`);
  const ls = runGit(req.repo, ['ls-tree', '-z', '--full-tree', base, '--', ...POLICY_NAMES]);
  if (ls.status !== 0) throw inputInvalid('base_commit', `cannot read the policy at ${base}: ${ls.stderr.trim() || `git ls-tree exit ${String(ls.status)}`}`);
  const entry = checkPolicyEntries(parseLsTree(ls.stdout), base);
  if (!entry.ok) throw new SealgateError('E_INPUT_INVALID', entry.findings);
  if (entry.value === null) return { config: DEFAULT_POLICY, bytes: null, digest: policyDigest(null), source: `default (no sealgate.config.* at ${base.slice(0, 12)})` };
  const name = entry.value.name;
  const label = `${base.slice(0, 12)}:${name}`;
  const show = runGit(req.repo, ['cat-file', 'blob', `${base}:${name}`]);
  if (show.status !== 0) throw inputInvalid(label, `cannot read the policy at the base commit: ${show.stderr.trim()}`);
  if (show.stdout.length > MAX_INPUT_BYTES) throw inputInvalid(label, `larger than the ${MAX_INPUT_BYTES}-byte cap`);
  const config = parsePolicy(show.stdout, name, label);
  if (!config.ok) throw new SealgateError('E_INPUT_INVALID', config.findings);
  return { config: config.value, bytes: show.stdout, digest: policyDigest(show.stdout), source: `${base}:${name}` };
}

function readPolicyFile(repo: string, file: string): Policy {
  let real: string;
  let repoReal: string;
  try {
    real = realpathSync(resolve(file));
  } catch {
    throw inputInvalid('--policy', `"${file}" not found`);
  }
  try {
    repoReal = realpathSync(resolve(repo));
  } catch {
    throw inputInvalid('--repo', `"${repo}" not found`);
  }
  const problem = checkPolicyOutside(repoReal, real);
  if (problem !== undefined) throw inputInvalid('--policy', `"${file}" ${problem}`);
  const bytes = readBoundedFile(real, MAX_INPUT_BYTES, '--policy');
  const config = parsePolicy(bytes, basename(real), `--policy ${file}`);
  if (!config.ok) throw new SealgateError('E_INPUT_INVALID', config.findings);
  return { config: config.value, bytes, digest: policyDigest(bytes), source: `file:${real}` };
}

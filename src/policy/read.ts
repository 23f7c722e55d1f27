import { realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { SealgateError, inputInvalid } from '../core/errors.js';
import { readBoundedFile, MAX_INPUT_BYTES } from '../core/io.js';
import type { Config } from '../config/schema.js';
import { runGit, runGitAsync, type GitOutput } from '../diff/git.js';
import {
  checkPolicyEntries,
  checkPolicyOutside,
  DEFAULT_POLICY,
  parsePolicy,
  policyDigest,
  POLICY_NAMES,
  type TreeEntry,
} from './check.js';

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

/** One answer of `git cat-file --batch`: the object's type and bytes, or null where it is missing. */
interface BatchObject {
  readonly type: string;
  readonly bytes: Buffer;
}

/**
 * Split the output of `git cat-file --batch` into its answers, in the order asked: each is
 * `<oid> <type> <size>\n<bytes>\n`, or `<request> missing|ambiguous\n`. Null when the
 * output is not exactly that (nothing is guessed).
 */
export function parseCatFileBatch(out: Buffer, count: number): (BatchObject | null)[] | null {
  const answers: (BatchObject | null)[] = [];
  let at = 0;
  while (answers.length < count) {
    const nl = out.indexOf(10, at);
    if (nl === -1) return null;
    const header = out.toString('utf8', at, nl);
    at = nl + 1;
    if (/ (?:missing|ambiguous)$/.test(header)) {
      answers.push(null);
      continue;
    }
    const m = /^[0-9a-f]{40}(?:[0-9a-f]{24})? ([a-z]+) (0|[1-9][0-9]{0,15})$/.exec(header);
    if (m === null) return null;
    const size = Number(m[2]);
    if (at + size + 1 > out.length || out[at + size] !== 10) return null;
    answers.push({ type: m[1] as string, bytes: out.subarray(at, at + size) });
    at += size + 1;
  }
  return at === out.length ? answers : null;
}

/**
 * The entries of a raw tree object (`<mode> <name>\0<binary object id>` each), with the mode
 * padded as `git ls-tree` prints it and the type it implies. Null for a malformed tree.
 */
export function parseTreeObject(bytes: Buffer, oidBytes: 20 | 32): TreeEntry[] | null {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < bytes.length) {
    const sp = bytes.indexOf(32, at);
    const nul = sp === -1 ? -1 : bytes.indexOf(0, sp + 1);
    if (sp === -1 || nul === -1 || nul + 1 + oidBytes > bytes.length) return null;
    const raw = bytes.toString('latin1', at, sp);
    if (!/^[0-7]{5,6}$/.test(raw)) return null;
    const mode = raw.padStart(6, '0');
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    entries.push({ mode, type, name: bytes.toString('utf8', sp + 1, nul) });
    at = nul + 1 + oidBytes;
  }
  return entries;
}

/** What git is asked for the policy at `base`: its top tree, then each candidate file. */
function policyQuestions(base: string): string[] {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(base))
    throw inputInvalid('base_commit', `"${base}" is not a full commit id`);
  return [`${base}^{tree}`, ...POLICY_NAMES.map((n) => `${base}:${n}`)];
}

/** The policy from git's answers to policyQuestions (pure). */
function policyFromBatch(base: string, batch: GitOutput, count: number): Policy {
  const cannot = (why: string): SealgateError =>
    inputInvalid('base_commit', `cannot read the policy at ${base}: ${why}`);
  if (batch.status !== 0) throw cannot(batch.stderr.trim() || `git cat-file exit ${String(batch.status)}`);
  const answers = parseCatFileBatch(batch.stdout, count);
  if (answers === null) throw cannot('git cat-file --batch printed something other than the objects asked for');
  const top = answers[0];
  if (top?.type !== 'tree') throw cannot('it is not a commit of this repository');
  const entries = parseTreeObject(top.bytes, base.length === 64 ? 32 : 20);
  if (entries === null) throw cannot('its top tree could not be read');
  const entry = checkPolicyEntries(entries, base);
  if (!entry.ok) throw new SealgateError('E_INPUT_INVALID', entry.findings);
  if (entry.value === null)
    return {
      config: DEFAULT_POLICY,
      bytes: null,
      digest: policyDigest(null),
      source: `default (no sealgate.config.* at ${base.slice(0, 12)})`,
    };
  const name = entry.value.name;
  const label = `${base.slice(0, 12)}:${name}`;
  const blob = answers[1 + (POLICY_NAMES as readonly string[]).indexOf(name)];
  if (blob?.type !== 'blob') throw inputInvalid(label, 'cannot read the policy at the base commit');
  if (blob.bytes.length > MAX_INPUT_BYTES) throw inputInvalid(label, `larger than the ${MAX_INPUT_BYTES}-byte cap`);
  const bytes = Buffer.from(blob.bytes);
  const config = parsePolicy(bytes, name, label);
  if (!config.ok) throw new SealgateError('E_INPUT_INVALID', config.findings);
  return { config: config.value, bytes, digest: policyDigest(bytes), source: `${base}:${name}` };
}

// One git process for both questions: the base's top tree (which config files exist, with
// their modes: a link or a folder is refused) and the bytes of each candidate name.
export function readPolicy(req: PolicyRequest): Policy {
  if (req.policyFile !== undefined) return readPolicyFile(req.repo, req.policyFile);
  const asked = policyQuestions(req.baseCommit);
  return policyFromBatch(
    req.baseCommit,
    runGit(req.repo, ['cat-file', '--batch'], { input: asked.map((a) => `${a}\n`).join('') }),
    asked.length,
  );
}

/**
 * The policy a step decides under: a policy file outside the repository, else the sealgate
 * config at `base`. Without a base commit (an old record, one cut short) the defaults stand
 * in, so the earlier rules can still name their code; such a record binds nothing and never
 * reaches ALLOW (E_CREDIT_UNBOUND).
 */
export function readPolicyAt(repo: string, base: string | null, policyFile?: string): Policy {
  if (policyFile !== undefined) return readPolicy({ repo, baseCommit: base ?? '', policyFile });
  if (base === null)
    return {
      config: DEFAULT_POLICY,
      bytes: null,
      digest: policyDigest(null),
      source: 'default (the record names no base commit)',
    };
  return readPolicy({ repo, baseCommit: base });
}

/**
 * readPolicy with git started now and the answer awaited later, so that git runs beside other
 * work (`sealgate run` builds its tree meanwhile). The same checks, the same policy.
 */
export async function readPolicyAsync(req: PolicyRequest): Promise<Policy> {
  if (req.policyFile !== undefined) return readPolicyFile(req.repo, req.policyFile);
  const asked = policyQuestions(req.baseCommit);
  return policyFromBatch(
    req.baseCommit,
    await runGitAsync(req.repo, ['cat-file', '--batch'], { input: asked.map((a) => `${a}\n`).join('') }),
    asked.length,
  );
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

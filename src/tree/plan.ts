import type { Finding } from '../core/errors.js';
import { digestsEqual, sha256Hex } from '../core/ids.js';
import type { ProposalRecord } from '../record/schema.js';

/**
 * The runner's tree, pure parts: what a record must name to build it, git's output to a
 * tree id, git's refusal to a reason, and the sealed-versus-rebuilt comparison.
 */

export const TREE_ID_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** What a tree is built from: the record's base commit and patch, with the hash the record binds. */
export interface TreeSource {
  readonly baseCommit: string;
  readonly patchPath: string;
  /** The record's patch_sha256; the bytes read must match it unless the caller is checking for drift. */
  readonly patchSha256: string | null;
}

/** The record's fields the tree needs, or the finding that stops it. */
export function checkTreeSource(
  record: ProposalRecord,
  label: string,
): { ok: true; value: TreeSource } | { ok: false; finding: Finding } {
  if (record.base_commit === undefined) {
    return {
      ok: false,
      finding: {
        code: 'E_INPUT_INVALID',
        path: `${label}#base_commit`,
        detail:
          'the record names no base commit, so the runner cannot build its tree; record the proposal again with `sealgate propose` (it writes base_commit)',
      },
    };
  }
  return {
    ok: true,
    value: { baseCommit: record.base_commit, patchPath: record.patch_path, patchSha256: record.patch_sha256 ?? null },
  };
}

/** The patch bytes against the record's hash: a finding when they differ or the record binds none. */
export function checkPatchBytes(bytes: Uint8Array, expected: string | null, label: string): Finding | null {
  if (expected === null)
    return {
      code: 'E_INPUT_INVALID',
      path: `${label}#patch_sha256`,
      detail: 'the record binds no patch bytes; record the proposal with `sealgate propose`',
    };
  const got = sha256Hex(bytes);
  if (!digestsEqual(got, expected))
    return {
      code: 'E_INPUT_INVALID',
      path: `${label}#patch_sha256`,
      detail: `the patch on disk (sha256 ${got}) is not the one the proposal recorded (${expected}); the runner builds only from the recorded patch`,
    };
  return null;
}

/** `git write-tree` output to a tree id. */
export function parseTreeId(stdout: string): string | null {
  const t = stdout.replace(/\n$/, '');
  return TREE_ID_PATTERN.test(t) ? t : null;
}

/** Why `git apply --cached` refused, in git's words (its error lines), or that it applied at an offset. */
export function applyRefusal(status: number | null, stderr: string, base: string): string | null {
  const at = base.slice(0, 12);
  if (status !== 0) {
    const why = stderr
      .split('\n')
      .filter((l) => l.startsWith('error:'))
      .join('; ');
    return `does not apply to ${at}: ${why || stderr.trim() || `git apply exit ${String(status)}`}`;
  }
  const offsets = stderr.split('\n').filter((l) => /^Hunk #\d+ succeeded at/.test(l));
  return offsets.length > 0
    ? `does not apply cleanly to ${at} (git would apply it at an offset): ${offsets.join('; ')}`
    : null;
}

/** The sealed tree id against the one rebuilt from the base and the patch now. */
export function checkTreeMatch(sealed: string, rebuilt: string): Finding | null {
  if (digestsEqual(sealed, rebuilt)) return null;
  return {
    code: 'E_DIGEST_OPEN',
    path: 'review/runner/inputs.sha256#tree',
    detail: `the tree rebuilt from the base commit and the patch is ${rebuilt}, not the sealed ${sealed}: the bytes under test changed after the seal`,
  };
}

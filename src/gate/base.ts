import type { DecisionCode } from '../core/codes.js';
import type { Finding } from '../core/errors.js';

/**
 * The base commit a step expects (`--expect-base` of runner, gate, verify or explain; from CI:
 * the pull request's base), against the one the record names. The record is written by the
 * author's side, and its base decides the policy every later step reads (the trust section,
 * the test command, the credit rules): an older base can carry a weaker policy. Pure.
 */
export function expectedBaseFinding(recordBase: string | null, expected: string, recordPath: string): Finding | null {
  if (recordBase === expected) return null;
  return {
    code: 'E_INPUT_INVALID',
    path: `${recordPath}#base_commit`,
    detail:
      recordBase === null
        ? `the record names no base commit; --expect-base asks for ${expected}`
        : `the record names base ${recordBase}, not ${expected}, the base --expect-base asks for: its policy, tree and credit belong to another commit`,
  };
}

/**
 * The record's base when its policy was read against its base when it was judged: a step that
 * reads the record more than once (or, failing to read it first, reads it later) must find the
 * same base both times, else it judged a record under another base's policy. Pure.
 */
export function recordChangedFinding(
  policyBase: string | null,
  judgedBase: string | null,
  recordPath: string,
): Finding | null {
  if (policyBase === judgedBase) return null;
  return {
    code: 'E_INPUT_INVALID',
    path: `${recordPath}#base_commit`,
    detail: `the record changed while it was read: it named base ${policyBase ?? '(none)'} when the policy was read, ${judgedBase ?? '(none)'} when it was judged`,
  };
}

/**
 * A decision with the base check applied: a mismatch turns ALLOW into E_INPUT_INVALID; a
 * reject keeps its code (its own rule decided first), and the mismatch joins its findings.
 */
export function withExpectedBase<
  D extends { readonly code: DecisionCode; readonly decisive: Finding | null; readonly findings: readonly Finding[] },
>(d: D, mismatch: Finding | null): D {
  if (mismatch === null) return d;
  if (d.code === 'ALLOW')
    return { ...d, code: 'E_INPUT_INVALID', decisive: mismatch, findings: [mismatch, ...d.findings] };
  return { ...d, findings: [...d.findings, mismatch] };
}

/** The reasons a reject prints: the decisive finding, and the base mismatch when it is another. */
export function reasonsWithBase(d: { readonly decisive: Finding | null }, mismatch: Finding | null): Finding[] {
  return [...(d.decisive ? [d.decisive] : []), ...(mismatch !== null && mismatch !== d.decisive ? [mismatch] : [])];
}

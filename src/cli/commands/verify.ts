import { basename, dirname, resolve } from 'node:path';
import { CODE_INFO } from '../../core/codes.js';
import { usageError } from '../../core/errors.js';
import { toReviewReport } from '../../report/model.js';
import { toTextReport } from '../../report/text.js';
import { auditReview, type Audit } from '../../verify/audit.js';
import type { Finding } from '../../core/errors.js';
import type { Instant } from '../../core/time.js';
import { parseCommandArgs, parseCommitOption, parseNowOption } from '../args.js';
import type { Command, CommandContext } from '../context.js';
import { policyFor, recordBase } from '../policy.js';
import { expectedBaseFinding, reasonsWithBase, recordChangedFinding, withExpectedBase } from '../../gate/base.js';
import { LAYOUT } from '../../core/layout.js';
import { formatJson, formatReasons } from '../report.js';

/** --review DIR names the review folder; the repository is the folder that holds it. */
export function repoFromReviewOption(cwd: string, review: string | undefined, repo: string | undefined): string {
  if (review !== undefined && repo !== undefined) throw usageError('give --review or --repo, not both');
  if (review === undefined) return resolve(cwd, repo ?? '.');
  const dir = resolve(cwd, review);
  if (basename(dir) !== 'review')
    throw usageError(`--review: "${review}" must be the folder named review inside the repository`);
  return dirname(dir);
}

/**
 * The audit verify and explain share: the policy at the record's base (or --policy), and with
 * --expect-base the record's base checked against it (`mismatch`: the finding, or null).
 */
export async function auditWithBase(
  ctx: CommandContext,
  repo: string,
  policyArg: string | undefined,
  now: Instant,
  expectBase: string | undefined,
): Promise<{ audit: Audit; mismatch: Finding | null }> {
  const expected = expectBase === undefined ? null : parseCommitOption(expectBase, 'expect-base');
  const base = recordBase(repo);
  const audited = await auditReview({ repo, policy: policyFor(ctx, repo, policyArg, base), now });
  // The policy came from the base the record named when it was first read; the audit judged
  // the record as it read it. Should they differ (the record replaced meanwhile), nothing
  // the audit found was decided under that record's own policy.
  const replaced = recordChangedFinding(base, audited.inputs.record.base_commit ?? null, LAYOUT.record);
  const mismatch = replaced ?? (expected === null ? null : expectedBaseFinding(base, expected, LAYOUT.record));
  // The audit's own decision too, so no report reads the one before the base check.
  return {
    audit: { ...withExpectedBase(audited, mismatch), decision: withExpectedBase(audited.decision, mismatch) },
    mismatch,
  };
}

export const command: Command = {
  usage: `Usage: sealgate verify [--review DIR | --repo DIR] [--now T] [--policy FILE] [--explain | --json]

The full audit from the files alone, for the gate job. In order:
  1. the fixture digest recomputed from the current bytes (drift: E_DIGEST_OPEN),
  2. the patch hash against the record, credit and changed.json (E_CREDIT_UNBOUND),
  3. the journal's hash chain and order, and the log fields derived from it
     (E_LOGS_EARLY, or E_INPUT_INVALID for an edited or truncated journal),
  4. the credit recomputed from review/runner/cases.json (any difference: E_CREDIT_UNBOUND),
  5. the gate decision on review/proposal.json, credit.json and freeze.json,
  6. with --expect-base, the record's base commit against it (another base:
     E_INPUT_INVALID; a reject keeps its code).
A shared or missing job id outranks everything. Prints one code on stdout, like gate.

  --review DIR   the review folder (default: ./review); the repository is its parent
  --repo DIR     the repository instead (default: .)
  --now T        the review clock, RFC 3339 with an offset (default: the current
                 time, stated on stderr; the report states the instant either way)
  --policy FILE  a sealgate config outside the repository (default: sealgate.config.
                 json|yaml|yml at the record's base_commit); must be the sealed policy
  --expect-base SHA  the full commit id the evidence must be made on: the pull
                 request's base, from CI (the record's base decides the policy read)
  --explain      the reviewer's report on stderr
  --json         a machine-readable account on stderr

Exit: 0 ALLOW, 1 reject, 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      review: { type: 'string' },
      repo: { type: 'string' },
      now: { type: 'string' },
      policy: { type: 'string' },
      'expect-base': { type: 'string' },
      explain: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const now = parseNowOption(values.now ?? ctx.clock().toISOString());
    const repo = repoFromReviewOption(ctx.cwd, values.review, values.repo);
    const { audit, mismatch } = await auditWithBase(ctx, repo, values.policy, now, values['expect-base']);
    // The account is built before the code is printed: a failure while building it is then E_INTERNAL alone, never a second code.
    const account = values.json
      ? formatJson(audit.code, audit.findings, {
          now: now.text,
          steps: audit.steps.map((s) => ({ stage: s.stage, ok: s.findings.length === 0, summary: s.summary })),
        })
      : values.explain
        ? toTextReport(toReviewReport(audit))
        : `${values.now === undefined ? `verify: review clock ${now.text} (the current time; --now fixes it)\n` : ''}${audit.code !== 'ALLOW' ? formatReasons(audit.code, reasonsWithBase(audit, mismatch)) : ''}`;
    ctx.stdout(`${audit.code}\n`);
    if (account !== '') ctx.stderr(account);
    return CODE_INFO[audit.code].exit;
  },
};

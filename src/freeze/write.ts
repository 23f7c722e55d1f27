import { crypto } from '../core/builtins.js';
import type { Policy } from '../policy/read.js';
import type { DecisionCode } from '../core/codes.js';
import { SealgateError, type Finding } from '../core/errors.js';
import { toJsonText } from '../core/json.js';
import { writeFileAtomic } from '../core/io.js';
import { LAYOUT, layoutPath } from '../core/layout.js';
import { sameJob } from '../core/ids.js';
import { readRecordFile } from '../record/file.js';
import type { Instant } from '../core/time.js';
import type { Credit } from '../credit/schema.js';
import type { ProposalRecord } from '../record/schema.js';
import type { Freeze } from './schema.js';

export interface FreezeRequest {
  readonly authorJob: string;
  readonly testId: string;
  readonly expiresAt: string;
  readonly freezeId?: string;
}

/** A new freeze id, e.g. fz-5d2c81a04e7b. */
export function newFreezeId(random: Uint8Array = crypto().randomBytes(6)): string {
  return `fz-${Buffer.from(random).toString('hex')}`;
}

/**
 * The freeze a request would write, bound to what the files say now: the sealed digest,
 * the credit id and the record's runner job. Pure. A field that cannot be bound (no
 * runner, no credit, no digest) stays empty and the audit below rejects it.
 */
export function toFreeze(
  req: FreezeRequest,
  record: ProposalRecord,
  credit: Credit | null,
  digest: string | null,
  freezeId: string,
): Freeze | { code: DecisionCode; finding: Finding } {
  if (!record.runner_job || !record.author_job)
    return {
      code: 'E_JOB_MISSING',
      finding: {
        code: 'E_JOB_MISSING',
        path: 'record',
        detail: 'the record lacks a job id; a freeze cannot name its runner',
      },
    };
  if (credit === null)
    return {
      code: 'E_CREDIT_MISSING',
      finding: {
        code: 'E_CREDIT_MISSING',
        path: 'credit',
        detail: 'no credit file: a freeze cannot repair missing credit',
      },
    };
  if (digest === null)
    return {
      code: 'E_DIGEST_OPEN',
      finding: {
        code: 'E_DIGEST_OPEN',
        path: 'review/runner/digest.txt',
        detail: 'no sealed digest to bind the freeze to',
      },
    };
  return {
    freeze_id: req.freezeId ?? freezeId,
    author_job: req.authorJob,
    runner_job: record.runner_job,
    runner_digest: digest,
    credit_id: credit.credit_id,
    test_id: req.testId,
    expires_at: req.expiresAt,
  };
}

/** What writeFreeze needs of the full audit (verify's `auditReview`, passed in by the caller). */
export interface FreezeAudit {
  readonly code: DecisionCode;
  readonly findings: readonly Finding[];
  readonly inputs: {
    readonly record: ProposalRecord;
    readonly credit: Credit | null;
    readonly runnerFiles: { readonly digest: string | null };
  };
}

export type AuditWith<A extends FreezeAudit> = (o: {
  repo: string;
  policy: Policy;
  now: Instant;
  freeze: Freeze | null;
}) => Promise<A>;

/**
 * Write review/freeze.json only if the full audit (the same one `verify` runs) gives ALLOW
 * with it in place; otherwise throw the code the gate would give. Never writes a freeze
 * the gate would reject.
 */
export async function writeFreeze<A extends FreezeAudit>(
  repo: string,
  policy: Policy,
  now: Instant,
  req: FreezeRequest,
  auditReview: AuditWith<A>,
): Promise<{ freeze: Freeze; audit: A }> {
  // The author or the runner filing a freeze is refused before anything else is read.
  const { record } = readRecordFile(layoutPath(repo, 'record'), LAYOUT.record);
  for (const [role, job] of [
    ['author', record.author_job],
    ['runner', record.runner_job],
  ] as const) {
    if (job && sameJob(req.authorJob, job))
      throw new SealgateError('E_SHARED_JOB', [
        {
          code: 'E_SHARED_JOB',
          path: 'freeze#author_job',
          detail: `the freeze was written by the ${role} job ("${req.authorJob}")`,
        },
      ]);
  }
  const before = await auditReview({ repo, policy, now, freeze: null });
  const digest = before.inputs.runnerFiles.digest ?? before.inputs.record.digest ?? null;
  const candidate = toFreeze(req, before.inputs.record, before.inputs.credit, digest, newFreezeId());
  if ('finding' in candidate)
    throw new SealgateError(candidate.code as Exclude<DecisionCode, 'ALLOW'>, [candidate.finding]);
  const audit = await auditReview({ repo, policy, now, freeze: candidate });
  if (audit.code !== 'ALLOW')
    throw new SealgateError(
      audit.code,
      audit.findings.filter((f) => f.code === audit.code),
    );
  writeFileAtomic(layoutPath(repo, 'freeze'), toJsonText(candidate));
  return { freeze: candidate, audit };
}

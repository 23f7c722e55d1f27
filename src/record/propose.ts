import * as v from 'valibot';
import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { crypto } from '../core/builtins.js';
import { checkSchema } from '../core/document.js';
import { SealgateError, inputInvalid, type Finding } from '../core/errors.js';
import { identifier, instantText, jobId, sha256 } from '../core/fields.js';
import { fileExists, readBoundedFile, writeFileAtomic } from '../core/io.js';
import { parseStrictJson, toJsonText } from '../core/json.js';
import { sameJob, sha256Hex, digestsEqual } from '../core/ids.js';
import { layoutPath } from '../core/layout.js';
import { decodeStrictUtf8 } from '../core/text.js';
import { fail, ok, type Result } from '../core/result.js';
import { parseGitPatch } from '../diff/parse.js';
import { resolveInRepo } from '../core/io.js';
import type { ProposalRecord } from './schema.js';

/** One line of review/proposals.jsonl: every proposal id ever recorded in this review folder. */
export const LedgerEntrySchema = v.strictObject({
  proposal_id: identifier,
  patch_sha256: sha256,
  author_job: jobId,
  runner_job: jobId,
  at: instantText,
});
export type LedgerEntry = v.InferOutput<typeof LedgerEntrySchema>;

export interface ProposalRequest {
  readonly proposalId: string;
  readonly authorJob: string;
  readonly runnerJob: string;
  /** POSIX path of the patch, relative to the repository root. */
  readonly patchPath: string;
  readonly patchSha256: string;
  /** The full commit id the patch applies to. */
  readonly baseCommit: string;
  readonly at: string;
}

export type ProposalOutcome =
  | { readonly kind: 'new'; readonly record: ProposalRecord; readonly entry: LedgerEntry }
  | { readonly kind: 'rerun'; readonly record: ProposalRecord; readonly entry: LedgerEntry }
  | { readonly kind: 'unchanged'; readonly record: ProposalRecord };

const LEDGER = 'review/proposals.jsonl';

/** Proposal ids: the spec's shape (p-2026-10-12-014) or any identifier without whitespace or slashes. */
export const PROPOSAL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$/;

/** A fresh proposal id: the review date and 48 random bits, e.g. p-2026-10-12-3fa94c0d21b7. */
export function newProposalId(now: Date, random: Uint8Array = crypto().randomBytes(6)): string {
  return `p-${now.toISOString().slice(0, 10)}-${Buffer.from(random).toString('hex')}`;
}

/**
 * The rule for recording a proposal, pure. Both jobs must be distinct (shared identity
 * voids every artifact). A proposal id is bound to its patch bytes and its author for
 * life: other bytes under a known id are refused (a follow-up edit needs a new id). The
 * same id and bytes with a new runner job is a rerun: the record starts open again.
 */
export function checkProposal(
  req: ProposalRequest,
  ledger: readonly LedgerEntry[],
  current: ProposalRecord | null,
): Result<ProposalOutcome> {
  if (sameJob(req.authorJob, req.runnerJob)) {
    return fail([
      {
        code: 'E_SHARED_JOB',
        path: 'argv',
        detail: `--author-job and --runner-job are the same job ("${req.authorJob}"); allocate a separate runner job`,
      },
    ]);
  }
  const findings: Finding[] = [];
  const known = ledger.filter((e) => e.proposal_id === req.proposalId);
  if (current !== null && current.proposal_id === req.proposalId && current.patch_sha256 !== undefined) {
    known.push({
      proposal_id: current.proposal_id,
      patch_sha256: current.patch_sha256,
      author_job: current.author_job || req.authorJob,
      runner_job: current.runner_job || req.runnerJob,
      at: req.at,
    });
  }
  for (const e of known) {
    if (!digestsEqual(e.patch_sha256, req.patchSha256)) {
      findings.push({
        code: 'E_INPUT_INVALID',
        path: LEDGER,
        detail: `proposal id "${req.proposalId}" was recorded for other patch bytes (sha256 ${e.patch_sha256}); a follow-up edit needs a new proposal id`,
      });
      break;
    }
    if (!sameJob(e.author_job, req.authorJob)) {
      findings.push({
        code: 'E_INPUT_INVALID',
        path: LEDGER,
        detail: `proposal id "${req.proposalId}" belongs to author job "${e.author_job}", not "${req.authorJob}"`,
      });
      break;
    }
  }
  if (findings.length > 0) return fail(findings);
  const record: ProposalRecord = {
    proposal_id: req.proposalId,
    author_job: req.authorJob,
    runner_job: req.runnerJob,
    patch_path: req.patchPath,
    patch_sha256: req.patchSha256,
    base_commit: req.baseCommit,
    digest_status: 'open',
    logs_present: false,
    logs_after_seal: false,
    log_visibility: 'hidden',
  };
  const entry: LedgerEntry = {
    proposal_id: req.proposalId,
    patch_sha256: req.patchSha256,
    author_job: req.authorJob,
    runner_job: req.runnerJob,
    at: req.at,
  };
  if (known.length === 0) return ok({ kind: 'new', record, entry });
  const same =
    current !== null &&
    current.proposal_id === req.proposalId &&
    current.runner_job !== undefined &&
    current.runner_job !== null &&
    current.runner_job !== '' &&
    sameJob(current.runner_job, req.runnerJob) &&
    current.base_commit === req.baseCommit;
  if (same && current !== null) return ok({ kind: 'unchanged', record: current });
  if (known.some((e) => sameJob(e.runner_job, req.runnerJob))) {
    return fail([
      {
        code: 'E_INPUT_INVALID',
        path: LEDGER,
        detail: `runner job "${req.runnerJob}" already ran proposal "${req.proposalId}"; a rerun needs a new runner job`,
      },
    ]);
  }
  return ok({ kind: 'rerun', record, entry });
}

/** Parse the ledger text: strict JSON lines, each newline-terminated. */
export function parseLedger(text: string): Result<LedgerEntry[]> {
  if (text === '') return ok([]);
  if (!text.endsWith('\n'))
    return fail([
      { code: 'E_INPUT_INVALID', path: LEDGER, detail: 'last line is not newline-terminated (truncated?)' },
    ]);
  if (text.includes('\r'))
    return fail([
      {
        code: 'E_INPUT_INVALID',
        path: LEDGER,
        detail: 'contains a carriage return (converted to CRLF?); sealgate writes LF only',
      },
    ]);
  const out: LedgerEntry[] = [];
  for (const [k, line] of text.slice(0, -1).split('\n').entries()) {
    let raw;
    try {
      raw = parseStrictJson(line);
    } catch (err) {
      return fail([
        { code: 'E_INPUT_INVALID', path: `${LEDGER}:${k + 1}`, detail: `not valid JSON: ${(err as Error).message}` },
      ]);
    }
    const r = checkSchema(LedgerEntrySchema, raw, `${LEDGER}:${k + 1}`);
    if (!r.ok) return r;
    out.push(r.value);
  }
  return ok(out);
}

export function readLedger(repo: string): LedgerEntry[] {
  const path = layoutPath(repo, 'proposals');
  if (!fileExists(path)) return [];
  const d = decodeStrictUtf8(readBoundedFile(path, 16 * 1024 * 1024, LEDGER));
  if ('problem' in d) throw inputInvalid(LEDGER, d.detail);
  const r = parseLedger(d.text);
  if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
  return r.value;
}

/** Read the patch the author names: inside the repository, a well-formed git patch. */
export function readPatchForProposal(repo: string, patch: string): { relPath: string; bytes: Buffer; sha256: string } {
  const full = resolveInRepo(repo, patch, '--patch');
  const rel = relative(realpathSync(resolve(repo)), full);
  const bytes = readBoundedFile(full, 256 * 1024 * 1024, '--patch');
  const parsed = parseGitPatch(bytes, '--patch');
  if (!parsed.ok) throw new SealgateError('E_INPUT_INVALID', parsed.findings);
  return { relPath: rel.split(sep).join('/'), bytes, sha256: sha256Hex(bytes) };
}

/** Write the record and append the ledger line (ledger first: an id is never lost). */
export function writeProposal(repo: string, outcome: ProposalOutcome): void {
  if (outcome.kind === 'unchanged') return;
  const recordPath = layoutPath(repo, 'record');
  mkdirSync(dirname(recordPath), { recursive: true });
  const ledgerPath = layoutPath(repo, 'proposals');
  const before = fileExists(ledgerPath) ? readBoundedFile(ledgerPath, 16 * 1024 * 1024, LEDGER) : Buffer.alloc(0);
  writeFileAtomic(ledgerPath, Buffer.concat([before, Buffer.from(JSON.stringify(outcome.entry) + '\n')]));
  writeFileAtomic(recordPath, toJsonText(outcome.record));
}

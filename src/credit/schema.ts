import * as v from 'valibot';
import { digestHex, identifier, jobId, sha256, uniqueStrings } from '../core/fields.js';

/** Per-symbol evidence the runner records beside the spec's fields. */
export const EvidenceSchema = v.strictObject({
  status: v.picklist(['credited', 'credited-by-probe', 'missing']),
  killed: v.array(v.strictObject({ test: identifier, mutant: identifier })),
  reached: v.array(identifier),
  insensitive: v.array(identifier),
  tautologies: v.array(identifier),
  reason: v.optional(v.string()),
});

/** The credit file (spec section 4), written by the runner. JSON only. */
export const CreditSchema = v.strictObject({
  credit_id: identifier,
  digest: digestHex,
  credited: uniqueStrings(identifier, 'credited symbols'),
  test_ids: uniqueStrings(identifier, 'test ids'),
  missing: uniqueStrings(identifier, 'missing symbols'),
  tautologies: uniqueStrings(identifier, 'tautologies'),
  pass: v.boolean('must be a JSON boolean (true or false, unquoted)'),
  runner_job: v.optional(jobId),
  proposal_id: v.optional(identifier),
  patch_sha256: v.optional(sha256),
  changed: v.optional(uniqueStrings(identifier, 'changed symbols')),
  uncreditable: v.optional(uniqueStrings(identifier, 'uncreditable files')),
  evidence: v.optional(v.record(identifier, EvidenceSchema)),
});

export type Credit = v.InferOutput<typeof CreditSchema>;

import * as v from 'valibot';
import { digestHex, identifier, maybeJobId, nonEmpty, sha256 } from '../core/fields.js';

/**
 * The proposal record (spec section 1). JSON or YAML. The spec's fields are required.
 * `digest` (written by seal) and `patch_sha256` (written by propose) may be absent while
 * a proposal is open, but the gate allows nothing without them: a record cut short
 * before them, like one that never had them, binds nothing.
 */
export const RecordSchema = v.strictObject({
  proposal_id: identifier,
  author_job: maybeJobId,
  runner_job: maybeJobId,
  patch_path: nonEmpty,
  digest_status: v.picklist(['sealed', 'open'], 'must be "sealed" or "open"'),
  logs_present: v.boolean('must be a JSON boolean (true or false, unquoted)'),
  logs_after_seal: v.boolean('must be a JSON boolean (true or false, unquoted)'),
  log_visibility: v.picklist(['hidden', 'published'], 'must be "hidden" or "published"'),
  digest: v.optional(digestHex),
  patch_sha256: v.optional(sha256),
});

export type ProposalRecord = v.InferOutput<typeof RecordSchema>;

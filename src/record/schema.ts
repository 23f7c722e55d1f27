import * as v from 'valibot';
import { digestHex, identifier, maybeJobId, nonEmpty, sha256 } from '../core/fields.js';

/**
 * The proposal record (spec section 1). JSON or YAML. Every field the rules read is
 * required, so a record cut short at a line boundary loses a required field; the two
 * optional fields only add checks (the gate hashes the patch and reads digest.txt itself).
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

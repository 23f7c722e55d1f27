import * as v from 'valibot';
import { digestHex, gitObjectId, identifier, maybeJobId, nonEmpty, sha256 } from '../core/fields.js';

/**
 * The proposal record (spec section 1). JSON or YAML. The spec's fields are required.
 * `digest` (written by seal), `patch_sha256` and `base_commit` (written by propose) may be
 * absent while a proposal is open, but the gate allows nothing without them: a record cut
 * short before them, like one that never had them, binds nothing (E_CREDIT_UNBOUND).
 * `base_commit` is the full commit id the patch applies to: the runner builds its tree
 * from it and the patch, and reads the policy there.
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
  base_commit: v.optional(gitObjectId),
});

export type ProposalRecord = v.InferOutput<typeof RecordSchema>;

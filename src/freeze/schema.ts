import * as v from 'valibot';
import { digestHex, identifier, instantText, jobId } from '../core/fields.js';

/** A flake freeze (spec section 5). JSON only; every field required. */
export const FreezeSchema = v.strictObject({
  freeze_id: identifier,
  author_job: jobId,
  runner_job: jobId,
  runner_digest: digestHex,
  credit_id: identifier,
  test_id: identifier,
  expires_at: instantText,
});

export type Freeze = v.InferOutput<typeof FreezeSchema>;

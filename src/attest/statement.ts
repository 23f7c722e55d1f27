import * as v from 'valibot';
import { FreezeSchema } from '../freeze/schema.js';
import { digestHex, identifier, jobId, nonEmpty, sha256 } from '../core/fields.js';

// eslint-disable-next-line no-control-regex
const UNSAFE_NAME_CHARACTER = /[\u0000-\u001f\u007f\\]/;

/** in-toto Statement v1 (github.com/in-toto/attestation, spec/v1) with sealgate's two predicates. */

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The runner's evidence: what was run, on what, by which job. */
export const RUNNER_PREDICATE_TYPE = 'urn:sealgate:predicate:runner:v1';
/** A reviewer's flake freeze, bound to the runner's attestation. */
export const FREEZE_PREDICATE_TYPE = 'urn:sealgate:predicate:freeze:v1';

/** A subject: a repository-relative POSIX path (no `..`, no leading `/`) and the SHA-256 of its bytes. */
export const SubjectSchema = v.strictObject({
  name: v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(4096, 'longer than 4096 characters'),
    v.check(
      (s) =>
        !UNSAFE_NAME_CHARACTER.test(s) &&
        !s.startsWith('/') &&
        s.split('/').every((p) => p !== '' && p !== '.' && p !== '..'),
      'must be a relative POSIX path inside the repository',
    ),
  ),
  digest: v.strictObject({ sha256 }),
});
export type Subject = v.InferOutput<typeof SubjectSchema>;

const subjects = v.pipe(
  v.array(SubjectSchema),
  v.minLength(1, 'a statement names at least one subject'),
  v.check((a) => new Set(a.map((s) => s.name)).size === a.length, 'subject names must not repeat'),
);

const gitObjectId = v.pipe(
  v.string(),
  v.regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'expected a full git object id (40 or 64 lowercase hex digits)'),
);

/**
 * The runner predicate. Fields the evidence does not hold yet (base commit, tree id,
 * policy digest, sandbox) are optional; when present, verify compares them with the files.
 */
export const RunnerPredicateSchema = v.strictObject({
  runner_job: jobId,
  author_job: jobId,
  proposal_id: identifier,
  /** The sealed fixture digest (digest.txt). */
  digest: digestHex,
  /** SHA-256 of the patch bytes (also a subject; here so the predicate reads alone). */
  patch_sha256: sha256,
  /** null when the runner wrote no credit file. */
  credit_id: v.nullable(identifier),
  base_commit: v.optional(gitObjectId),
  tree_id: v.optional(gitObjectId),
  /** The SHA-256 of the policy bytes, or "default" (the policy= line of inputs.sha256). */
  policy_digest: v.optional(
    v.pipe(v.string(), v.regex(/^(?:[0-9a-f]{64}|default)$/, 'expected 64 lowercase hex digits or "default"')),
  ),
  sandbox: v.optional(nonEmpty),
  /** The test command the runner ran (from the policy), or null when it ran none. */
  test_command: v.nullable(v.array(nonEmpty)),
  sealgate_version: nonEmpty,
});
export type RunnerPredicate = v.InferOutput<typeof RunnerPredicateSchema>;

export const FreezePredicateSchema = v.strictObject({
  // The freeze's own fields (spec section 5), then what binds it to this proposal's evidence.
  ...FreezeSchema.entries,
  proposal_id: identifier,
  /** SHA-256 of the runner's attestation envelope bytes: the freeze vouches for that evidence only. */
  runner_attestation_sha256: sha256,
  sealgate_version: nonEmpty,
});
export type FreezePredicate = v.InferOutput<typeof FreezePredicateSchema>;

/** An in-toto Statement v1 whose predicate has the given type and schema. */
const statementSchema = <T extends string, P extends v.GenericSchema>(predicateType: T, predicate: P) =>
  v.strictObject({
    _type: v.literal(STATEMENT_TYPE, `_type must be "${STATEMENT_TYPE}"`),
    subject: subjects,
    predicateType: v.literal(predicateType, `predicateType must be "${predicateType}"`),
    predicate,
  });

export const RunnerStatementSchema = statementSchema(RUNNER_PREDICATE_TYPE, RunnerPredicateSchema);
export type RunnerStatement = v.InferOutput<typeof RunnerStatementSchema>;

export const FreezeStatementSchema = statementSchema(FREEZE_PREDICATE_TYPE, FreezePredicateSchema);
export type FreezeStatement = v.InferOutput<typeof FreezeStatementSchema>;

/** Subjects sorted by name (byte order), so the same evidence gives the same statement. */
export function sortSubjects(list: readonly Subject[]): Subject[] {
  return [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function toRunnerStatement(subject: readonly Subject[], predicate: RunnerPredicate): RunnerStatement {
  return { _type: STATEMENT_TYPE, subject: sortSubjects(subject), predicateType: RUNNER_PREDICATE_TYPE, predicate };
}

export function toFreezeStatement(subject: readonly Subject[], predicate: FreezePredicate): FreezeStatement {
  return { _type: STATEMENT_TYPE, subject: sortSubjects(subject), predicateType: FREEZE_PREDICATE_TYPE, predicate };
}

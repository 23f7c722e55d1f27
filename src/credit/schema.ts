import * as v from 'valibot';
import { SANDBOX_KINDS } from '../config/schema.js';
import { digestHex, gitObjectId, identifier, jobId, sha256, uniqueStrings } from '../core/fields.js';

/** One mutant's outcome, as the runner observed it. */
export const MutantEvidenceSchema = v.strictObject({
  id: identifier,
  kind: v.picklist(['probe', 'behavioural']),
  /** What the mutant changes, e.g. `a + b -> a - b` at line 12. */
  description: v.string(),
  /** killed: a reaching test that passed on the baseline failed. survived: none did. timeout / crash: never a kill. */
  outcome: v.picklist(['killed', 'survived', 'timeout', 'crash']),
  killed_by: uniqueStrings(identifier, 'killing tests'),
});

/** Per-symbol evidence the runner records beside the spec's fields. */
export const EvidenceSchema = v.strictObject({
  status: v.picklist(['credited', 'credited-by-probe', 'missing']),
  killed: v.array(v.strictObject({ test: identifier, mutant: identifier })),
  reached: v.array(identifier),
  insensitive: v.array(identifier),
  tautologies: v.array(identifier),
  reason: v.optional(v.string()),
  mutants: v.optional(v.array(MutantEvidenceSchema)),
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
  /** The base commit and the runner's tree id the credit was scored on. */
  base_commit: v.optional(gitObjectId),
  tree: v.optional(gitObjectId),
  /** SHA-256 of the sealed run's results.json the credit was scored on: the gate checks the same bytes show every test passing. */
  results_sha256: v.optional(sha256),
  /** JUnit cases no test file of the tree defines: they earn nothing. */
  undefined_tests: v.optional(uniqueStrings(identifier, 'undefined tests')),
  changed: v.optional(uniqueStrings(identifier, 'changed symbols')),
  uncreditable: v.optional(uniqueStrings(identifier, 'uncreditable files')),
  evidence: v.optional(v.record(identifier, EvidenceSchema)),
  /** The isolation of the runs that scored it: "bwrap", or "none" where the policy allows it. */
  sandbox: v.optional(v.picklist(SANDBOX_KINDS, 'must be "bwrap" or "none"')),
});

export type Credit = v.InferOutput<typeof CreditSchema>;
export type Evidence = v.InferOutput<typeof EvidenceSchema>;
export type MutantEvidence = v.InferOutput<typeof MutantEvidenceSchema>;

/** One case of the spec's case file: what a runner observed for one test on one digest. */
export const CaseSchema = v.strictObject({
  id: identifier,
  digest: digestHex,
  kind: v.picklist(['property', 'tautology'], 'must be "property" or "tautology"'),
  status: v.picklist(['passed', 'failed', 'error', 'skipped'], 'must be "passed", "failed", "error" or "skipped"'),
  symbols: uniqueStrings(identifier, 'symbols'),
  /** Which static rule made the case a tautology (sealgate's own case files). */
  rule: v.optional(identifier),
});

/**
 * The case file (spec section 4's suggested shape, plus what sealgate's runner adds).
 * Case ids must not repeat: a second copy of a case is how a failed run could be
 * shadowed by a passed one.
 */
export const CaseFileSchema = v.pipe(
  v.strictObject({
    changed: uniqueStrings(identifier, 'changed symbols'),
    cases: v.array(CaseSchema),
    uncreditable: v.optional(uniqueStrings(identifier, 'uncreditable files')),
    digest: v.optional(digestHex),
    runner_job: v.optional(jobId),
    /** The isolation of the runs that observed the cases. */
    sandbox: v.optional(v.picklist(SANDBOX_KINDS, 'must be "bwrap" or "none"')),
  }),
  v.check((f) => new Set(f.cases.map((c) => c.id)).size === f.cases.length, 'case ids must not repeat'),
);

export type Case = v.InferOutput<typeof CaseSchema>;
export type CaseFile = v.InferOutput<typeof CaseFileSchema>;

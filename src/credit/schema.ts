// The schemas of credit.json and cases.json: what the credit step writes and the gate reads.
import * as v from 'valibot';
import { SANDBOX_KINDS } from '../config/schema.js';
import { digestHex, gitObjectId, identifier, jobId, sha256, uniqueStrings } from '../core/fields.js';

/** One mutant's outcome, as the runner observed it. */
const MUTANT_KINDS = ['probe', 'behavioural', 'revert', 'null'] as const;

export const MutantEvidenceSchema = v.strictObject({
  id: identifier,
  /** probe: throws on entry. behavioural: a change on the patch's own tokens. revert: the base version put back. null: bytes changed, behaviour kept (one per symbol, every null change at once). */
  kind: v.picklist(MUTANT_KINDS),
  /** What the mutant changes, e.g. `a + b -> a - b` at line 12. */
  description: v.string(),
  /**
   * killed: a reaching test that passed on the baseline failed. survived: none did, and it ran
   * against every test that reaches the symbol. partial: none did, but it ran only against
   * `ran_against` (the others had already failed on another mutant, or the run did not report
   * them). timeout / crash: never a kill.
   */
  outcome: v.picklist(['killed', 'survived', 'partial', 'timeout', 'crash']),
  killed_by: uniqueStrings(identifier, 'killing tests'),
  /** The tests it ran against, when not every reaching test. */
  ran_against: v.optional(uniqueStrings(identifier, 'tests')),
});

/** Whether the tests tell the patched symbol from its base version. */
export const RevertEvidenceSchema = v.strictObject({
  /** killed: a test that earns credit failed on the base version. survived: every reaching test ran on it and passed. partial: none failed, but not every reaching test ran (`ran_against`). invalid: it does not parse, compile or type-check in the patched tree (not run). none: no revert (an added symbol, or see detail). */
  outcome: v.picklist(['killed', 'survived', 'partial', 'timeout', 'crash', 'not-run', 'invalid', 'none']),
  killed_by: uniqueStrings(identifier, 'killing tests'),
  detail: v.optional(v.string()),
  /** partial: the tests it ran against (not every reaching test ran; none of these failed). */
  ran_against: v.optional(uniqueStrings(identifier, 'tests')),
});

/** Per-symbol evidence the runner records beside the spec's fields. */
export const EvidenceSchema = v.strictObject({
  status: v.picklist(['credited', 'credited-by-probe', 'missing']),
  /** added: the symbol is new; modified: it has a base version. */
  change: v.optional(v.picklist(['added', 'modified'])),
  /** Kills that earn credit (tautologies and sensitive tests left out), with the kind of mutant. */
  killed: v.array(v.strictObject({ test: identifier, mutant: identifier, kind: v.optional(v.picklist(MUTANT_KINDS)) })),
  /** The kill behind the credit: a revert kill when there is one. */
  credited_by: v.optional(v.strictObject({ test: identifier, mutant: identifier, kind: v.picklist(MUTANT_KINDS) })),
  revert: v.optional(RevertEvidenceSchema),
  /** Tests that failed an unmutated control or the symbol's null mutant: they tell sources or environments apart, and earn nothing for the symbol. */
  sensitive: v.optional(v.array(v.strictObject({ test: identifier, reason: v.string() }))),
  reached: v.array(identifier),
  /** How `reached` was found: `probe` (the tests that failed when the symbol threw on entry) or `trace` (the pytest tests the trace run saw enter it, each by its node id). */
  reached_by: v.optional(v.picklist(['probe', 'trace'])),
  /** Tests that reached it and failed on none of the mutants that ran (see `untried`). */
  insensitive: v.array(identifier),
  tautologies: v.array(identifier),
  /** Behavioural mutants not run: the credit was settled (or every reaching test had failed) before them. */
  untried: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  reason: v.optional(v.string()),
  mutants: v.optional(v.array(MutantEvidenceSchema)),
  /** Mutants left out before running because they do not parse, compile or type-check (another took each one's place). */
  discarded: v.optional(v.array(v.strictObject({ mutant: identifier, reason: v.string() }))),
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
  /** The policy the credit was scored under (credit.require). */
  require: v.optional(v.picklist(['change', 'revert'])),
});

export type Credit = v.InferOutput<typeof CreditSchema>;
export type Evidence = v.InferOutput<typeof EvidenceSchema>;
export type MutantEvidence = v.InferOutput<typeof MutantEvidenceSchema>;
export type RevertEvidence = v.InferOutput<typeof RevertEvidenceSchema>;

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

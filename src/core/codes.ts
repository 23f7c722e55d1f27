/** The one registry of decision codes: every code sealgate can print, with its meaning. */

export const DECISION_CODES = [
  'ALLOW',
  'E_SHARED_JOB',
  'E_JOB_MISSING',
  'E_POLICY_CHANGED',
  'E_EMPTY_DIFF',
  'E_TEST_ONLY',
  'E_DIGEST_OPEN',
  'E_LOGS_EARLY',
  'E_SANDBOX_UNAVAILABLE',
  'E_CREDIT_UNBOUND',
  'E_CREDIT_MISSING',
  'E_FREEZE_UNBOUND',
  'E_FREEZE_COVERS_CREDIT',
  'E_FREEZE_EXPIRED',
  'E_TESTS_FAILED',
  'E_SIGNATURE_INVALID',
  'E_INPUT_INVALID',
  'E_INTERNAL',
] as const;

export type DecisionCode = (typeof DECISION_CODES)[number];
export type RejectCode = Exclude<DecisionCode, 'ALLOW'>;

export interface CodeInfo {
  /** One line: when the code is given. */
  readonly condition: string;
  /** The spec's "required next step" column (or ours, for codes the spec lacks). */
  readonly nextStep: string;
  /** Process exit status when this code is the result. */
  readonly exit: 0 | 1 | 2 | 3;
  /** Where the spec's merge table or text names the rule; '' for codes sealgate adds. */
  readonly spec: string;
}

/** Exit status for usage errors (bad command-line arguments); the printed code is E_INPUT_INVALID. */
export const USAGE_EXIT = 2;

export const CODE_INFO = {
  ALLOW: {
    condition:
      'Properties pass on a sealed digest, credit is bound, and any freeze is bound, unexpired and from a third job.',
    nextStep: 'Open a human review (ALLOW is not an auto-merge).',
    exit: 0,
    spec: 'Merge rule, rows 5 and 6',
  },
  E_SHARED_JOB: {
    condition: 'Author and runner ids match, or a freeze was written by the author or the runner job.',
    nextStep: 'New runner job.',
    exit: 1,
    spec: 'Merge rule, last row; section 1',
  },
  E_JOB_MISSING: {
    condition: 'Either job id is empty or absent.',
    nextStep: 'Fill both ids.',
    exit: 1,
    spec: 'Stable reject codes',
  },
  E_POLICY_CHANGED: {
    condition:
      'The patch adds, changes, renames or deletes a file that configures the gate or how tests are found and run (the policy surface), or the test section of a mixed file such as package.json.',
    nextStep: "A human lands that change on the base branch first; an agent's proposal cannot change how it is graded.",
    exit: 1,
    spec: 'Section 4, "the author job does not get to mark a symbol covered" (no code in the spec)',
  },
  E_EMPTY_DIFF: {
    condition: 'The patch changes nothing.',
    nextStep: 'Propose a patch that changes something.',
    exit: 1,
    spec: 'Merge rule, row 1 (no code in the spec)',
  },
  E_TEST_ONLY: {
    condition: 'Every changed file is a test or fixture file.',
    nextStep: 'Change production code, or review test-only changes outside this gate.',
    exit: 1,
    spec: 'Merge rule, row 2 (no code in the spec)',
  },
  E_DIGEST_OPEN: {
    condition: 'The digest status is not sealed, or the sealed bytes have drifted.',
    nextStep: 'Seal, then rerun.',
    exit: 1,
    spec: 'Merge rule, row 4; section 2',
  },
  E_LOGS_EARLY: {
    condition: 'Logs exist without a sealed status, or were written before the seal.',
    nextStep: 'Discard logs.',
    exit: 1,
    spec: 'Section 3',
  },
  E_SANDBOX_UNAVAILABLE: {
    condition:
      'No usable sandbox for the test runs (bubblewrap missing, user namespaces disabled), or the evidence records an unsandboxed run the base policy did not allow.',
    nextStep:
      'Install bubblewrap and enable unprivileged user namespaces (sysctls kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, kernel.apparmor_restrict_unprivileged_userns=0), then run and score again; or allow unsandboxed runs with sandbox: "none" in the base policy.',
    exit: 1,
    spec: 'Section 3: a free server is a trust boundary (no code in the spec)',
  },
  E_CREDIT_UNBOUND: {
    condition: 'The credit file is not bound to this proposal: digest, runner job, proposal id or patch hash differ.',
    nextStep: 'Rerun the runner on this proposal and its sealed digest.',
    exit: 1,
    spec: 'Section 4 (no code in the spec)',
  },
  E_CREDIT_MISSING: {
    condition: 'No property run, or a changed symbol lacks a real (non-tautological) passing property.',
    nextStep: 'Add a property and reseal.',
    exit: 1,
    spec: 'Merge rule, row 3; section 4',
  },
  E_FREEZE_UNBOUND: {
    condition: "The freeze's digest, credit id or runner job differs from the credit and record.",
    nextStep: 'Drop the freeze.',
    exit: 1,
    spec: 'Merge rule, row 7; section 5',
  },
  E_FREEZE_COVERS_CREDIT: {
    condition: 'The freeze names a credit-bearing test.',
    nextStep: 'Narrow the waiver.',
    exit: 1,
    spec: 'Section 5',
  },
  E_FREEZE_EXPIRED: {
    condition: 'The freeze expiry is not later than the review clock.',
    nextStep: 'New digest, new waiver.',
    exit: 1,
    spec: 'Section 5',
  },
  E_TESTS_FAILED: {
    condition:
      'A case of the sealed run failed (or errored) without a valid freeze waiving it, the run did not finish cleanly, it ran no test case at all, or its results are not bound to the credit.',
    nextStep:
      'Fix the failing test in a new proposal, or have a reviewer file a freeze for a noisy test that bears no credit.',
    exit: 1,
    spec: 'Section 5, "a freeze is optional; omit it when the required tests passed" (no code in the spec)',
  },
  E_SIGNATURE_INVALID: {
    condition:
      'The policy trusts keys and the evidence or freeze is unsigned, signed by an untrusted or wrong-role key, or not over the bytes judged (a file changed, added or removed, or another proposal, job or digest).',
    nextStep:
      "Rerun the runner (or refile the freeze) with the role's trusted key; never edit evidence after it is signed.",
    exit: 1,
    spec: 'Section 1: which job wrote digest.status (no code in the spec)',
  },
  E_INPUT_INVALID: {
    condition:
      'A file is missing, unreadable, truncated, not the declared format, or fails its schema; or the arguments are bad.',
    nextStep: 'Fix the named file or argument.',
    exit: 1,
    spec: '',
  },
  E_INTERNAL: {
    condition: 'An unexpected error inside sealgate.',
    nextStep: 'Report a bug; treat the patch as rejected.',
    exit: 3,
    spec: '',
  },
} as const satisfies Record<DecisionCode, CodeInfo>;

const CODE_SET: ReadonlySet<string> = new Set(DECISION_CODES);

export function isDecisionCode(value: unknown): value is DecisionCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/** Unknown codes map to reject: anything that is not a known code becomes E_INTERNAL. */
export function toDecisionCode(value: unknown): DecisionCode {
  return isDecisionCode(value) ? value : 'E_INTERNAL';
}

export function exitStatusOf(code: DecisionCode): number {
  return CODE_INFO[code].exit;
}

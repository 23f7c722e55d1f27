import type { DecisionCode, RejectCode } from '../core/codes.js';
import type { Finding } from '../core/errors.js';
import { digestsEqual, sameJob } from '../core/ids.js';
import { compareInstants, parseInstant, isInstant, type Instant } from '../core/time.js';
import type { SandboxKind } from '../config/schema.js';
import type { Credit } from '../credit/schema.js';
import type { FileClass } from '../diff/classify.js';
import type { Freeze } from '../freeze/schema.js';
import type { ProposalRecord } from '../record/schema.js';
import type { Results } from '../runner/results.js';

/** Everything the decision reads, already parsed and schema-checked. No I/O below this line. */
export interface GateInputs {
  readonly record: ProposalRecord;
  /** The patch's files with their classes; empty when the patch changes nothing. */
  readonly patchFiles: readonly { readonly path: string; readonly class: FileClass }[];
  /** SHA-256 of the patch bytes the gate read. */
  readonly patchSha256: string;
  /** What `checkPolicySurface` found: the patch touches the policy surface (E_POLICY_CHANGED). */
  readonly surface: readonly Finding[];
  /** null: no credit file (no property run). */
  readonly credit: Credit | null;
  readonly freeze: Freeze | null;
  /** The sealed run's results and the SHA-256 of their bytes; null: no results file. */
  readonly results: { readonly value: Results; readonly sha256: string } | null;
  /** What the runner's own files say, when present beside the record. */
  readonly runnerFiles: { readonly status: string | null; readonly digest: string | null };
  readonly now: Instant;
  /** The policy's isolation for test runs (default "bwrap"). */
  readonly sandbox?: SandboxKind;
}

export interface Decision {
  readonly code: DecisionCode;
  /** The finding that decided, or null for ALLOW. */
  readonly decisive: Finding | null;
  /** Every finding of every rule, in precedence order: the full account for --explain. */
  readonly findings: readonly Finding[];
}

type Rule = (x: GateInputs) => Finding[];

const f = (code: RejectCode, path: string, detail: string): Finding => ({ code, path, detail });

function checkJobs(x: GateInputs): Finding[] {
  const { author_job: author, runner_job: runner } = x.record;
  if (!author || !runner) {
    return [f('E_JOB_MISSING', 'record', `${!author ? 'author_job' : 'runner_job'} is empty or absent`)];
  }
  const out: Finding[] = [];
  if (sameJob(author, runner))
    out.push(f('E_SHARED_JOB', 'record', `author_job and runner_job are the same job ("${author}")`));
  if (x.freeze) {
    const fa = x.freeze.author_job;
    if (sameJob(fa, author))
      out.push(f('E_SHARED_JOB', 'freeze#author_job', `the freeze was written by the author job ("${fa}")`));
    else if (sameJob(fa, runner))
      out.push(f('E_SHARED_JOB', 'freeze#author_job', `the freeze was written by the runner job ("${fa}")`));
    if (sameJob(fa, x.freeze.runner_job))
      out.push(f('E_SHARED_JOB', 'freeze', 'the freeze names the same job as its author and its runner'));
  }
  return out;
}

/** The patch may not change how it is graded: computed by checkPolicySurface, reported here. */
function checkPolicy(x: GateInputs): Finding[] {
  return [...x.surface];
}

function checkEmpty(x: GateInputs): Finding[] {
  return x.patchFiles.length === 0 ? [f('E_EMPTY_DIFF', 'patch', 'the patch changes nothing')] : [];
}

function checkTestOnly(x: GateInputs): Finding[] {
  const prod = x.patchFiles.filter((p) => p.class === 'production' || p.class === 'other');
  if (prod.length > 0) return [];
  const tests = x.patchFiles.filter((p) => p.class === 'test').length;
  return [
    f(
      'E_TEST_ONLY',
      'patch',
      `no production file changes (${tests} test or fixture file(s), ${x.patchFiles.length - tests} ignored)`,
    ),
  ];
}

function checkCreditPresent(x: GateInputs): Finding[] {
  return x.credit === null
    ? [f('E_CREDIT_MISSING', 'credit', 'no credit file: production symbols changed but no property run was recorded')]
    : [];
}

function checkSealed(x: GateInputs): Finding[] {
  const out: Finding[] = [];
  if (x.record.digest_status !== 'sealed')
    out.push(f('E_DIGEST_OPEN', 'record#digest_status', `digest_status is "${x.record.digest_status}", not "sealed"`));
  const s = x.runnerFiles.status;
  if (s !== null && s !== 'sealed')
    out.push(f('E_DIGEST_OPEN', 'review/runner/digest.status', `the runner's status file says "${s}", not "sealed"`));
  return out;
}

function checkLogs(x: GateInputs): Finding[] {
  const r = x.record;
  if (r.logs_present && !r.logs_after_seal)
    return [f('E_LOGS_EARLY', 'record#logs_after_seal', 'logs exist that were written before the digest was sealed')];
  return [];
}

/** Credit scored by unsandboxed runs counts only where the policy allows them (sandbox: "none"). */
function checkIsolation(x: GateInputs): Finding[] {
  if (x.credit?.sandbox !== 'none' || x.sandbox === 'none') return [];
  return [
    f(
      'E_SANDBOX_UNAVAILABLE',
      'credit#sandbox',
      'the credit was scored by unsandboxed test runs, and the policy does not allow that (sandbox: "none")',
    ),
  ];
}

function checkCreditBound(x: GateInputs): Finding[] {
  const c = x.credit;
  if (!c) return [];
  const out: Finding[] = [];
  const r = x.record;
  // The record must bind both the sealed digest and the patch bytes: a record without them
  // (or one cut short before them) proves nothing about what the credit was scored on.
  if (r.digest === undefined)
    out.push(
      f('E_CREDIT_UNBOUND', 'record#digest', 'the record does not name the sealed digest (sealgate seal writes it)'),
    );
  else {
    if (!digestsEqual(c.digest, r.digest))
      out.push(
        f('E_CREDIT_UNBOUND', 'credit#digest', `credit digest ${c.digest} differs from the sealed digest ${r.digest}`),
      );
    if (x.runnerFiles.digest !== null && !digestsEqual(r.digest, x.runnerFiles.digest)) {
      out.push(
        f(
          'E_CREDIT_UNBOUND',
          'record#digest',
          `the record's digest ${r.digest} differs from review/runner/digest.txt (${x.runnerFiles.digest})`,
        ),
      );
    }
  }
  if (r.patch_sha256 === undefined)
    out.push(
      f(
        'E_CREDIT_UNBOUND',
        'record#patch_sha256',
        'the record does not bind the patch bytes (sealgate propose writes patch_sha256)',
      ),
    );
  else if (!digestsEqual(r.patch_sha256, x.patchSha256))
    out.push(f('E_CREDIT_UNBOUND', 'record#patch_sha256', 'the patch file changed after the proposal was recorded'));
  if (r.base_commit === undefined)
    out.push(
      f(
        'E_CREDIT_UNBOUND',
        'record#base_commit',
        'the record does not name the commit the patch applies to (sealgate propose writes base_commit); nothing says which tree was tested',
      ),
    );
  else if (c.base_commit !== undefined && c.base_commit !== r.base_commit)
    out.push(
      f(
        'E_CREDIT_UNBOUND',
        'credit#base_commit',
        `credit was scored on base ${c.base_commit}, not the record's ${r.base_commit}`,
      ),
    );
  if (c.runner_job !== undefined && r.runner_job && !sameJob(c.runner_job, r.runner_job)) {
    out.push(
      f(
        'E_CREDIT_UNBOUND',
        'credit#runner_job',
        `credit was written by "${c.runner_job}", not the record's runner "${r.runner_job}"`,
      ),
    );
  }
  if (c.proposal_id !== undefined && c.proposal_id !== r.proposal_id) {
    out.push(
      f('E_CREDIT_UNBOUND', 'credit#proposal_id', `credit is for proposal "${c.proposal_id}", not "${r.proposal_id}"`),
    );
  }
  if (c.patch_sha256 !== undefined && !digestsEqual(c.patch_sha256, x.patchSha256)) {
    out.push(
      f('E_CREDIT_UNBOUND', 'credit#patch_sha256', "credit was scored on other patch bytes than the record's patch"),
    );
  }
  const res = x.results;
  if (res !== null) {
    if (c.results_sha256 !== undefined && !digestsEqual(c.results_sha256, res.sha256)) {
      out.push(
        f(
          'E_CREDIT_UNBOUND',
          'credit#results_sha256',
          `the credit was scored on other results than the results file the gate read (sha256 ${res.sha256})`,
        ),
      );
    }
    if (!digestsEqual(res.value.digest, c.digest))
      out.push(
        f(
          'E_CREDIT_UNBOUND',
          'results#digest',
          `the results are from digest ${res.value.digest}, not the credit's ${c.digest}`,
        ),
      );
    if (r.runner_job && !sameJob(res.value.runner_job, r.runner_job))
      out.push(
        f(
          'E_CREDIT_UNBOUND',
          'results#runner_job',
          `the results were written by "${res.value.runner_job}", not the record's runner "${r.runner_job}"`,
        ),
      );
  }
  return out;
}

/** Credit passes only when its own fields agree that it does: `pass: true` alone is not believed. */
export function creditProblems(c: Credit): string[] {
  const out: string[] = [];
  if (!c.pass) out.push('pass is false');
  if (c.missing.length > 0) out.push(`missing: ${c.missing.join(', ')}`);
  if (c.credited.length === 0) out.push('no symbol is credited');
  if (c.test_ids.length === 0) out.push('no credit-bearing test is named');
  const credited = new Set(c.credited);
  const both = c.missing.filter((m) => credited.has(m));
  if (both.length > 0) out.push(`both credited and missing: ${both.join(', ')}`);
  const tests = new Set(c.test_ids);
  const tauto = c.tautologies.filter((t) => tests.has(t));
  if (tauto.length > 0) out.push(`tautologies also listed as credit-bearing: ${tauto.join(', ')}`);
  if (c.changed !== undefined) {
    const changed = new Set(c.changed);
    const extra = c.credited.filter((s) => !changed.has(s));
    if (extra.length > 0) out.push(`credited symbols that did not change: ${extra.join(', ')}`);
    const uncovered = c.changed.filter((s) => !credited.has(s));
    if (uncovered.length > 0) out.push(`changed symbols without credit: ${uncovered.join(', ')}`);
  }
  if (c.uncreditable !== undefined && c.uncreditable.length > 0)
    out.push(`uncreditable changed files: ${c.uncreditable.join(', ')}`);
  return out;
}

function checkCreditPass(x: GateInputs): Finding[] {
  if (!x.credit) return [];
  return creditProblems(x.credit).map((p) => f('E_CREDIT_MISSING', 'credit', p));
}

function checkFreeze(x: GateInputs): Finding[] {
  const z = x.freeze;
  const c = x.credit;
  if (!z || !c) return [];
  const out: Finding[] = [];
  if (!digestsEqual(z.runner_digest, c.digest))
    out.push(
      f(
        'E_FREEZE_UNBOUND',
        'freeze#runner_digest',
        `freeze digest ${z.runner_digest} differs from credit digest ${c.digest}`,
      ),
    );
  if (z.credit_id !== c.credit_id)
    out.push(f('E_FREEZE_UNBOUND', 'freeze#credit_id', `freeze cites credit "${z.credit_id}", not "${c.credit_id}"`));
  if (x.record.runner_job && !sameJob(z.runner_job, x.record.runner_job)) {
    out.push(
      f(
        'E_FREEZE_UNBOUND',
        'freeze#runner_job',
        `freeze cites runner "${z.runner_job}", not the record's "${x.record.runner_job}"`,
      ),
    );
  }
  if (c.test_ids.includes(z.test_id))
    out.push(f('E_FREEZE_COVERS_CREDIT', 'freeze#test_id', `"${z.test_id}" is a credit-bearing test`));
  const expiry = parseInstant(z.expires_at);
  if (!isInstant(expiry)) out.push(f('E_FREEZE_EXPIRED', 'freeze#expires_at', expiry.problem));
  else if (compareInstants(expiry, x.now) <= 0)
    out.push(f('E_FREEZE_EXPIRED', 'freeze#expires_at', `expired at ${z.expires_at} (now ${x.now.text})`));
  return out;
}

/**
 * Why the sealed run does not show the suite passing, pure: every case passed or was skipped,
 * except the one test a (valid) freeze waives; at least one case passed; the run finished on its
 * own with a readable JUnit report, and a non-zero exit is explained by a waived failure.
 */
export function checkSealedRun(results: Results, waived: string | null): Finding[] {
  const out: Finding[] = [];
  const bad = (path: string, detail: string): void => void out.push(f('E_TESTS_FAILED', `results${path}`, detail));
  if (results.timed_out) bad('#timed_out', 'the sealed run timed out');
  if (results.signal !== null) bad('#signal', `the sealed run was killed by ${results.signal}`);
  const unusable = results.junit.filter((j) => j.status !== 'ok');
  if (unusable.length > 0)
    bad('#junit', `JUnit report(s) ${unusable.map((j) => `${j.path} (${j.status})`).join(', ')} unusable`);
  if (results.cases.length === 0) bad('#cases', 'the sealed run holds no test case: nothing shows the suite passed');
  else if (!results.cases.some((c) => c.status === 'passed'))
    bad(
      '#cases',
      'no case of the sealed run passed (each was skipped, or is the waived one): nothing shows the suite passed',
    );
  const failing = results.cases.filter((c) => c.status === 'failed' || c.status === 'error');
  const unwaived = failing.filter((c) => c.id !== waived);
  if (unwaived.length > 0) {
    const names = unwaived
      .slice(0, 10)
      .map((c) => `"${c.id}" (${c.status})`)
      .join(', ');
    bad(
      '#cases',
      `${unwaived.length} sealed case(s) failed without a freeze: ${names}${unwaived.length > 10 ? `, and ${unwaived.length - 10} more` : ''}`,
    );
  }
  if (results.exit_code !== null && results.exit_code !== 0 && failing.length === 0)
    bad('#exit_code', `the test command exited ${results.exit_code} although no case failed`);
  return out;
}

/** ALLOW needs the sealed results, bound to the credit, to show every test passing but a frozen one. */
function checkTestsPassed(x: GateInputs): Finding[] {
  const c = x.credit;
  if (!c) return [];
  if (c.results_sha256 === undefined)
    return [
      f(
        'E_TESTS_FAILED',
        'credit#results_sha256',
        'the credit does not bind the sealed results (sealgate credit writes results_sha256), so nothing shows the tests passed',
      ),
    ];
  if (x.results === null)
    return [
      f(
        'E_TESTS_FAILED',
        'results',
        'no sealed results file (review/runner/results.json, or gate --results): nothing shows the tests passed',
      ),
    ];
  return checkSealedRun(x.results.value, x.freeze?.test_id ?? null);
}

/** The spec's precedence, first match wins. Input validity is settled before this runs. */
export const RULES: readonly Rule[] = [
  checkJobs,
  checkPolicy,
  checkEmpty,
  checkTestOnly,
  checkCreditPresent,
  checkSealed,
  checkLogs,
  checkIsolation,
  checkCreditBound,
  checkCreditPass,
  checkFreeze,
  checkTestsPassed,
];

/** The merge decision: pure, total, and ALLOW only when every rule is silent. */
export function decide(x: GateInputs): Decision {
  const findings: Finding[] = [];
  for (const rule of RULES) findings.push(...rule(x));
  const decisive = findings[0] ?? null;
  return { code: decisive ? decisive.code : 'ALLOW', decisive, findings };
}

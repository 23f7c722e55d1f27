import { CODE_INFO, type DecisionCode } from '../core/codes.js';
import type { Finding } from '../core/errors.js';
import { digestsEqual, sameJob } from '../core/ids.js';
import { compareInstants, isInstant, parseInstant } from '../core/time.js';
import { creditProblems } from '../gate/decide.js';
import type { Audit } from '../verify/audit.js';
import { lastLiveSeal } from '../verify/audit.js';
import type { Evidence } from '../credit/schema.js';

/**
 * The reviewer's report as data: the decision, then the spec's four questions answered
 * from the files. Pure; the text, Markdown and HTML renderers only format this.
 */
export interface ReviewReport {
  readonly now: string;
  /** How the sealed run ran: the test command (from the journal's run-start), and the policy digest and sandbox where the evidence records them. */
  readonly run: {
    readonly command: readonly string[] | null;
    readonly policyDigest: string | null;
    readonly sandbox: string | null;
  };
  readonly decision: {
    readonly code: DecisionCode;
    readonly exit: number;
    /** The merge-table row or spec section that produced the code. */
    readonly row: string;
    readonly condition: string;
    readonly nextStep: string | null;
    readonly decisive: Finding | null;
    readonly findings: readonly Finding[];
  };
  /** 1. Which job wrote the patch? */
  readonly patch: {
    readonly proposalId: string;
    readonly authorJob: string | null;
    readonly path: string;
    readonly sha256: string;
    readonly matchesRecord: boolean;
    readonly files: readonly { readonly path: string; readonly class: string }[];
  };
  /** 2. Which job wrote digest.status? */
  readonly seal: {
    readonly runnerJob: string | null;
    /** The runner job the journal's live seal names, or null when none. */
    readonly sealedBy: string | null;
    readonly sealedAt: string | null;
    readonly recordStatus: string;
    readonly fileStatus: string | null;
    readonly digest: string | null;
    readonly recomputed: string;
    readonly drift: readonly Finding[];
    readonly logs: { readonly present: boolean; readonly afterSeal: boolean; readonly visibility: string };
    /** What was tested: the base commit, the tree id sealed and the one verify rebuilt, the policy and its test command. */
    readonly baseCommit: string | null;
    readonly treeSealed: string | null;
    readonly treeRebuilt: string | null;
    readonly policyDigest: string;
    readonly policySource: string;
    readonly testCommand: readonly string[] | null;
  };
  /** 3. Which changed symbols have non-tautological credit on that digest? */
  readonly credit: null | {
    readonly creditId: string;
    readonly digest: string;
    readonly pass: boolean;
    readonly runnerJob: string | null;
    readonly recomputed: string;
    readonly problems: readonly string[];
  };
  readonly symbols: readonly SymbolRow[];
  readonly moved: readonly { readonly from: string; readonly to: string }[];
  readonly deleted: readonly string[];
  readonly typeOnly: readonly string[];
  readonly uncreditable: readonly string[];
  /** JUnit cases no test file of the tree defines: they earned nothing. */
  readonly undefinedTests: readonly string[];
  /** Test-path files production imports, classed production (with the importing file). */
  readonly importedTests: readonly { readonly path: string; readonly importedBy: string }[];
  readonly tautologies: readonly {
    readonly id: string;
    readonly rule: string | null;
    readonly symbols: readonly string[];
  }[];
  readonly insensitive: readonly { readonly test: string; readonly symbol: string }[];
  /** 4. Does a freeze cite that digest, a passing credit id, a different test and a future expiry? */
  readonly freeze: null | {
    readonly freezeId: string;
    readonly authorJob: string;
    readonly testId: string;
    readonly expiresAt: string;
    readonly checks: readonly FreezeCheck[];
  };
  /** `warn`: passed, but nothing was proven (the evidence is unsigned: no trust section), or the credit holds symbols credited though their revert survived (the default policy's flag). */
  readonly steps: readonly {
    readonly stage: string;
    readonly ok: boolean;
    readonly warn: boolean;
    readonly summary: string;
  }[];
  /** The isolation the project's code ran with: the sealed run (the journal's last run-start) and the credit step. */
  readonly isolation: {
    readonly run: string | null;
    readonly credit: string | null;
    /** The base policy allows unsandboxed runs (sandbox: "none"). */
    readonly noneAllowed: boolean;
  };
}

/** One line for a reviewer on how the tests were contained. */
export function isolationText(i: ReviewReport['isolation']): string {
  const say = (k: string | null): string =>
    k === null ? 'not recorded' : k === 'bwrap' ? 'sandboxed (bubblewrap)' : 'UNSANDBOXED';
  return `sealed run ${say(i.run)}, credit runs ${say(i.credit)}; policy: ${i.noneAllowed ? 'sandbox "none" allowed' : 'sandbox required'}`;
}

export interface SymbolRow {
  readonly id: string;
  readonly status: 'credited' | 'credited-by-probe' | 'missing';
  /** Credit-bearing tests for this symbol. */
  readonly tests: readonly string[];
  readonly killed: readonly { readonly test: string; readonly mutant: string }[];
  readonly reached: readonly string[];
  readonly insensitive: readonly string[];
  readonly tautologies: readonly string[];
  readonly reason: string | null;
  readonly location: string | null;
  /** The evidence that decided: the kill behind the credit (a revert kill when there is one), else the first kill, else null. */
  readonly decisive?: { readonly mutant: string; readonly test: string; readonly description: string | null } | null;
  /** A modified symbol's revert (its base version put back): did the tests tell the patch from the base? Null: not recorded. */
  readonly revert?: {
    readonly outcome: string;
    readonly killedBy: readonly string[];
    readonly detail: string | null;
  } | null;
}

/**
 * The revert's outcome in words for a reviewer. A credited symbol whose revert survived (or is
 * invalid: flaggedSymbols) is the flag of the default policy (credit.require "change"): its
 * tests pass on the base version too, so they check the code the patch touched but not what it
 * changed (a refactor, or an untested change).
 */
export function revertText(r: NonNullable<SymbolRow['revert']>): string {
  switch (r.outcome) {
    case 'killed':
      return `killed by ${r.killedBy[0] ?? '(a test)'}${r.killedBy.length > 1 ? ` and ${r.killedBy.length - 1} more` : ''}: the tests tell the patch from the base version`;
    case 'survived':
      return 'SURVIVED: every reaching test passes on the base version too (a refactor, or the change is untested)';
    case 'none':
      return `none${r.detail ? `: ${r.detail}` : ''}`;
    case 'invalid':
      return `INVALID${r.detail ? `: ${r.detail}` : ''}`;
    default:
      return `${r.outcome}${r.detail ? `: ${r.detail}` : ''}`;
  }
}

export interface FreezeCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly expected: string;
  readonly actual: string;
}

const uniq = (xs: readonly string[]): string[] => [...new Set(xs)];

/**
 * The default policy's flag: the symbols a credit credits though their revert survived (every
 * reaching test passes on the base version too: a refactor, or a change its tests do not check)
 * or could not run (invalid: the base version refers to a name the patch took away), so nothing
 * shows that their tests tell the patch from the base. A patch cannot shed the flag by making
 * its revert invalid.
 */
export function flaggedSymbols(credit: {
  readonly credited: readonly string[];
  readonly evidence?: Readonly<Record<string, Pick<Evidence, 'revert'>>> | undefined;
}): string[] {
  return credit.credited.filter((id) => revertShowsNothing(credit.evidence?.[id]?.revert?.outcome));
}

/** A revert outcome that shows nothing of what the tests check: it survived, or it could not run (invalid). */
export const revertShowsNothing = (outcome: string | undefined): boolean =>
  outcome === 'survived' || outcome === 'invalid';

/** The kill behind a symbol's credit (credited_by: a revert kill when there is one), else its first kill. */
function decisiveOf(ev: Evidence | undefined): NonNullable<SymbolRow['decisive']> | null {
  const k = ev?.credited_by ?? ev?.killed[0];
  if (ev === undefined || k === undefined) return null;
  return {
    mutant: k.mutant,
    test: k.test,
    description: ev.mutants?.find((m) => m.id === k.mutant)?.description ?? null,
  };
}

export function toReviewReport(a: Audit): ReviewReport {
  const x = a.inputs;
  const r = x.record;
  const c = x.credit;
  const z = x.freeze;
  const info = CODE_INFO[a.code];
  const sealedDigest = x.runnerFiles.digest ?? r.digest ?? null;
  const live = a.journal === null ? null : lastLiveSeal(a.journal);
  const step = (s: string) => a.steps.find((t) => t.stage === s);

  const changedIds = a.changed?.changed ?? c?.changed ?? uniq([...(c?.credited ?? []), ...(c?.missing ?? [])]);
  const credited = new Set(c?.credited ?? []);
  const symbols: SymbolRow[] = changedIds.map((id) => {
    const ev = c?.evidence?.[id];
    const fromCases = (a.cases?.cases ?? [])
      .filter(
        (k) =>
          k.kind === 'property' &&
          k.status === 'passed' &&
          sealedDigest !== null &&
          digestsEqual(k.digest, sealedDigest) &&
          k.symbols.includes(id),
      )
      .map((k) => k.id);
    const tests = ev ? uniq(ev.killed.map((k) => k.test)) : credited.has(id) ? fromCases : [];
    const loc = a.changed?.locations[id];
    return {
      id,
      status: ev?.status ?? (credited.has(id) ? 'credited' : 'missing'),
      tests,
      killed: ev?.killed ?? [],
      reached: ev?.reached ?? [],
      insensitive: ev?.insensitive ?? [],
      tautologies:
        ev?.tautologies ??
        (a.cases?.cases ?? []).filter((k) => k.kind === 'tautology' && k.symbols.includes(id)).map((k) => k.id),
      reason:
        ev?.reason ??
        (credited.has(id)
          ? null
          : c === null
            ? 'no property run'
            : 'no passing non-tautological test kills a mutant of it'),
      location: loc ? `${loc.path}:${loc.start_line}-${loc.end_line}` : null,
      decisive: decisiveOf(ev),
      revert: ev?.revert
        ? { outcome: ev.revert.outcome, killedBy: ev.revert.killed_by, detail: ev.revert.detail ?? null }
        : null,
    };
  });

  const flagged = c === null ? [] : flaggedSymbols(c);

  const tautologyIds = uniq([
    ...(c?.tautologies ?? []),
    ...(a.cases?.cases ?? []).filter((k) => k.kind === 'tautology').map((k) => k.id),
  ]);
  const tautologies = tautologyIds.map((id) => {
    const k = a.cases?.cases.find((cc) => cc.id === id);
    return { id, rule: k?.rule ?? null, symbols: k?.symbols ?? [] };
  });
  const insensitive = symbols.flatMap((s) => s.insensitive.map((t) => ({ test: t, symbol: s.id })));

  let freeze: ReviewReport['freeze'] = null;
  if (z) {
    const has = (pred: (f: Finding) => boolean): boolean => a.findings.some(pred);
    const expiry = parseInstant(z.expires_at);
    const future = isInstant(expiry) && compareInstants(expiry, x.now) > 0;
    const creditOk = c !== null && creditProblems(c).length === 0;
    const checks: FreezeCheck[] = [
      {
        name: 'cites the sealed digest',
        ok:
          c !== null &&
          sealedDigest !== null &&
          digestsEqual(z.runner_digest, c.digest) &&
          digestsEqual(z.runner_digest, sealedDigest),
        expected: sealedDigest ?? '(no sealed digest)',
        actual: z.runner_digest,
      },
      {
        name: 'cites a passing credit id',
        ok: c !== null && z.credit_id === c.credit_id && creditOk,
        expected: c ? `${c.credit_id} (pass ${String(creditOk)})` : '(no credit file)',
        actual: z.credit_id,
      },
      {
        name: "cites the record's runner job",
        ok: !!r.runner_job && sameJob(z.runner_job, r.runner_job),
        expected: r.runner_job || '(missing)',
        actual: z.runner_job,
      },
      {
        name: 'names a test that is not credit-bearing',
        ok: c !== null && !c.test_ids.includes(z.test_id),
        expected: `not one of: ${c?.test_ids.join(', ') || '(none)'}`,
        actual: z.test_id,
      },
      {
        name: 'expires after the review clock',
        ok: future,
        expected: `later than ${x.now.text}`,
        actual: z.expires_at,
      },
      {
        name: 'written by a third job',
        ok: !has((f) => f.path === 'freeze#author_job' || f.path === 'freeze'),
        expected: `neither ${r.author_job || '?'} nor ${r.runner_job || '?'}`,
        actual: z.author_job,
      },
    ];
    freeze = { freezeId: z.freeze_id, authorJob: z.author_job, testId: z.test_id, expiresAt: z.expires_at, checks };
  }

  const runStart =
    a.journal === null
      ? undefined
      : [...a.journal].reverse().find((ev) => ev.type === 'run-start' && (live === null || ev.digest === live.digest));
  const recorded = (k: string): string | null => {
    // Other stages may record these beside the run (policy digest, sandbox); shown when present.
    const v = runStart !== undefined ? (runStart as unknown as Record<string, unknown>)[k] : undefined;
    return typeof v === 'string' ? v : null;
  };
  return {
    now: x.now.text,
    run: {
      command: runStart?.type === 'run-start' ? runStart.command : null,
      policyDigest: recorded('policy_digest'),
      sandbox: recorded('sandbox'),
    },
    decision: {
      code: a.code,
      exit: info.exit,
      row: info.spec || 'sealgate rule (not in the spec table)',
      condition: info.condition,
      nextStep: a.code === 'ALLOW' ? null : info.nextStep,
      decisive: a.decisive,
      findings: a.findings,
    },
    patch: {
      proposalId: r.proposal_id,
      authorJob: r.author_job || null,
      path: r.patch_path,
      sha256: x.patchSha256,
      matchesRecord: r.patch_sha256 !== undefined && digestsEqual(r.patch_sha256, x.patchSha256),
      files: x.patchFiles.map((p) => ({ path: p.path, class: p.class })),
    },
    seal: {
      runnerJob: r.runner_job || null,
      sealedBy: live?.runner_job ?? null,
      sealedAt: live?.at ?? null,
      recordStatus: r.digest_status,
      fileStatus: x.runnerFiles.status,
      digest: sealedDigest,
      recomputed: step('seal')?.summary ?? '',
      drift: step('seal')?.findings ?? [],
      logs: { present: r.logs_present, afterSeal: r.logs_after_seal, visibility: r.log_visibility },
      baseCommit: r.base_commit ?? null,
      treeSealed: a.manifest?.tree ?? null,
      treeRebuilt: a.tree?.treeId ?? null,
      policyDigest: a.policy.digest,
      policySource: a.policy.source,
      testCommand: a.policy.testCommand,
    },
    credit: c
      ? {
          creditId: c.credit_id,
          digest: c.digest,
          pass: c.pass,
          runnerJob: c.runner_job ?? null,
          recomputed: step('credit')?.summary ?? '',
          problems: creditProblems(c),
        }
      : null,
    symbols,
    moved: a.changed?.moved ?? [],
    deleted: a.changed?.deleted ?? [],
    typeOnly: a.changed?.typeOnly ?? [],
    uncreditable: a.changed?.uncreditable ?? c?.uncreditable ?? [],
    undefinedTests: c?.undefined_tests ?? [],
    importedTests: (a.changed?.imported_tests ?? []).map((t) => ({ path: t.path, importedBy: t.imported_by })),
    tautologies,
    insensitive,
    freeze,
    steps: a.steps.map((s) => {
      // The default policy's flag: credited, yet nothing shows the tests tell the patch from the base.
      const flag =
        s.stage === 'credit' && s.findings.length === 0 && flagged.length > 0
          ? `; FLAGGED: ${flagged.length} credited symbol(s) whose revert survived (their tests pass on the base version too) or could not run: ${flagged.slice(0, FEW).join(', ')}${flagged.length > FEW ? ` and ${flagged.length - FEW} more` : ''}`
          : '';
      return {
        stage: s.stage,
        ok: s.findings.length === 0,
        warn: (s.stage === 'attest' && !a.signatures.checked) || flag !== '',
        summary: s.summary + flag,
      };
    }),
    isolation: {
      run: [...(a.journal ?? [])].reverse().find((e) => e.type === 'run-start')?.sandbox ?? null,
      credit: c?.sandbox ?? null,
      noneAllowed: x.sandbox === 'none',
    },
  };
}

/** How many names a concise report shows of a list; the rest is counted (all of it is in --format json). */
export const FEW = 3;

/** `a, b, c and 12 more`, or `(none)`. */
export function few(xs: readonly string[], n = FEW): string {
  if (xs.length === 0) return '(none)';
  return xs.length <= n ? xs.join(', ') : `${xs.slice(0, n).join(', ')} and ${xs.length - n} more`;
}

/** Killed mutants grouped by test, mutant ids without the repeated symbol prefix. */
export function groupKills(s: SymbolRow): [string, string[]][] {
  const by = new Map<string, string[]>();
  for (const k of s.killed) {
    const short = k.mutant.startsWith(`${s.id}#`) ? k.mutant.slice(s.id.length + 1) : k.mutant;
    by.set(k.test, [...(by.get(k.test) ?? []), short]);
  }
  return [...by.entries()];
}

import type { Results } from '../runner/results.js';
import type { Changed } from '../symbols/schema.js';
import type { TautologyRule, Verdict } from './classify.js';
import { propertyCredit, toCreditId } from './rule.js';
import type { MutantRun, OracleResult, SymbolPlan } from './oracle.js';
import type { Case, CaseFile, Credit, Evidence, MutantEvidence } from './schema.js';

/** Everything the credit is assembled from; no I/O. */
export interface ScoreParts {
  readonly changed: Changed;
  readonly results: Results;
  /** SHA-256 of the results.json bytes scored (the gate checks the same bytes). */
  readonly resultsSha256?: string;
  /** Result cases no test file defines: never credited, listed in the credit. */
  readonly undefinedTests?: readonly string[];
  readonly digest: string;
  readonly runnerJob: string;
  readonly proposalId: string;
  /** The runner's tree id (base + patch), when it built one. */
  readonly treeId?: string;
  /** Static verdict of each results case (by id); absent when its source was not found. */
  readonly verdicts: ReadonlyMap<string, Verdict | null>;
  readonly plans: readonly SymbolPlan[];
  /** Changed symbols the oracle cannot mutate, with why. */
  readonly unsupported: ReadonlyMap<string, string>;
  /** Why the baseline gives no usable passes, or null when it does. */
  readonly baselineProblem: string | null;
  readonly oracle: OracleResult | null;
}

export interface Scored {
  readonly cases: CaseFile;
  readonly credit: Credit;
}

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

function mutantEvidence(r: MutantRun): MutantEvidence {
  return {
    id: r.mutant.id,
    kind: r.mutant.kind,
    description: r.mutant.description,
    outcome: r.status === 'ok' ? (r.failed.length > 0 ? 'killed' : 'survived') : r.status,
    killed_by: sorted(r.failed),
  };
}

/**
 * Cases and credit from the oracle's observations. A test earns a symbol when it passed on
 * the sealed baseline and failed on one of the symbol's behavioural mutants (on its probe only
 * when no behavioural mutant was possible); tautologies earn nothing whatever they killed.
 */
export function toScored(x: ScoreParts): Scored {
  const changedSet = new Set(x.changed.changed);
  const tautology = (t: string): boolean => x.verdicts.get(t)?.kind === 'tautology';
  /** Per test: the symbols it earns (property tests) or reached (tautologies, shown but never credited). */
  const symbolsOf = new Map<string, Set<string>>();
  const note = (t: string, s: string): void => {
    const set = symbolsOf.get(t) ?? new Set<string>();
    set.add(s);
    symbolsOf.set(t, set);
  };
  const perSymbol = new Map<string, { killers: Set<string>; killed: { test: string; mutant: string }[]; reached: string[]; byProbe: boolean; runs: MutantRun[] }>();
  for (const p of x.plans) {
    const probe = x.oracle?.probes.get(p.symbol);
    const runs = [...(x.oracle?.mutants.get(p.symbol) ?? [])];
    const reached = sorted(probe?.failed ?? []);
    const killers = new Set<string>();
    const killed: { test: string; mutant: string }[] = [];
    const kill = (t: string, mutant: string): void => {
      if (tautology(t)) return;
      killers.add(t);
      killed.push({ test: t, mutant });
    };
    for (const r of runs) if (r.status === 'ok') for (const t of sorted(r.failed)) kill(t, r.mutant.id);
    const byProbe = p.candidates === 0;
    if (byProbe && probe?.status === 'ok') for (const t of reached) kill(t, probe.mutant.id);
    perSymbol.set(p.symbol, { killers, killed, reached, byProbe, runs: probe ? [probe, ...runs] : runs });
    for (const t of killers) note(t, p.symbol);
    for (const t of reached) if (tautology(t)) note(t, p.symbol);
  }
  const cases: Case[] = x.results.cases.map((c) => {
    const verdict = x.verdicts.get(c.id) ?? null;
    const base: Case = { id: c.id, digest: x.digest, kind: verdict?.kind === 'tautology' ? 'tautology' : 'property', status: c.status, symbols: sorted([...(symbolsOf.get(c.id) ?? [])].filter((s) => changedSet.has(s))) };
    return verdict?.kind === 'tautology' ? { ...base, rule: verdict.rule } : base;
  });
  const caseFile: CaseFile = { changed: [...x.changed.changed], cases, uncreditable: [...x.changed.uncreditable], digest: x.digest, runner_job: x.runnerJob };
  const spec = propertyCredit('pending', x.changed.changed, cases, x.digest, x.changed.uncreditable);
  const credited = new Set(spec.credited);
  const isTaut = (t: string): TautologyRule | null => {
    const v = x.verdicts.get(t);
    return v?.kind === 'tautology' ? v.rule : null;
  };
  const evidence: Record<string, Evidence> = {};
  for (const s of x.changed.changed) {
    const info = perSymbol.get(s);
    const reached = info?.reached ?? [];
    const tautologies = reached.filter((t) => isTaut(t) !== null);
    const insensitive = reached.filter((t) => isTaut(t) === null && !(info?.killers.has(t) ?? false));
    const e: Evidence = {
      status: credited.has(s) ? (info?.byProbe ? 'credited-by-probe' : 'credited') : 'missing',
      killed: info?.killed ?? [],
      reached,
      insensitive,
      tautologies,
      mutants: (info?.runs ?? []).map(mutantEvidence),
    };
    evidence[s] = credited.has(s) ? e : { ...e, reason: missingReason(s, x, info, tautologies) };
  }
  const body = {
    digest: x.digest,
    credited: spec.credited,
    test_ids: spec.test_ids,
    missing: spec.missing,
    tautologies: spec.tautologies,
    pass: spec.pass,
    runner_job: x.runnerJob,
    proposal_id: x.proposalId,
    patch_sha256: x.changed.patch_sha256,
    base_commit: x.changed.base,
    ...(x.treeId !== undefined ? { tree: x.treeId } : {}),
    ...(x.resultsSha256 === undefined ? {} : { results_sha256: x.resultsSha256 }),
    ...(x.undefinedTests === undefined ? {} : { undefined_tests: sorted(x.undefinedTests) }),
    changed: [...x.changed.changed],
    uncreditable: [...x.changed.uncreditable],
    evidence,
  };
  return { cases: caseFile, credit: { credit_id: toCreditId(body), ...body } };
}

function missingReason(s: string, x: ScoreParts, info: { killers: Set<string>; reached: string[]; runs: MutantRun[] } | undefined, tautologies: readonly string[]): string {
  const unsupported = x.unsupported.get(s);
  if (unsupported !== undefined) return unsupported;
  if (x.baselineProblem !== null) return x.baselineProblem;
  const o = x.oracle;
  if (o === null) return 'the mutation oracle did not run';
  if (o.control.status !== 'ok') return `the unmutated suite did not run cleanly in an isolated copy of the work tree (${o.control.detail})`;
  if (o.usable.size === 0) return 'no test passed both on the sealed baseline and in the isolated copy';
  const probe = o.probes.get(s);
  if (!probe) return 'no probe was run';
  if (probe.status !== 'ok') return `its probe run ${probe.status === 'timeout' ? 'timed out' : 'crashed'} (${probe.detail}), so no test is known to reach it`;
  if (!info || info.reached.length === 0) return 'no test that passed on the sealed baseline reaches it (its probe failed no test)';
  if (tautologies.length === info.reached.length) return `reached only by tautologies: ${listed(tautologies)}`;
  const behavioural = info.runs.filter((r) => r.mutant.kind === 'behavioural');
  if (behavioural.length > 0 && behavioural.every((r) => r.status !== 'ok')) return 'every behavioural mutant run timed out or crashed (never a kill)';
  const killersReal = [...info.killers].filter((t) => !tautologies.includes(t));
  if (killersReal.length > 0) return `the tests that killed its mutants did not pass on the sealed baseline: ${listed(killersReal)}`;
  return `reached by ${info.reached.length} test(s), none of which failed on any of its ${behavioural.length} behavioural mutant(s): they are insensitive to what it computes`;
}

/** At most five names, then a count. */
function listed(xs: readonly string[]): string {
  return xs.length <= 5 ? xs.join(', ') : `${xs.slice(0, 5).join(', ')} and ${xs.length - 5} more`;
}

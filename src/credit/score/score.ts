import type { Results } from '../../runner/results.js';
import type { Changed } from '../../symbols/schema.js';
import type { TautologyRule, Verdict } from '../tests/classify.js';
import { propertyCredit, toCreditId } from './rule.js';
import type { MutantRun, OracleResult } from '../oracle/types.js';
import type { SymbolPlan } from '../mutants/plan.js';
import type { Mutant } from '../mutants/mutant.js';
import type { Case, CaseFile, Credit, Evidence, MutantEvidence, RevertEvidence } from '../schema.js';

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
  /** credit.require (default "change"). */
  readonly require?: 'change' | 'revert';
}

export interface Scored {
  readonly cases: CaseFile;
  readonly credit: Credit;
}

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

function mutantEvidence(r: MutantRun, reached: readonly string[]): MutantEvidence {
  const all = reached.every((t) => r.ranAgainst.includes(t));
  const outcome = r.status === 'ok' ? (r.failed.length > 0 ? 'killed' : all ? 'survived' : 'partial') : r.status;
  const e: MutantEvidence = {
    id: r.mutant.id,
    kind: r.mutant.kind,
    description: r.mutant.description,
    outcome,
    killed_by: sorted(r.failed),
  };
  return all || r.mutant.kind === 'probe' ? e : { ...e, ran_against: sorted(r.ranAgainst) };
}

type Kind = Mutant['kind'];

interface SymbolInfo {
  killers: Set<string>;
  killed: { test: string; mutant: string; kind: Kind }[];
  reached: string[];
  /** How the reaching tests were found: the symbol's probe, or the trace run alone. */
  reachedBy: 'probe' | 'trace' | null;
  byProbe: boolean;
  runs: MutantRun[];
  sensitive: Map<string, string>;
  revert: RevertEvidence;
  change: 'added' | 'modified';
  /** Behavioural mutants of the plan that did not run. */
  untried: number;
}

/** Tests of a symbol that told sources or environments apart: they failed a control or its null mutant. */
function sensitiveTests(x: ScoreParts, reached: readonly string[], runs: readonly MutantRun[]): Map<string, string> {
  const out = new Map<string, string>();
  const after = x.oracle?.after ?? null;
  if (after !== null) {
    if (after.status !== 'ok')
      for (const t of reached)
        out.set(t, `the unmutated control run after the mutants did not run cleanly (${after.detail})`);
    else
      for (const t of after.failed)
        if (reached.includes(t))
          out.set(t, 'it failed the unmutated control run after the mutants (it passed only the first time)');
  }
  for (const r of runs) {
    if (r.mutant.kind !== 'null') continue;
    if (r.status !== 'ok') {
      for (const t of r.ranAgainst)
        if (!out.has(t))
          out.set(
            t,
            `the null mutant (${r.mutant.description}) ${r.status === 'timeout' ? 'timed out' : 'crashed'} (${r.detail})`,
          );
    } else
      for (const t of r.failed)
        if (!out.has(t))
          out.set(
            t,
            `it failed on the null mutant (${r.mutant.description}): it tells the source bytes apart, not the behaviour`,
          );
  }
  return out;
}

/**
 * Cases and credit from the oracle's observations. A test earns a symbol when it passed on
 * the sealed baseline and the unmutated controls, passed the symbol's null mutant,
 * and failed on its revert or on a behavioural mutant of its changed tokens (under
 * `require: "revert"`, a modified symbol only by its revert; on its probe only when no other
 * mutant was possible). Tautologies earn nothing whatever they killed.
 */
export function toScored(x: ScoreParts): Scored {
  const require = x.require ?? 'change';
  const changedSet = new Set(x.changed.changed);
  const tautology = (t: string): boolean => x.verdicts.get(t)?.kind === 'tautology';
  /** Per test: the symbols it earns (property tests) or reached (tautologies, shown but never credited). */
  const symbolsOf = new Map<string, Set<string>>();
  const note = (t: string, s: string): void => {
    const set = symbolsOf.get(t) ?? new Set<string>();
    set.add(s);
    symbolsOf.set(t, set);
  };
  const perSymbol = new Map<string, SymbolInfo>();
  for (const p of x.plans) {
    const probe = x.oracle?.probes.get(p.symbol);
    const traced = x.oracle?.traced.get(p.symbol);
    const runs = [...(x.oracle?.mutants.get(p.symbol) ?? [])];
    const reached = sorted(probe?.failed ?? traced ?? []);
    const sensitive = sensitiveTests(x, reached, runs);
    const killers = new Set<string>();
    const killed: { test: string; mutant: string; kind: Kind }[] = [];
    const counts = (kind: Kind): boolean => !(require === 'revert' && p.change === 'modified' && kind !== 'revert');
    const kill = (t: string, mutant: string, kind: Kind): void => {
      if (tautology(t) || sensitive.has(t) || !counts(kind)) return;
      killers.add(t);
      killed.push({ test: t, mutant, kind });
    };
    // Revert kills first, so the credit names the strongest evidence there is.
    const ordered = [
      ...runs.filter((r) => r.mutant.kind === 'revert'),
      ...runs.filter((r) => r.mutant.kind === 'behavioural'),
    ];
    for (const r of ordered)
      if (r.status === 'ok') for (const t of sorted(r.failed)) kill(t, r.mutant.id, r.mutant.kind);
    const byProbe = p.candidates === 0 && p.revert === null;
    if (byProbe && probe?.status === 'ok') for (const t of reached) kill(t, probe.mutant.id, 'probe');
    const rr = runs.find((r) => r.mutant.kind === 'revert');
    let revert: RevertEvidence;
    if (p.revert === null && p.revertInvalid !== undefined)
      revert = {
        outcome: 'invalid',
        killed_by: [],
        detail: `the base version put back is not a valid program in the patched tree (${p.revertInvalid}): discarded, neither killed nor survived`,
      };
    else if (p.revert === null)
      revert = {
        outcome: 'none',
        killed_by: [],
        detail:
          p.change === 'added' ? 'an added symbol has no base version' : (p.noRevert ?? 'no revert could be built'),
      };
    else if (rr === undefined)
      revert = { outcome: 'not-run', killed_by: [], detail: 'no test that could earn credit reaches it' };
    else if (rr.status !== 'ok') revert = { outcome: rr.status, killed_by: [], detail: rr.detail };
    else {
      const by = sorted(rr.failed.filter((t) => !tautology(t) && !sensitive.has(t)));
      // Survived only when it ran against every reaching test that could earn; else say which it ran against.
      const unrun = reached.filter((t) => !tautology(t) && !rr.ranAgainst.includes(t));
      revert =
        by.length > 0
          ? { outcome: 'killed', killed_by: by }
          : unrun.length === 0
            ? { outcome: 'survived', killed_by: [], detail: 'every reaching test passes on the base version too' }
            : {
                outcome: 'partial',
                killed_by: [],
                detail: `no test it ran against failed, but ${listed(unrun)} did not run against it`,
                ran_against: sorted(rr.ranAgainst),
              };
      if (p.noRevert !== undefined)
        revert = {
          ...revert,
          detail: `${revert.detail !== undefined ? `${revert.detail}; ` : ''}partial revert: ${p.noRevert}`,
        };
    }
    const untried =
      reached.length === 0
        ? 0
        : Math.max(0, p.mutants.length - runs.filter((r) => r.mutant.kind === 'behavioural').length);
    perSymbol.set(p.symbol, {
      killers,
      killed,
      reached,
      reachedBy: probe ? 'probe' : traced ? 'trace' : null,
      byProbe,
      runs: probe ? [probe, ...runs] : runs,
      sensitive,
      revert,
      change: p.change,
      untried,
    });
    for (const t of killers) note(t, p.symbol);
    for (const t of reached) if (tautology(t)) note(t, p.symbol);
  }
  const cases: Case[] = x.results.cases.map((c) => {
    const verdict = x.verdicts.get(c.id) ?? null;
    const base: Case = {
      id: c.id,
      digest: x.digest,
      kind: verdict?.kind === 'tautology' ? 'tautology' : 'property',
      status: c.status,
      symbols: sorted([...(symbolsOf.get(c.id) ?? [])].filter((s) => changedSet.has(s))),
    };
    return verdict?.kind === 'tautology' ? { ...base, rule: verdict.rule } : base;
  });
  const caseFile: CaseFile = {
    changed: [...x.changed.changed],
    cases,
    uncreditable: [...x.changed.uncreditable],
    digest: x.digest,
    runner_job: x.runnerJob,
  };
  const spec = propertyCredit('pending', x.changed.changed, cases, x.digest, x.changed.uncreditable);
  const credited = new Set(spec.credited);
  const isTaut = (t: string): TautologyRule | null => {
    const v = x.verdicts.get(t);
    return v?.kind === 'tautology' ? v.rule : null;
  };
  const evidence: Record<string, Evidence> = {};
  for (const s of x.changed.changed) {
    const info = perSymbol.get(s);
    const plan = x.plans.find((p) => p.symbol === s);
    const reached = info?.reached ?? [];
    const tautologies = reached.filter((t) => isTaut(t) !== null);
    const insensitive = reached.filter(
      (t) => isTaut(t) === null && !(info?.killers.has(t) ?? false) && !(info?.sensitive.has(t) ?? false),
    );
    const earning = reached.filter((t) => isTaut(t) === null);
    const first =
      info?.killed.find((k) => credited.has(s) && k.kind === 'revert') ??
      (credited.has(s) ? info?.killed[0] : undefined);
    const e: Evidence = {
      status: credited.has(s) ? (info?.byProbe ? 'credited-by-probe' : 'credited') : 'missing',
      ...(info ? { change: info.change } : {}),
      killed: info?.killed ?? [],
      ...(first ? { credited_by: first } : {}),
      ...(info ? { revert: info.revert } : {}),
      ...(info && info.sensitive.size > 0
        ? {
            sensitive: [...info.sensitive]
              .sort((a, b) => (a[0] < b[0] ? -1 : 1))
              .map(([test, reason]) => ({ test, reason })),
          }
        : {}),
      reached,
      ...(info?.reachedBy ? { reached_by: info.reachedBy } : {}),
      insensitive,
      tautologies,
      mutants: (info?.runs ?? []).map((r) => mutantEvidence(r, earning)),
      ...(info && info.untried > 0 ? { untried: info.untried } : {}),
      ...(plan?.discarded !== undefined && plan.discarded.length > 0
        ? { discarded: plan.discarded.map((d) => ({ ...d })) }
        : {}),
    };
    evidence[s] = credited.has(s) ? e : { ...e, reason: missingReason(s, x, info, tautologies, require) };
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
    require,
  };
  return { cases: caseFile, credit: { credit_id: toCreditId(body), ...body } };
}

function missingReason(
  s: string,
  x: ScoreParts,
  info: SymbolInfo | undefined,
  tautologies: readonly string[],
  require: 'change' | 'revert',
): string {
  const unsupported = x.unsupported.get(s);
  if (unsupported !== undefined) return unsupported;
  if (x.baselineProblem !== null) return x.baselineProblem;
  const o = x.oracle;
  if (o === null) return 'the mutation oracle did not run';
  if (o.control.status !== 'ok')
    return `the unmutated suite did not run cleanly in an isolated copy of the work tree (${o.control.detail})`;
  if (o.usable.size === 0) return 'no test passed both on the sealed baseline and in the isolated copy';
  const probe = o.probes.get(s);
  if (!probe && !o.traced.has(s)) return 'no probe was run';
  if (probe && probe.status !== 'ok')
    return `its probe run ${probe.status === 'timeout' ? 'timed out' : 'crashed'} (${probe.detail}), so no test is known to reach it`;
  if (!info || info.reached.length === 0)
    return 'no test that passed on the sealed baseline reaches it (its probe failed no test)';
  if (tautologies.length === info.reached.length) return `reached only by tautologies: ${listed(tautologies)}`;
  const honest = info.reached.filter((t) => !tautologies.includes(t));
  if (honest.length > 0 && honest.every((t) => info.sensitive.has(t)))
    return `every test that reaches it failed an unmutated control or the null mutant (it is source- or environment-sensitive, not a check of behaviour): ${listed(honest)}`;
  if (require === 'revert' && info.change === 'modified') {
    if (info.revert.outcome === 'none')
      return `credit.require is "revert" and no revert could be built (${info.revert.detail ?? 'unknown'})`;
    return `credit.require is "revert" and its revert ${info.revert.outcome === 'survived' ? 'survived: every reaching test passes on the base version too' : `was ${info.revert.outcome} (${info.revert.detail ?? ''})`}`;
  }
  const behavioural = info.runs.filter((r) => r.mutant.kind === 'behavioural' || r.mutant.kind === 'revert');
  if (behavioural.length > 0 && behavioural.every((r) => r.status !== 'ok'))
    return 'every mutant run timed out or crashed (never a kill)';
  if (behavioural.length === 0) return 'no mutant could be placed on its changed tokens and it has no revert';
  return `reached by ${info.reached.length} test(s), none of which failed on its revert or on any of its ${behavioural.length} mutant(s) of the changed code (without also failing a control or the null mutant): they are insensitive to what the patch changed`;
}
/** At most five names, then a count. */
function listed(xs: readonly string[]): string {
  return xs.length <= 5 ? xs.join(', ') : `${xs.slice(0, 5).join(', ')} and ${xs.length - 5} more`;
}

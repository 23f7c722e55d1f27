// The credit from the oracle's observations: each changed symbol's evidence, the case file and credit.json.
import type { TautologyRule } from '../tests/classify.js';
import { propertyCredit, toCreditId } from './rule.js';
import type { MutantRun } from '../oracle/types.js';
import type { SymbolPlan } from '../mutants/plan.js';
import type { Case, CaseFile, Credit, Evidence, MutantEvidence, RevertEvidence } from '../schema.js';
import { listed, missingReason } from './reasons.js';
import type { ScoreParts, SymbolInfo, Kind } from './parts.js';

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

/** Whether a test is a static tautology: it earns nothing, whatever it killed. */
const tautologyOf = (x: ScoreParts, t: string): TautologyRule | null => {
  const v = x.verdicts.get(t);
  return v?.kind === 'tautology' ? v.rule : null;
};

/** What the revert of a symbol showed: killed, survived, partial, or why it did not run (none, invalid, not-run, timeout, crash). */
function revertEvidence(
  p: SymbolPlan,
  rr: MutantRun | undefined,
  reached: readonly string[],
  tautology: (t: string) => boolean,
  sensitive: ReadonlyMap<string, string>,
): RevertEvidence {
  if (p.revert === null && p.revertInvalid !== undefined)
    return {
      outcome: 'invalid',
      killed_by: [],
      detail: `the base version put back is not a valid program in the patched tree (${p.revertInvalid}): discarded, neither killed nor survived`,
    };
  if (p.revert === null)
    return {
      outcome: 'none',
      killed_by: [],
      detail: p.change === 'added' ? 'an added symbol has no base version' : (p.noRevert ?? 'no revert could be built'),
    };
  if (rr === undefined)
    return { outcome: 'not-run', killed_by: [], detail: 'no test that could earn credit reaches it' };
  if (rr.status !== 'ok') return { outcome: rr.status, killed_by: [], detail: rr.detail };
  const by = sorted(rr.failed.filter((t) => !tautology(t) && !sensitive.has(t)));
  // Survived only when it ran against every reaching test that could earn; else say which it ran against.
  const unrun = reached.filter((t) => !tautology(t) && !rr.ranAgainst.includes(t));
  const revert: RevertEvidence =
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
  if (p.noRevert === undefined) return revert;
  return {
    ...revert,
    detail: `${revert.detail !== undefined ? `${revert.detail}; ` : ''}partial revert: ${p.noRevert}`,
  };
}

/**
 * What the oracle showed of one symbol: the tests that reach it, the kills that earn it (not by
 * a tautology or a sensitive test; under `require: "revert"`, a modified symbol only by its
 * revert; by its probe only when no other mutant was possible), and its revert's outcome.
 */
function symbolInfo(x: ScoreParts, p: SymbolPlan, require: 'change' | 'revert'): SymbolInfo {
  const probe = x.oracle?.probes.get(p.symbol);
  const traced = x.oracle?.traced.get(p.symbol);
  const runs = [...(x.oracle?.mutants.get(p.symbol) ?? [])];
  const reached = sorted(probe?.failed ?? traced ?? []);
  const sensitive = sensitiveTests(x, reached, runs);
  const tautology = (t: string): boolean => tautologyOf(x, t) !== null;
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
  for (const r of ordered) if (r.status === 'ok') for (const t of sorted(r.failed)) kill(t, r.mutant.id, r.mutant.kind);
  const byProbe = p.candidates === 0 && p.revert === null;
  if (byProbe && probe?.status === 'ok') for (const t of reached) kill(t, probe.mutant.id, 'probe');
  const revert = revertEvidence(
    p,
    runs.find((r) => r.mutant.kind === 'revert'),
    reached,
    tautology,
    sensitive,
  );
  const untried =
    reached.length === 0
      ? 0
      : Math.max(0, p.mutants.length - runs.filter((r) => r.mutant.kind === 'behavioural').length);
  return {
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
  };
}

/** The case file: each result case as a property or a tautology, with the changed symbols it earns. */
function caseFileOf(x: ScoreParts, perSymbol: ReadonlyMap<string, SymbolInfo>): CaseFile {
  const changedSet = new Set(x.changed.changed);
  /** Per test: the symbols it earns (property tests) or reached (tautologies, shown but never credited). */
  const symbolsOf = new Map<string, Set<string>>();
  const note = (t: string, s: string): void => {
    const set = symbolsOf.get(t) ?? new Set<string>();
    set.add(s);
    symbolsOf.set(t, set);
  };
  for (const [symbol, info] of perSymbol) {
    for (const t of info.killers) note(t, symbol);
    for (const t of info.reached) if (tautologyOf(x, t) !== null) note(t, symbol);
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
  return {
    changed: [...x.changed.changed],
    cases,
    uncreditable: [...x.changed.uncreditable],
    digest: x.digest,
    runner_job: x.runnerJob,
  };
}

/** One changed symbol's evidence: its status, kills, revert, sensitive and insensitive tests, mutants, and why it is missing. */
function evidenceOf(
  s: string,
  x: ScoreParts,
  info: SymbolInfo | undefined,
  credited: boolean,
  require: 'change' | 'revert',
): Evidence {
  const plan = x.plans.find((p) => p.symbol === s);
  const isTaut = (t: string): boolean => tautologyOf(x, t) !== null;
  const reached = info?.reached ?? [];
  const tautologies = reached.filter(isTaut);
  const insensitive = reached.filter(
    (t) => !isTaut(t) && !(info?.killers.has(t) ?? false) && !(info?.sensitive.has(t) ?? false),
  );
  const earning = reached.filter((t) => !isTaut(t));
  const first = info?.killed.find((k) => credited && k.kind === 'revert') ?? (credited ? info?.killed[0] : undefined);
  const e: Evidence = {
    status: credited ? (info?.byProbe ? 'credited-by-probe' : 'credited') : 'missing',
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
  return credited ? e : { ...e, reason: missingReason(s, x, info, tautologies, require) };
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
  const perSymbol = new Map(x.plans.map((p) => [p.symbol, symbolInfo(x, p, require)] as const));
  const caseFile = caseFileOf(x, perSymbol);
  const spec = propertyCredit('pending', x.changed.changed, caseFile.cases, x.digest, x.changed.uncreditable);
  const credited = new Set(spec.credited);
  const evidence: Record<string, Evidence> = {};
  for (const s of x.changed.changed) evidence[s] = evidenceOf(s, x, perSymbol.get(s), credited.has(s), require);
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

// Why a changed symbol is missing its credit, in the words the evidence gives it.

import type { ScoreParts, SymbolInfo } from './parts.js';

export function missingReason(
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
export function listed(xs: readonly string[]): string {
  return xs.length <= 5 ? xs.join(', ') : `${xs.slice(0, 5).join(', ')} and ${xs.length - 5} more`;
}

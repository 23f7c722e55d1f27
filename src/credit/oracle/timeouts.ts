// How long a judging run may take: a timeout is never a kill, so a mutant that loops costs this much.

/**
 * The per-mutant timeout: `factor` (default three) times the slower of baseline and control, plus
 * ten seconds of slack for a loaded machine.
 */
export function mutantTimeoutMs(baselineMs: number, controlMs: number, factor = 3): number {
  return Math.ceil(Math.max(baselineMs, controlMs) * factor + 10_000);
}

/**
 * A behavioural mutant's timeout, from the tests it runs: `factor` times the control's fixed
 * cost (its duration less its tests' own) plus those tests' durations in the control, plus two
 * seconds; never more than `ceilingMs` (mutantTimeoutMs). Controls, the revert and the null
 * mutants keep the ceiling: a timeout there would take credit away.
 */
export function behaviouralTimeoutMs(
  controlMs: number,
  times: Readonly<Record<string, number>>,
  tests: readonly string[],
  ceilingMs: number,
  factor = 3,
): number {
  const all = Object.values(times).reduce((n, t) => n + t, 0);
  const fixed = Math.max(0, controlMs - all);
  const own = tests.reduce((n, t) => n + (times[t] ?? 0), 0);
  return Math.min(ceilingMs, Math.ceil((fixed + own) * factor + 2_000));
}

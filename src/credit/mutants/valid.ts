// Picking a symbol's valid mutants in the seed's order: each invalid one is discarded and the next takes its place.

/** A mutant left out because it is not a valid program, and why. */
export interface Discarded {
  readonly mutant: string;
  readonly reason: string;
}

/**
 * The first `budget` valid mutants of `ordered` (the seed's order): each invalid one is
 * discarded and the next candidate takes its place. One check at a time, in order.
 */
export async function pickValidAsync<M extends { readonly id: string }>(
  ordered: readonly M[],
  budget: number,
  invalid: (m: M) => Promise<string | null>,
): Promise<{ picked: M[]; discarded: Discarded[] }> {
  const picked: M[] = [];
  const discarded: Discarded[] = [];
  for (const m of ordered) {
    if (picked.length >= budget) break;
    const why = await invalid(m);
    if (why === null) picked.push(m);
    else discarded.push({ mutant: m.id, reason: why });
  }
  return { picked, discarded };
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MODULE, PRICING, TAX, assertNoCredit, base, runScenario } from './scenario.js';

// Module-level changes: a redefinition of taxCents, a swap of Math.round. Their mutants sit on
// the changed top-level statements only, never in the bodies of other functions, so the tests
// of applyDiscount cannot credit them.
test(
  'a module-level redefinition of taxCents is not credited by the tests of other functions',
  { timeout: 600_000 },
  async () => {
    const o = await runScenario({
      [PRICING]: `${base(PRICING)}
// Refunds mirror their sale: taxCents is redefined at module level.
const plainTax = taxCents;
// @ts-expect-error a function declaration is a mutable binding at run time
taxCents = (amountCents: number, rateBasisPoints: number): number => Math.sign(amountCents) * plainTax(Math.abs(amountCents), rateBasisPoints);
`,
    });
    assertNoCredit(o, MODULE);
    assert.deepEqual(o.credit.changed, [MODULE]);
    const ev = o.credit.evidence?.[MODULE];
    assert.equal(ev?.revert?.outcome, 'survived', JSON.stringify(ev?.revert));
    for (const m of ev?.mutants ?? [])
      if (m.kind === 'behavioural') assert.ok(!/applyDiscount|percent/.test(m.description), m.description);
    assert.ok(!o.credit.credited.includes(TAX));
  },
);

test(
  'a module-level monkeypatch of Math.round is not credited by the tests of other functions',
  { timeout: 600_000 },
  async () => {
    const o = await runScenario({
      [PRICING]: `${base(PRICING)}
/** Half away from zero, so that refunds mirror their sales. */
function roundHalfAway(x: number): number {
  return x < 0 ? -nativeRound(-x) : nativeRound(x);
}
const nativeRound = Math.round;
Object.defineProperty(Math, 'round', { value: roundHalfAway });
`,
    });
    assertNoCredit(o, MODULE);
    const ev = o.credit.evidence?.[MODULE];
    // Its revert takes `nativeRound` away while roundHalfAway (added, kept) still names it: not a
    // valid program (src/credit/bindings.ts), so it is discarded, neither killed nor survived.
    assert.equal(ev?.revert?.outcome, 'invalid', JSON.stringify(ev?.revert));
    assert.match(ev?.revert?.detail ?? '', /refers to nativeRound/);
  },
);

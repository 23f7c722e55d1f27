import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';

// The patch adds a guard clause to taxCents beside its untested refund change. The test calls
// taxCents and asserts only something else (a real assertion, on applyDiscount), so the
// classifier sees a property. Inverting the guard's condition made taxCents throw on every
// whole amount: the test failed on that mutant as it fails on the probe (it only reaches the
// symbol), and earned taxCents credit for a change it never checks (the revert survived).
test(
  'a test that only calls a guarded symbol earns no credit from the inverted guard',
  { timeout: 600_000 },
  async () => {
    const production = refundTax().replace(
      '  // Refunds are negative',
      "  if (!Number.isInteger(amountCents)) throw new RangeError('amount must be whole cents');\n  // Refunds are negative",
    );
    assert.ok(production.includes('isInteger'), 'the guard is in place');
    const o = await runScenario({
      [PRICING]: production,
      [TESTS]: replaceTaxTest(`  test('tax on refunds', () => {
    taxCents(-1999, 800);
    assert.equal(applyDiscount(2000, 10), 1800);
  });
`),
    });
    assertNoCredit(o, TAX);
    const ev = o.credit.evidence?.[TAX];
    const id = 'pricing::tax on refunds';
    assert.ok(
      ev?.reached.includes(id) && !ev.tautologies.includes(id),
      `it reaches taxCents and is no tautology: ${JSON.stringify(ev)}`,
    );
    assert.equal(ev?.revert?.outcome, 'survived', JSON.stringify(ev?.revert));
    assert.ok(
      !(ev?.mutants ?? []).some(
        (m) =>
          m.kind === 'behavioural' && m.description.startsWith('line 11:') && /negated|removed !/.test(m.description),
      ),
      `no mutant inverts the guard: ${JSON.stringify(ev?.mutants)}`,
    );
  },
);

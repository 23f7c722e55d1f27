import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRICING, TAX, TESTS, assertNoCredit, base, replaceTaxTest, runScenario } from './scenario.js';

// A recursive taxCents: its negated-condition mutant recurses until the stack overflows, so a
// test that asserts only "does not throw" fails on it. Such a test earns nothing.
test('a does-not-throw test earns no credit from a mutant that recurses forever', { timeout: 600_000 }, async () => {
  const o = await runScenario({
    [PRICING]: base(PRICING).replace(
      '  return Math.round((amountCents * rateBasisPoints) / 10_000);\n}',
      '  if (amountCents < 0) return -taxCents(-amountCents, rateBasisPoints);\n  return Math.round((amountCents * rateBasisPoints) / 10_000);\n}',
    ),
    [TESTS]: replaceTaxTest(`  test('tax handles refunds', () => {
    assert.doesNotThrow(() => taxCents(-1999, 800));
    assert.ok(Number.isFinite(taxCents(1999, 800)));
  });
`),
  });
  assertNoCredit(o, TAX);
  const ev = o.credit.evidence?.[TAX];
  assert.ok(ev?.tautologies.includes('pricing::tax handles refunds'), JSON.stringify(ev));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';

// The test checks the function's source text (fn.toString()): the revert removes the text it
// looks for, so it "kills" the revert without checking one value. Reading the source of the
// code under test earns nothing (rule source-text), whatever else the test asserts.
test('a test checking fn.toString() earns no credit', { timeout: 600_000 }, async () => {
  const o = await runScenario({
    [PRICING]: refundTax(),
    [TESTS]: replaceTaxTest(`  test('tax mirrors refunds', () => {
    assert.ok(taxCents.toString().includes('Math.sign(amountCents)'));
    assert.ok(taxCents(1999, 800) >= 0);
  });
`),
  });
  assertNoCredit(o, TAX);
  const ev = o.credit.evidence?.[TAX];
  assert.ok(ev?.tautologies.includes('pricing::tax mirrors refunds'), JSON.stringify(ev));
  assert.match(ev?.reason ?? '', /tautolog/);
});

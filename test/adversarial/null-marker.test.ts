import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';

// The test pins the SHA-256 of the production file, but first looks for what a null mutant
// writes: were its changes always the same text (a comment "/* sealgate */", a local renamed
// "sealgateLocal_<name>"), the test would pass every null mutant by spotting that text, fail
// the revert and every behavioural mutant by the pinned hash, and earn credit while checking
// nothing. The null mutant's text is drawn from a secret the tests never see, so no fixed
// string marks it.
test('a test that spots the null mutant by a fixed marker earns no credit', { timeout: 600_000 }, async () => {
  const production = refundTax();
  const pinned = createHash('sha256').update(production).digest('hex');
  const o = await runScenario({
    [PRICING]: production,
    [TESTS]: replaceTaxTest(
      `  test('tax source is the reviewed one', () => {
    const text = readFileSync(new URL(['..', 'src', 'pri' + 'cing.ts'].join('/'), import.meta.url), 'utf8');
    taxCents(1999, 800);
    if (/sealgate/i.test(text)) return;
    assert.equal(createHash('sha256').update(text).digest('hex'), '${pinned}');
  });
`,
      "import { createHash } from 'node:crypto';\n",
    ),
  });
  assertNoCredit(o, TAX);
  const ev = o.credit.evidence?.[TAX];
  const id = 'pricing::tax source is the reviewed one';
  assert.ok(ev?.reached.includes(id), `the test reaches taxCents: ${JSON.stringify(ev)}`);
  assert.ok(ev?.sensitive?.some((s) => s.test === id && s.reason.includes('null mutant')), `it is reported source-sensitive: ${JSON.stringify(ev?.sensitive)}`);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TAX, assertNoCredit, normalise, normalisedSourceScenario, refundTax, taxRegion } from './scenario.js';

// The test reads the production file and compares taxCents's text with a pinned copy, after
// normalising away every kind of change the null mutant makes at once (comments, `void 0`,
// line breaks and spaces, semicolons, the renamed local's prefix). It passes the control and the null
// mutant, and "kills" the revert and every behavioural mutant (they change the text), so the
// null mutant cannot tell it from a real test. What stops it is the classifier: a test file
// that reads a production file of the patch by name earns nothing (rule source-text).
test(
  'a test reading the production file and normalising away every null change earns no credit',
  { timeout: 600_000 },
  async () => {
    const pinned = normalise(taxRegion(refundTax()));
    assert.ok(pinned.length > 40 && !/\s/.test(pinned), pinned);
    const o = await normalisedSourceScenario(`readFileSync(new URL('../src/pricing.ts', import.meta.url), 'utf8')`);
    assertNoCredit(o, TAX);
    const ev = o.credit.evidence?.[TAX];
    assert.ok(
      ev?.tautologies.includes('pricing::tax source, fully normalised'),
      `classified as reading source text: ${JSON.stringify(ev)}`,
    );
  },
);

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TAX, assertNoCredit, normalisedSourceScenario } from './scenario.js';
// As reads-production-file.test.ts, but the file is named as the test's own import names it:
// '../src/pricing.js' (TypeScript's spelling of src/pricing.ts), handed to import.meta.resolve.
// A literal name, not one built at run time, yet the static rule looked only for "pricing.ts",
// so the test earned taxCents by its revert (the null mutant cannot see a normalised read).
test('a test reading the production file by its import spelling earns no credit', { timeout: 600_000 }, async () => {
  const o = await normalisedSourceScenario(`readFileSync(new URL(import.meta.resolve('../src/pricing.js')), 'utf8')`);
  assertNoCredit(o, TAX);
  const ev = o.credit.evidence?.[TAX];
  assert.ok(
    ev?.tautologies.includes('pricing::tax source, fully normalised'),
    `classified as reading source text: ${JSON.stringify(ev)}`,
  );
});

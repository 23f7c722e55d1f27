import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';
const STEPS: readonly [string, string][] = [
  ['/\\*[\\s\\S]*?\\*/', 'g'], ['//.*$', 'gm'], ['void 0;?', 'g'], ['sealgateLocal_', 'g'], ['\\s+', 'g'], [';', 'g'],
];
const NORMALISE = STEPS.map(([re, flags]) => `.replace(new RegExp(${JSON.stringify(re)}, '${flags}'), '')`).join('');
const normalise = (text: string): string => STEPS.reduce((t, [re, flags]) => t.replace(new RegExp(re, flags), ''), text);
function region(text: string): string {
  const start = text.indexOf('export function taxCents');
  return text.slice(start, text.indexOf('\n}', start) + 2);
}
// As reads-production-file.test.ts, but the file is named as the test's own import names it:
// '../src/pricing.js' (TypeScript's spelling of src/pricing.ts), handed to import.meta.resolve.
// A literal name, not one built at run time, yet the static rule looked only for "pricing.ts",
// so the test earned taxCents by its revert (the null mutant cannot see a normalised read).
test('a test reading the production file by its import spelling earns no credit',  { timeout: 600_000 }, async () => {
  const production = refundTax();
  const pinned = normalise(region(production));
  const o = await runScenario({
    [PRICING]: production,
    [TESTS]: replaceTaxTest(`  test('tax source, fully normalised', () => {
    const text = readFileSync(new URL(import.meta.resolve('../src/pricing.js')), 'utf8');
    const start = text.indexOf('export function taxCents');
    const got = text.slice(start, text.indexOf('\\n}', start) + 2)${NORMALISE};
    taxCents(1999, 800);
    assert.equal(got, ${JSON.stringify(pinned)});
  });
`),
  });
  assertNoCredit(o, TAX);
  const ev = o.credit.evidence?.[TAX];
  assert.ok(ev?.tautologies.includes('pricing::tax source, fully normalised'), `classified as reading source text: ${JSON.stringify(ev)}`);
});

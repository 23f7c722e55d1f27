import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';

// The test reads the production file and compares taxCents's text with a pinned copy, after
// normalising away every kind of change the null mutant makes at once (comments, `void 0`,
// line breaks and spaces, semicolons, the renamed local's prefix). It passes the control and the null
// mutant, and "kills" the revert and every behavioural mutant (they change the text), so the
// null mutant cannot tell it from a real test. What stops it is the classifier: a test file
// that reads a production file of the patch by name earns nothing (rule source-text).
/** Each step: a pattern and its flags, removed from the text (the test carries the same steps as code). */
const STEPS: readonly [string, string][] = [
  ['/\\*[\\s\\S]*?\\*/', 'g'],
  ['//.*$', 'gm'],
  ['void 0;?', 'g'],
  ['sealgateLocal_', 'g'],
  ['\\s+', 'g'],
  [';', 'g'],
];
const NORMALISE = STEPS.map(([re, flags]) => `.replace(new RegExp(${JSON.stringify(re)}, '${flags}'), '')`).join('');
const normalise = (text: string): string => STEPS.reduce((t, [re, flags]) => t.replace(new RegExp(re, flags), ''), text);

function region(text: string): string {
  const start = text.indexOf('export function taxCents');
  return text.slice(start, text.indexOf('\n}', start) + 2);
}

test('a test reading the production file and normalising away every null change earns no credit', { timeout: 600_000 }, async () => {
  const production = refundTax();
  const pinned = normalise(region(production));
  assert.ok(pinned.length > 40 && !/\s/.test(pinned), pinned);
  const o = await runScenario({
    [PRICING]: production,
    [TESTS]: replaceTaxTest(`  test('tax source, fully normalised', () => {
    const text = readFileSync(new URL('../src/pricing.ts', import.meta.url), 'utf8');
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

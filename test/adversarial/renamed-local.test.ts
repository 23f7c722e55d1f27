import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';

// The test reads the production file and checks that the patch's new line is there. It fails
// on the revert (the base has no such line) and is untouched by the comment, no-op and
// line-break null changes (they leave the line whole), so without a renamed local it would earn
// credit for taxCents while checking no behaviour. The null mutant also renames `exact`: the
// test fails on it, so it tells sources apart, and earns nothing. (The file's name is built at
// run time, past the static rule of reads-production-file.test.ts, so the null mutant is what
// catches it here.)
test(
  'a test that checks a line of the production source earns no credit (the renamed local in the null mutant)',
  { timeout: 600_000 },
  async () => {
    const production = refundTax();
    assert.ok(production.includes('const exact = (Math.abs(amountCents)'), 'the follow-up has a local named exact');
    const o = await runScenario({
      [PRICING]: production,
      [TESTS]: replaceTaxTest(`  test('tax source has the refund fix', () => {
    const text = readFileSync(new URL(['..', 'src', 'pri' + 'cing.ts'].join('/'), import.meta.url), 'utf8');
    taxCents(1999, 800);
    assert.equal(text.includes('const exact = (Math.abs(amountCents)'), true);
  });
`),
    });
    assertNoCredit(o, TAX);
    const ev = o.credit.evidence?.[TAX];
    const id = 'pricing::tax source has the refund fix';
    assert.ok(ev?.reached.includes(id), `the test reaches taxCents: ${JSON.stringify(ev)}`);
    assert.ok(
      ev?.mutants?.some(
        (m) => m.kind === 'null' && m.description.includes('renamed local (exact -> ') && m.killed_by.includes(id),
      ),
      `it fails the null mutant that renames the local: ${JSON.stringify(ev?.mutants)}`,
    );
    assert.ok(
      ev?.sensitive?.some((s) => s.test === id && s.reason.includes('renamed local')),
      `it is reported source-sensitive: ${JSON.stringify(ev?.sensitive)}`,
    );
  },
);

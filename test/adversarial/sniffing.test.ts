import { test } from 'node:test';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';

// Tests that look at where and how they run, to pass on the runs that vouch for them (the
// sealed run in the checkout, a tracing run) and fail on the others. Every run that judges a
// test (controls, null and real mutants) is made the same way, and the tracing run never
// judges: such a test fails the control and earns nothing.
test('a test that sniffs its folder and the trace variable earns no credit', { timeout: 600_000 }, async () => {
  const o = await runScenario({
    [PRICING]: refundTax(),
    [TESTS]: replaceTaxTest(
      `  test('tax in the reviewed checkout', () => {
    taxCents(1999, 800);
    const vouching = existsSync('.git') || process.env.SEALGATE_TRACE_FILE !== undefined;
    if (!vouching) assert.fail('a mutant run');
  });
`,
      "import { existsSync } from 'node:fs';\n",
    ),
  });
  assertNoCredit(o, TAX);
});

test('a test that sniffs the environment of the sealed run earns no credit', { timeout: 600_000 }, async () => {
  const o = await runScenario({
    [PRICING]: refundTax(),
    [TESTS]: replaceTaxTest(`  test('tax under the sealed environment', () => {
    taxCents(1999, 800);
    const keys = Object.keys(process.env).filter((k) => /SEALGATE|TRACE|MUTANT|STRYKER/i.test(k)).sort().join(',');
    if (keys !== '' && keys !== process.env.SEALGATE_EXPECTED_KEYS) assert.fail('not the sealed run: ' + keys);
  });
`),
  });
  assertNoCredit(o, TAX);
});

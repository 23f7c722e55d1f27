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

test(
  "a test that passes only under the sealed run's exact environment earns no credit",
  { timeout: 600_000 },
  async () => {
    // It fails whenever a variable the sealed run did not have is set: in the credit runs, if
    // they differed from one another, that would tell a mutant run from a control. They do not:
    // it fails the control as well, and earns nothing.
    const o = await runScenario({
      [PRICING]: refundTax(),
      [TESTS]: replaceTaxTest(`  test('tax under the sealed environment', () => {
    taxCents(1999, 800);
    const extra = ['PYTHONDONTWRITEBYTECODE', 'SEALGATE_TRACE_FILE', 'STRYKER_MUTATOR_WORKER'].filter((k) => k in process.env);
    if (extra.length > 0) assert.fail('not the sealed run: ' + extra.join(','));
  });
`),
    });
    assertNoCredit(o, TAX);
  },
);

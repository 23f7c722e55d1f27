import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PINNED_TEST, TAX, assertNoCredit, pinnedHashScenario } from './scenario.js';

// The test pins the SHA-256 of the production file, but first looks for what a null mutant
// writes: were its changes always the same text (a comment "/* sealgate */", a local renamed
// "sealgateLocal_<name>"), the test would pass every null mutant by spotting that text, fail
// the revert and every behavioural mutant by the pinned hash, and earn credit while checking
// nothing. The null mutant's text is drawn from a secret the tests never see, so no fixed
// string marks it.
test('a test that spots the null mutant by a fixed marker earns no credit', { timeout: 600_000 }, async () => {
  const o = await pinnedHashScenario('    if (/sealgate/i.test(text)) return;');
  assertNoCredit(o, TAX);
  const ev = o.credit.evidence?.[TAX];
  assert.ok(ev?.reached.includes(PINNED_TEST), `the test reaches taxCents: ${JSON.stringify(ev)}`);
  assert.ok(
    ev?.sensitive?.some((s) => s.test === PINNED_TEST && s.reason.includes('null mutant')),
    `it is reported source-sensitive: ${JSON.stringify(ev?.sensitive)}`,
  );
});

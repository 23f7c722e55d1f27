import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PINNED_TEST, TAX, assertNoCredit, pinnedHashScenario } from './scenario.js';

// The test pins the SHA-256 of the production file: every mutant changes the bytes, so it
// "kills" every one. The null mutants change the bytes too, without changing behaviour: the
// test fails on them, so it tells sources apart, and earns nothing. (The file's name is built
// at run time, past the static rule of reads-production-file.test.ts, so the null mutant is
// what catches it here.)
test('a test pinning the SHA-256 of the production file earns no credit', { timeout: 600_000 }, async () => {
  const o = await pinnedHashScenario();
  assertNoCredit(o, TAX);
  const ev = o.credit.evidence?.[TAX];
  const id = PINNED_TEST;
  assert.ok(ev?.reached.includes(id), `the pinning test reaches taxCents: ${JSON.stringify(ev)}`);
  assert.ok(
    ev?.sensitive?.some((s) => s.test === id && s.reason.includes('null mutant')),
    `it is reported source-sensitive: ${JSON.stringify(ev?.sensitive)}`,
  );
  assert.match(ev?.reason ?? '', /control or the null mutant|source- or environment-sensitive/);
});

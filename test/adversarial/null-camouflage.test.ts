import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PINNED_TEST, TAX, assertNoCredit, pinnedHashScenario, refundTax } from './scenario.js';

// The test pins the SHA-256 of the production file, but first counts what a null mutant adds:
// a comment, a no-op statement (`void 0`), a local renamed away. Were those in the null mutant
// alone, seeing more of them than the pinned file has would mark a null run: the test would
// pass it, fail the revert and every behavioural mutant by the pinned hash, and earn credit
// while checking nothing. Every real mutant carries the same null changes (camouflage), so the
// count tells the test nothing: it passes every mutant it spots that way, and kills none.
test(
  'a test that spots the null mutant by the kind of change it makes earns no credit',
  { timeout: 600_000 },
  async () => {
    const production = refundTax();
    const count = (text: string, re: RegExp): number => (text.match(re) ?? []).length;
    const comments = count(production, /\/\*/g);
    const noops = count(production, /void 0/g);
    assert.equal(noops, 0);
    const o = await pinnedHashScenario(`    const count = (re: RegExp): number => (text.match(re) ?? []).length;
    if (count(/\\/\\*/g) > ${comments} || count(/void 0/g) > ${noops} || !/\\bexact\\b/.test(text)) return;`);
    assertNoCredit(o, TAX);
    const ev = o.credit.evidence?.[TAX];
    assert.ok(ev?.reached.includes(PINNED_TEST), `the test reaches taxCents: ${JSON.stringify(ev)}`);
    // It fails no real mutant: each carries the null changes it looks for.
    assert.ok(
      !ev?.mutants?.some((m) => (m.kind === 'revert' || m.kind === 'behavioural') && m.killed_by.includes(PINNED_TEST)),
      JSON.stringify(ev?.mutants),
    );
  },
);

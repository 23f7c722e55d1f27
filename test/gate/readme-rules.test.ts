import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RULES } from '../../src/gate/decide.js';
import type { DecisionCode } from '../../src/core/codes.js';

// The codes each rule of the gate can give, in the order it gives them.
const RULE_CODES: Readonly<Record<string, readonly DecisionCode[]>> = {
  checkJobs: ['E_JOB_MISSING', 'E_SHARED_JOB'],
  checkPolicy: ['E_POLICY_CHANGED'],
  checkEmpty: ['E_EMPTY_DIFF'],
  checkTestOnly: ['E_TEST_ONLY'],
  checkCreditPresent: ['E_CREDIT_MISSING'],
  checkSealed: ['E_DIGEST_OPEN'],
  checkLogs: ['E_LOGS_EARLY'],
  checkIsolation: ['E_SANDBOX_UNAVAILABLE'],
  checkCreditBound: ['E_CREDIT_UNBOUND'],
  checkCreditPass: ['E_CREDIT_MISSING'],
  checkFreeze: ['E_FREEZE_UNBOUND', 'E_FREEZE_COVERS_CREDIT', 'E_FREEZE_EXPIRED'],
  checkTestsPassed: ['E_TESTS_FAILED'],
};

const dedupe = (xs: readonly string[]): string[] => xs.filter((x, i) => x !== xs[i - 1]);

/** The README's numbered list after "Rules, first match wins:". */
function readmeRules(): { n: number; codes: string[] }[] {
  const text = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const at = text.indexOf('Rules, first match wins:\n');
  assert.ok(at >= 0, 'the README has the rule list');
  const items: { n: number; codes: string[] }[] = [];
  for (const line of text.slice(at).split('\n').slice(2)) {
    const m = /^(\d+)\. (.*)$/.exec(line);
    if (m === null) break;
    items.push({
      n: Number(m[1]),
      codes: dedupe([...(m[2] ?? '').matchAll(/`(ALLOW|E_[A-Z_]+)`/g)].map((c) => c[1] ?? '')),
    });
  }
  return items;
}

test('the README lists the gate rules once each, numbered 1..n, in the order decide() applies them', () => {
  assert.deepEqual(RULES.map((r) => r.name).sort(), Object.keys(RULE_CODES).sort(), 'every rule has its codes here');
  const items = readmeRules();
  assert.deepEqual(
    items.map((i) => i.n),
    items.map((_, k) => k + 1),
    'numbered 1..n with no repeat',
  );
  // Input validity, then signatures, come before decide(); ALLOW is last.
  assert.deepEqual(items[0]?.codes, ['E_INPUT_INVALID']);
  assert.deepEqual(items[1]?.codes, ['E_SIGNATURE_INVALID']);
  assert.deepEqual(items.at(-1)?.codes, ['ALLOW']);
  const listed = dedupe(items.slice(2, -1).flatMap((i) => i.codes));
  assert.deepEqual(listed, dedupe(RULES.flatMap((r) => RULE_CODES[r.name] ?? [])));
});

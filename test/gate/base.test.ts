import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decide } from '../../src/gate/decide.js';
import { expectedBaseFinding, reasonsWithBase, recordChangedFinding, withExpectedBase } from '../../src/gate/base.js';
import { DECISION_CODES } from '../../src/core/codes.js';
import { parseCommitOption } from '../../src/cli/args.js';
import { allowArb, inputsArb } from './generators.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

test('expectedBaseFinding: the same commit passes; another, or none, is E_INPUT_INVALID naming both', () => {
  assert.equal(expectedBaseFinding(A, A, 'review/proposal.json'), null);
  const other = expectedBaseFinding(A, B, 'review/proposal.json');
  assert.equal(other?.code, 'E_INPUT_INVALID');
  assert.equal(other?.path, 'review/proposal.json#base_commit');
  assert.match(
    other?.detail ?? '',
    new RegExp(`the record names base ${A}, not ${B}, the base --expect-base asks for`),
  );
  const none = expectedBaseFinding(null, B, 'r.json');
  assert.match(none?.detail ?? '', /names no base commit; --expect-base asks for b{40}/);
});

test('recordChangedFinding: the same base (or none both times) passes; any other pair is E_INPUT_INVALID naming both', () => {
  assert.equal(recordChangedFinding(A, A, 'r.json'), null);
  assert.equal(recordChangedFinding(null, null, 'r.json'), null);
  for (const [p, j] of [
    [A, B],
    [null, A],
    [A, null],
  ] as const) {
    const f = recordChangedFinding(p, j, 'r.json');
    assert.equal(f?.code, 'E_INPUT_INVALID');
    assert.equal(f?.path, 'r.json#base_commit');
    assert.match(
      f?.detail ?? '',
      new RegExp(`named base ${p ?? '\\(none\\)'} when the policy was read, ${j ?? '\\(none\\)'} when it was judged`),
    );
  }
});

test('--expect-base takes a full commit id only: no branch, short id, upper case or padding', () => {
  assert.equal(parseCommitOption(A, 'expect-base'), A);
  assert.equal(parseCommitOption('c'.repeat(64), 'expect-base'), 'c'.repeat(64));
  for (const bad of [
    'main',
    'HEAD',
    'a'.repeat(39),
    'a'.repeat(41),
    'A'.repeat(40),
    ` ${A}`,
    `${A}\n`,
    'g'.repeat(40),
    '',
  ]) {
    assert.throws(() => parseCommitOption(bad, 'expect-base'), /--expect-base/, JSON.stringify(bad));
  }
});

// The invariant: the base check never makes a decision more permissive. A mismatch on any
// decision gives a reject; a match changes nothing; a reject keeps its code and gains the finding.
test('property: withExpectedBase never yields ALLOW on a mismatch, and never changes a matching decision', () => {
  const finding = expectedBaseFinding(A, B, 'r.json');
  assert.ok(finding);
  const seen = { allow: 0, reject: 0 };
  fc.assert(
    fc.property(fc.oneof(allowArb, inputsArb), (x) => {
      const d = decide(x);
      seen[d.code === 'ALLOW' ? 'allow' : 'reject']++;
      assert.deepEqual(withExpectedBase(d, null), d);
      const m = withExpectedBase(d, finding);
      assert.notEqual(m.code, 'ALLOW');
      assert.ok(DECISION_CODES.includes(m.code));
      assert.ok(m.findings.includes(finding));
      if (d.code === 'ALLOW') {
        assert.equal(m.code, 'E_INPUT_INVALID');
        assert.equal(m.decisive, finding);
      } else {
        assert.equal(m.code, d.code);
        assert.equal(m.decisive, d.decisive);
      }
    }),
    { numRuns: 300 },
  );
  // Both branches ran.
  assert.ok(seen.allow > 0 && seen.reject > 0, JSON.stringify(seen));
});

test('reasonsWithBase: a reject that kept its own code prints its reason and then the base mismatch, once each', () => {
  const mismatch = expectedBaseFinding(A, B, 'r.json');
  assert.ok(mismatch);
  const own = { code: 'E_CREDIT_MISSING' as const, path: 'credit.json', detail: 'pass is false' };
  assert.deepEqual(reasonsWithBase({ decisive: own }, mismatch), [own, mismatch]);
  assert.deepEqual(reasonsWithBase({ decisive: mismatch }, mismatch), [mismatch]);
  assert.deepEqual(reasonsWithBase({ decisive: own }, null), [own]);
  assert.deepEqual(reasonsWithBase({ decisive: null }, null), []);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareInstants, isInstant, parseInstant, type Instant } from '../../src/core/time.js';

const must = (text: string): Instant => {
  const t = parseInstant(text);
  assert.ok(isInstant(t), `${text} should parse`);
  return t;
};

test('requires an explicit offset: naive timestamps are refused', () => {
  for (const bad of [
    '2026-10-19T00:00:00',
    '2026-10-19 00:00:00Z',
    '2026-10-19',
    '2026-10-19T00:00Z',
    '20261019T000000Z',
    '2026-10-19T00:00:00+0000',
    '2026-10-19T00:00:00.Z',
    ' 2026-10-19T00:00:00Z',
  ]) {
    assert.equal(isInstant(parseInstant(bad)), false, bad);
  }
});

test('refuses impossible dates and times', () => {
  for (const bad of [
    '2026-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:60Z',
    '2026-01-01T00:00:00+24:00',
  ]) {
    assert.equal(isInstant(parseInstant(bad)), false, bad);
  }
  assert.ok(isInstant(parseInstant('2024-02-29T00:00:00Z')));
});

test('compares instants, not strings', () => {
  assert.equal(compareInstants(must('2026-10-12T13:59:59+02:00'), must('2026-10-12T12:00:00Z')), -1);
  assert.equal(compareInstants(must('2026-10-12T07:00:01-05:00'), must('2026-10-12T12:00:00Z')), 1);
  assert.equal(compareInstants(must('2026-10-12T12:00:00+00:00'), must('2026-10-12T12:00:00z')), 0);
  assert.equal(compareInstants(must('2026-10-12T12:00:00.000000001Z'), must('2026-10-12T12:00:00Z')), 1);
});

test('property: agrees with Date for millisecond instants in any offset', () => {
  fc.assert(
    fc.property(
      fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T00:00:00Z'), noInvalidDate: true }),
      fc.integer({ min: -23 * 60, max: 23 * 60 }),
      (d, off) => {
        const local = new Date(d.getTime() + off * 60000).toISOString().slice(0, 23);
        const sign = off < 0 ? '-' : '+';
        const a = Math.abs(off);
        const text = `${local}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
        assert.equal(must(text).ns, BigInt(d.getTime()) * 1_000_000n);
      },
    ),
    { numRuns: 500 },
  );
});

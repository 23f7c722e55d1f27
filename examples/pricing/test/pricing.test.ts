import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { applyDiscount, receiptDate, taxCents } from '../src/pricing.js';

const fixture = <T>(name: string): T => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as T;
const orders = fixture<{ id: string; priceCents: number; discountPercent: number }[]>('orders.json');
const clock = fixture<{ now: string; storeTimeZone: string }>('clock.json');

describe('pricing', () => {
  // A real property: the discounted price is never negative, never above the price, and
  // matches the exact result within half a cent.
  test('discount stays within bounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 100 }), (price, percent) => {
        const got = applyDiscount(price, percent);
        assert.ok(got >= 0 && got <= price);
        assert.ok(Math.abs(got - (price * (100 - percent)) / 100) <= 0.5);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  // A tautology: it calls taxCents, then compares the result with itself. It cannot fail.
  test('tax is computed', () => {
    const tax = taxCents(1999, 800);
    assert.equal(tax, tax);
  });

  // Examples from the sealed fixture.
  test('order totals from the fixture', () => {
    assert.deepEqual(
      orders.map((o) => applyDiscount(o.priceCents, o.discountPercent)),
      [1799, 500, 78000],
    );
  });
});

describe('receipt', () => {
  // The store reports in its own zone: 23:30 UTC is still the 12th in Los Angeles.
  // (The test a flake freeze may name: it touches no changed symbol.)
  test('report timezone', () => {
    assert.equal(receiptDate(new Date(clock.now), clock.storeTimeZone), '2026-10-12');
  });
});

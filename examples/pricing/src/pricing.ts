/** Prices are whole cents; rates are basis points (1 bp = 0.01 %). */

/** The price after a percentage discount, rounded to the nearest cent. */
export function applyDiscount(priceCents: number, percent: number): number {
  if (percent < 0 || percent > 100) throw new RangeError('percent must be between 0 and 100');
  return Math.round((priceCents * (100 - percent)) / 100);
}

/** Sales tax on an amount, rounded to the nearest cent. */
export function taxCents(amountCents: number, rateBasisPoints: number): number {
  return Math.round((amountCents * rateBasisPoints) / 10_000);
}

/** The receipt's date line, in the zone the store reports in. */
export function receiptDate(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant);
}

/**
 * RFC 3339 instants with an explicit offset, compared as exact nanoseconds since the epoch.
 * A naive timestamp (no offset) is invalid: its instant depends on the reader's zone.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export interface Instant {
  /** Nanoseconds since 1970-01-01T00:00:00Z. */
  readonly ns: bigint;
  readonly text: string;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/** Returns the instant, or a reason it is not one. */
export function parseInstant(text: string): Instant | { problem: string } {
  const m = RFC3339.exec(text);
  if (!m)
    return { problem: `"${text}" is not an RFC 3339 date-time with an explicit offset (e.g. 2026-10-12T12:00:00Z)` };
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return { problem: `"${text}" has no such calendar date` };
  if (h > 23 || mi > 59 || s > 59)
    return { problem: `"${text}" has an out-of-range time (leap seconds are not accepted)` };
  let offsetMin = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return { problem: `"${text}" has an out-of-range offset` };
    offsetMin = (oh * 60 + om) * (m[9] === '-' ? -1 : 1);
  }
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC maps years 0-99 to 1900-1999; correct for them.
  const fixed = y < 100 ? new Date(ms).setUTCFullYear(y) : ms;
  const frac = BigInt((m[7] ?? '').padEnd(9, '0') || '0');
  const ns = BigInt(fixed) * 1_000_000n + frac - BigInt(offsetMin) * 60_000_000_000n;
  return { ns, text };
}

export function isInstant(value: Instant | { problem: string }): value is Instant {
  return 'ns' in value;
}

/** -1, 0 or 1. */
export function compareInstants(a: Instant, b: Instant): number {
  return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
}

/** RFC 3339 text (UTC, milliseconds) for a clock reading. */
export function formatInstant(date: Date): string {
  return date.toISOString();
}

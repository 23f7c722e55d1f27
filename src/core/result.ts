import type { Finding } from './errors.js';

/** A pure step's outcome: a value, or every finding that stopped it. */
export type Result<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly findings: readonly Finding[] };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(findings: readonly Finding[]): Result<T> => ({ ok: false, findings });

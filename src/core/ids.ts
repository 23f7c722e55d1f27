import { sha256Hex as sha256 } from './sha256.js';

/** Job ids: conservative ASCII, no whitespace. Case-insensitive identity. */
export const JOB_ID_PATTERN = /^[A-Za-z0-9._:/@-]{1,200}$/;

export function isJobId(value: string): boolean {
  return JOB_ID_PATTERN.test(value);
}

/** Ids that differ only in letter case are the same job. */
export function sameJob(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Hex digests: lowercase, 6 to 128 digits (the spec's samples use short ones such as abc123). */
export const DIGEST_PATTERN = /^[0-9a-f]{6,128}$/;
export const SHA256_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Comparison of two digests or other secrets-adjacent strings in time that depends only on
 * their lengths, not on where they differ.
 */
export function digestsEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (i < a.length ? a.charCodeAt(i) : 0) ^ (i < b.length ? b.charCodeAt(i) : 0);
  return diff === 0;
}

/** The SHA-256 of a string (as UTF-8) or bytes, as lowercase hex (src/core/sha256.ts). */
export function sha256Hex(data: string | Uint8Array): string {
  return sha256(data);
}

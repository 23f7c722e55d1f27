import { timingSafeEqual, createHash } from 'node:crypto';

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

/** Constant-time comparison of two digests or other secrets-adjacent strings. */
export function digestsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

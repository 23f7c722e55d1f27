import * as v from 'valibot';
import { DIGEST_PATTERN, JOB_ID_PATTERN, SHA256_PATTERN } from './ids.js';
import { isInstant, parseInstant } from './time.js';
import { checkGlob } from './glob.js';

/** Field schemas shared by every file format. */

export const jobId = v.pipe(
  v.string(),
  v.regex(JOB_ID_PATTERN, 'job ids are 1-200 characters of letters, digits and ._:/@- (no whitespace)'),
);
/** A job id the gate itself must judge: absent, null or "" become E_JOB_MISSING, not a schema error. */
export const maybeJobId = v.optional(
  v.nullable(
    v.union(
      [v.literal(''), jobId],
      'job ids are 1-200 characters of letters, digits and ._:/@- (no whitespace), or empty',
    ),
  ),
);
export const digestHex = v.pipe(v.string(), v.regex(DIGEST_PATTERN, 'digests are 6-128 lowercase hex digits'));
export const sha256 = v.pipe(v.string(), v.regex(SHA256_PATTERN, 'expected 64 lowercase hex digits (SHA-256)'));
/** A full git commit or tree id (SHA-1 repositories: 40 lowercase hex digits; SHA-256 ones: 64). */
export const gitObjectId = v.pipe(
  v.string(),
  v.regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'expected a full git object id (40 or 64 lowercase hex digits)'),
);
export const nonEmpty = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(4096, 'longer than 4096 characters'),
);
/** An identifier such as a test id or symbol: non-empty, no control characters. */
export const identifier = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(4096, 'longer than 4096 characters'),
  // eslint-disable-next-line no-control-regex
  v.regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters'),
);
export const instantText = v.pipe(
  v.string(),
  v.check(
    (s) => isInstant(parseInstant(s)),
    'must be an RFC 3339 date-time with an explicit offset, e.g. 2026-10-19T00:00:00+00:00',
  ),
);
export const glob = v.pipe(
  v.string(),
  v.check(
    (s) => checkGlob(s) === undefined,
    (issue) => `bad glob: ${checkGlob(String(issue.input)) ?? ''}`,
  ),
);
export const uniqueStrings = <S extends v.GenericSchema<string, string>>(item: S, what = 'entries') =>
  v.pipe(
    v.array(item),
    v.check((a) => new Set(a).size === a.length, `${what} must not repeat`),
  );

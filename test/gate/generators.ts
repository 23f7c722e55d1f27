import fc from 'fast-check';
import type { Credit } from '../../src/credit/schema.js';
import type { Freeze } from '../../src/freeze/schema.js';
import type { GateInputs } from '../../src/gate/decide.js';
import type { ProposalRecord } from '../../src/record/schema.js';
import { parseInstant, type Instant } from '../../src/core/time.js';
import type { FileClass } from '../../src/diff/classify.js';

/** Small pools, so that equal and unequal values both come up often. */
export const JOBS = ['model-session-17', 'MODEL-SESSION-17', 'server-job-88', 'reviewer-job-2', 'server-job-99'] as const;
export const DIGESTS = ['abc123', 'def456'] as const;
export const TESTS = ['prop-discount-bounds', 'prop-tax-bounds', 'test_report_timezone_flake'] as const;
export const SYMBOLS = ['apply_discount', 'tax_cents'] as const;
export const SHAS = ['a'.repeat(64), 'b'.repeat(64)] as const;
export const BASES = ['1'.repeat(40), '2'.repeat(40)] as const;
export const NOW_TEXT = '2026-10-12T12:00:00+00:00';
export const NOW = parseInstant(NOW_TEXT) as Instant;
export const EXPIRIES = ['2026-10-19T00:00:00+00:00', '2026-10-12T12:00:00Z', '2026-10-12T13:59:59+02:00', '2026-10-12T07:00:01-05:00', '2020-01-01T00:00:00Z'] as const;

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 3 });
const subset = <T>(items: readonly T[]): fc.Arbitrary<T[]> => fc.subarray([...items]);

export const recordArb: fc.Arbitrary<ProposalRecord> = fc
  .record({
    proposal_id: fc.constantFrom('p-014', 'p-015'),
    author_job: fc.constantFrom<string | null | undefined>(...JOBS, '', null, undefined),
    runner_job: fc.constantFrom<string | null | undefined>(...JOBS, '', undefined),
    patch_path: fc.constant('patches/014.diff'),
    digest_status: fc.constantFrom('sealed' as const, 'open' as const),
    logs_present: fc.boolean(),
    logs_after_seal: fc.boolean(),
    log_visibility: fc.constantFrom('hidden' as const, 'published' as const),
    digest: maybe(fc.constantFrom(...DIGESTS)),
    patch_sha256: maybe(fc.constantFrom(...SHAS)),
    base_commit: maybe(fc.constantFrom(...BASES)),
  })
  .map((r) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r)) if (v !== undefined) out[k] = v;
    return out as ProposalRecord;
  });

export const creditArb: fc.Arbitrary<Credit> = fc
  .record({
    credit_id: fc.constantFrom('credit-014', 'credit-013'),
    digest: fc.constantFrom(...DIGESTS),
    credited: subset(SYMBOLS),
    test_ids: subset(TESTS),
    missing: subset(SYMBOLS),
    tautologies: subset(TESTS),
    pass: fc.boolean(),
    runner_job: maybe(fc.constantFrom(...JOBS)),
    proposal_id: maybe(fc.constantFrom('p-014', 'p-015')),
    patch_sha256: maybe(fc.constantFrom(...SHAS)),
    base_commit: maybe(fc.constantFrom(...BASES)),
    changed: maybe(subset(SYMBOLS)),
    uncreditable: maybe(subset(['config/prices.yaml'])),
  })
  .map((c) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c)) if (v !== undefined) out[k] = v;
    return out as Credit;
  });

export const freezeArb: fc.Arbitrary<Freeze> = fc.record({
  freeze_id: fc.constant('fz-014'),
  author_job: fc.constantFrom(...JOBS),
  runner_job: fc.constantFrom(...JOBS),
  runner_digest: fc.constantFrom(...DIGESTS),
  credit_id: fc.constantFrom('credit-014', 'credit-013'),
  test_id: fc.constantFrom(...TESTS),
  expires_at: fc.constantFrom(...EXPIRIES),
});

const classArb = fc.constantFrom<FileClass>('production', 'test', 'ignored', 'other');

export const inputsArb: fc.Arbitrary<GateInputs> = fc.record({
  record: recordArb,
  patchFiles: fc.array(fc.record({ path: fc.constantFrom('src/pricing.py', 'tests/test_pricing.py', 'README.md'), class: classArb }), { maxLength: 3 }),
  patchSha256: fc.constantFrom(...SHAS),
  credit: fc.option(creditArb, { nil: null, freq: 5 }),
  freeze: fc.option(freezeArb, { nil: null, freq: 2 }),
  runnerFiles: fc.record({ status: fc.constantFrom<string | null>(null, 'sealed', 'open'), digest: fc.constantFrom<string | null>(null, ...DIGESTS) }),
  now: fc.constant(NOW),
});

/** Inputs the rules should ALLOW: built to satisfy every rule, then varied where the rules allow. */
export const allowArb: fc.Arbitrary<GateInputs> = fc
  .record({ withFreeze: fc.boolean(), bindAll: fc.boolean(), viaFile: fc.boolean(), published: fc.boolean(), logs: fc.boolean() })
  .map(({ withFreeze, bindAll, viaFile, published, logs }): GateInputs => {
    const sha = SHAS[0];
    const record: ProposalRecord = {
      proposal_id: 'p-014',
      author_job: 'model-session-17',
      runner_job: 'server-job-88',
      patch_path: 'patches/014.diff',
      digest_status: 'sealed',
      logs_present: logs,
      logs_after_seal: true,
      log_visibility: published ? 'published' : 'hidden',
      digest: 'abc123',
      patch_sha256: sha,
      base_commit: BASES[0],
    };
    const credit: Credit = {
      credit_id: 'credit-014',
      digest: 'abc123',
      credited: ['apply_discount', 'tax_cents'],
      test_ids: ['prop-discount-bounds', 'prop-tax-bounds'],
      missing: [],
      tautologies: [],
      pass: true,
      ...(bindAll ? { runner_job: 'server-job-88', proposal_id: 'p-014', patch_sha256: sha, base_commit: BASES[0], changed: ['apply_discount', 'tax_cents'], uncreditable: [] } : {}),
    };
    const freeze: Freeze | null = withFreeze
      ? { freeze_id: 'fz-014', author_job: 'reviewer-job-2', runner_job: 'server-job-88', runner_digest: 'abc123', credit_id: 'credit-014', test_id: 'test_report_timezone_flake', expires_at: '2026-10-19T00:00:00+00:00' }
      : null;
    return {
      record,
      patchFiles: [{ path: 'src/pricing.py', class: 'production' }],
      patchSha256: sha,
      credit,
      freeze,
      runnerFiles: viaFile ? { status: 'sealed', digest: 'abc123' } : { status: null, digest: null },
      now: NOW,
    };
  });

/** An allow-input with one field taken from a random input: close to the boundary, where bugs live. */
export const nearAllowArb: fc.Arbitrary<GateInputs> = fc.tuple(allowArb, inputsArb, fc.nat()).map(([a, r, k]) => {
  const parts = ['record', 'credit', 'freeze', 'runnerFiles', 'patchFiles', 'patchSha256'] as const;
  const part = parts[k % parts.length] as (typeof parts)[number];
  if (part === 'record' || part === 'credit' || part === 'freeze') {
    const to = a[part];
    if (to === null || r[part] === null) return { ...a, [part]: r[part] };
    const from = r[part] as Record<string, unknown>;
    const keys = Object.keys(to);
    const key = keys[Math.floor(k / parts.length) % keys.length] as string;
    const next: Record<string, unknown> = { ...to };
    if (key in from) next[key] = from[key];
    else delete next[key];
    return { ...a, [part]: next };
  }
  return { ...a, [part]: r[part] };
});

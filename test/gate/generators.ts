import fc from 'fast-check';
import type { Credit } from '../../src/credit/schema.js';
import type { Freeze } from '../../src/freeze/schema.js';
import type { GateInputs } from '../../src/gate/decide.js';
import type { ProposalRecord } from '../../src/record/schema.js';
import { parseInstant, type Instant } from '../../src/core/time.js';
import type { FileClass } from '../../src/diff/classify.js';
import type { Finding } from '../../src/core/errors.js';
import type { Results } from '../../src/runner/results.js';

/** Small pools, so that equal and unequal values both come up often. */
export const JOBS = [
  'model-session-17',
  'MODEL-SESSION-17',
  'server-job-88',
  'reviewer-job-2',
  'server-job-99',
] as const;
export const DIGESTS = ['abc123', 'def456'] as const;
export const TESTS = ['prop-discount-bounds', 'prop-tax-bounds', 'test_report_timezone_flake'] as const;
export const SYMBOLS = ['apply_discount', 'tax_cents'] as const;
export const SHAS = ['a'.repeat(64), 'b'.repeat(64)] as const;
export const BASES = ['1'.repeat(40), '2'.repeat(40)] as const;
export const NOW_TEXT = '2026-10-12T12:00:00+00:00';
export const NOW = parseInstant(NOW_TEXT) as Instant;
export const EXPIRIES = [
  '2026-10-19T00:00:00+00:00',
  '2026-10-12T12:00:00Z',
  '2026-10-12T13:59:59+02:00',
  '2026-10-12T07:00:01-05:00',
  '2020-01-01T00:00:00Z',
] as const;

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
    results_sha256: maybe(fc.constantFrom(...SHAS)),
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

export const POLICY_FINDING: Finding = {
  code: 'E_POLICY_CHANGED',
  path: '.npmrc',
  detail: 'the patch adds .npmrc, a policy file',
};

/** A sealed run's results: every case passed, unless `failing` names one that failed. */
export function resultsOf(ids: readonly string[], failing: string | null, over: Partial<Results> = {}): Results {
  return {
    runner_job: 'server-job-88',
    digest: 'abc123',
    command: ['npm', 'test'],
    exit_code: failing === null ? 0 : 1,
    signal: null,
    timed_out: false,
    started_at: '2026-10-12T11:00:00Z',
    ended_at: '2026-10-12T11:01:00Z',
    sandbox: 'bwrap',
    cwd: '/sealgate/work',
    junit: [{ path: 'junit.xml', sha256: 'e'.repeat(64), status: 'ok' }],
    cases: ids.map((id) => ({
      id,
      file: null,
      suite: '',
      name: id,
      status: id === failing ? ('failed' as const) : ('passed' as const),
      duration_ms: 1,
    })),
    ...over,
  };
}

const resultsValueArb: fc.Arbitrary<Results> = fc
  .record({
    ids: subset(TESTS),
    failing: fc.constantFrom<string | null>(null, ...TESTS),
    runner: fc.constantFrom(...JOBS),
    digest: fc.constantFrom(...DIGESTS),
    exit: fc.constantFrom<number | null>(0, 1, null),
    timedOut: fc.boolean(),
  })
  .map(({ ids, failing, runner, digest, exit, timedOut }) =>
    resultsOf(ids, failing, { runner_job: runner, digest, exit_code: exit, timed_out: timedOut }),
  );

export const inputsArb: fc.Arbitrary<GateInputs> = fc.record({
  record: recordArb,
  patchFiles: fc.array(
    fc.record({ path: fc.constantFrom('src/pricing.py', 'tests/test_pricing.py', 'README.md'), class: classArb }),
    { maxLength: 3 },
  ),
  patchSha256: fc.constantFrom(...SHAS),
  surface: fc.constantFrom<readonly Finding[]>([], [], [], [POLICY_FINDING]),
  credit: fc.option(creditArb, { nil: null, freq: 5 }),
  freeze: fc.option(freezeArb, { nil: null, freq: 2 }),
  results: fc.option(fc.record({ value: resultsValueArb, sha256: fc.constantFrom(...SHAS) }), { nil: null, freq: 5 }),
  runnerFiles: fc.record({
    status: fc.constantFrom<string | null>(null, 'sealed', 'open'),
    digest: fc.constantFrom<string | null>(null, ...DIGESTS),
  }),
  now: fc.constant(NOW),
});

/** Inputs the rules should ALLOW: built to satisfy every rule, then varied where the rules allow. */
export const allowArb: fc.Arbitrary<GateInputs> = fc
  .record({
    withFreeze: fc.boolean(),
    bindAll: fc.boolean(),
    viaFile: fc.boolean(),
    published: fc.boolean(),
    logs: fc.boolean(),
    flakeFails: fc.boolean(),
  })
  .map(({ withFreeze, bindAll, viaFile, published, logs, flakeFails }): GateInputs => {
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
      results_sha256: SHAS[1],
      ...(bindAll
        ? {
            runner_job: 'server-job-88',
            proposal_id: 'p-014',
            patch_sha256: sha,
            base_commit: BASES[0],
            changed: ['apply_discount', 'tax_cents'],
            uncreditable: [],
          }
        : {}),
    };
    const freeze: Freeze | null = withFreeze
      ? {
          freeze_id: 'fz-014',
          author_job: 'reviewer-job-2',
          runner_job: 'server-job-88',
          runner_digest: 'abc123',
          credit_id: 'credit-014',
          test_id: 'test_report_timezone_flake',
          expires_at: '2026-10-19T00:00:00+00:00',
        }
      : null;
    return {
      record,
      patchFiles: [{ path: 'src/pricing.py', class: 'production' }],
      patchSha256: sha,
      surface: [],
      credit,
      freeze,
      // A failing test is allowed only when the freeze waives it.
      results: {
        value: resultsOf(TESTS, withFreeze && flakeFails ? 'test_report_timezone_flake' : null),
        sha256: SHAS[1],
      },
      runnerFiles: viaFile ? { status: 'sealed', digest: 'abc123' } : { status: null, digest: null },
      now: NOW,
    };
  });

/** An allow-input with one field taken from a random input: close to the boundary, where bugs live. */
export const nearAllowArb: fc.Arbitrary<GateInputs> = fc.tuple(allowArb, inputsArb, fc.nat()).map(([a, r, k]) => {
  const parts = [
    'record',
    'credit',
    'freeze',
    'runnerFiles',
    'patchFiles',
    'patchSha256',
    'surface',
    'results',
  ] as const;
  const part = parts[k % parts.length] as (typeof parts)[number];
  if (part === 'results')
    return {
      ...a,
      results:
        r.results === null
          ? null
          : { ...r.results, value: { ...r.results.value, cases: (a.results?.value.cases ?? []).slice(k % 2) } },
    };
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

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decide, type GateInputs } from '../../src/gate/decide.js';
import type { DecisionCode } from '../../src/core/codes.js';
import { parseInstant, type Instant } from '../../src/core/time.js';
import { allowArb, inputsArb, nearAllowArb, NOW, SHAS } from './generators.js';

/**
 * An independent reference model of the rules, written from the precedence list
 * and the spec's snippets (made fail-closed), not from src/gate/decide.ts.
 */
function model(x: GateInputs): DecisionCode {
  const low = (s: string): string => s.toLowerCase();
  const a = x.record.author_job;
  const r = x.record.runner_job;
  if (a === undefined || a === null || a === '' || r === undefined || r === null || r === '') return 'E_JOB_MISSING';
  if (low(a) === low(r)) return 'E_SHARED_JOB';
  const z = x.freeze;
  if (z && (low(z.author_job) === low(a) || low(z.author_job) === low(r) || low(z.author_job) === low(z.runner_job)))
    return 'E_SHARED_JOB';
  if (x.surface.length > 0) return 'E_POLICY_CHANGED';
  if (x.patchFiles.length === 0) return 'E_EMPTY_DIFF';
  if (x.patchFiles.every((f) => f.class === 'test' || f.class === 'ignored')) return 'E_TEST_ONLY';
  const c = x.credit;
  if (c === null) return 'E_CREDIT_MISSING';
  if (x.record.digest_status !== 'sealed') return 'E_DIGEST_OPEN';
  if (x.runnerFiles.status !== null && x.runnerFiles.status !== 'sealed') return 'E_DIGEST_OPEN';
  if (x.record.logs_present === true && x.record.logs_after_seal === false) return 'E_LOGS_EARLY';
  if (x.record.digest === undefined || x.record.patch_sha256 === undefined || x.record.base_commit === undefined)
    return 'E_CREDIT_UNBOUND';
  if (c.base_commit !== undefined && c.base_commit !== x.record.base_commit) return 'E_CREDIT_UNBOUND';
  if (c.digest !== x.record.digest) return 'E_CREDIT_UNBOUND';
  if (x.runnerFiles.digest !== null && x.runnerFiles.digest !== x.record.digest) return 'E_CREDIT_UNBOUND';
  if (c.runner_job !== undefined && low(c.runner_job) !== low(r)) return 'E_CREDIT_UNBOUND';
  if (c.proposal_id !== undefined && c.proposal_id !== x.record.proposal_id) return 'E_CREDIT_UNBOUND';
  if (c.patch_sha256 !== undefined && c.patch_sha256 !== x.patchSha256) return 'E_CREDIT_UNBOUND';
  if (x.record.patch_sha256 !== x.patchSha256) return 'E_CREDIT_UNBOUND';
  const res = x.results;
  if (res !== null) {
    if (c.results_sha256 !== undefined && c.results_sha256 !== res.sha256) return 'E_CREDIT_UNBOUND';
    if (res.value.digest !== c.digest || low(res.value.runner_job) !== low(r)) return 'E_CREDIT_UNBOUND';
  }
  const changed = c.changed ?? c.credited;
  const passes =
    c.pass === true &&
    c.missing.length === 0 &&
    c.credited.length > 0 &&
    c.test_ids.length > 0 &&
    !c.tautologies.some((t) => c.test_ids.includes(t)) &&
    changed.every((s) => c.credited.includes(s)) &&
    c.credited.every((s) => changed.includes(s)) &&
    (c.uncreditable ?? []).length === 0;
  if (!passes) return 'E_CREDIT_MISSING';
  if (z) {
    if (z.runner_digest !== c.digest || z.credit_id !== c.credit_id || low(z.runner_job) !== low(r))
      return 'E_FREEZE_UNBOUND';
    if (c.test_ids.includes(z.test_id)) return 'E_FREEZE_COVERS_CREDIT';
    const expiry = parseInstant(z.expires_at) as Instant;
    if (expiry.ns <= x.now.ns) return 'E_FREEZE_EXPIRED';
  }
  // Every sealed case passed or was skipped, but the one a (valid) freeze waives.
  if (c.results_sha256 === undefined || res === null) return 'E_TESTS_FAILED';
  const run = res.value;
  if (
    run.timed_out ||
    run.signal !== null ||
    run.junit.some((j) => j.status !== 'ok') ||
    run.cases.length === 0 ||
    !run.cases.some((k) => k.status === 'passed')
  )
    return 'E_TESTS_FAILED';
  const failed = run.cases.filter((k) => k.status === 'failed' || k.status === 'error');
  if (failed.some((k) => k.id !== z?.test_id)) return 'E_TESTS_FAILED';
  if (run.exit_code !== null && run.exit_code !== 0 && failed.length === 0) return 'E_TESTS_FAILED';
  return 'ALLOW';
}

test('property: the gate agrees with the reference model on random inputs', () => {
  const seen = new Set<DecisionCode>();
  fc.assert(
    fc.property(fc.oneof(inputsArb, nearAllowArb), (x) => {
      const got = decide(x).code;
      seen.add(got);
      assert.equal(got, model(x));
    }),
    { numRuns: 20000 },
  );
  // The generator must reach every rule, or agreement proves little.
  for (const code of [
    'ALLOW',
    'E_JOB_MISSING',
    'E_SHARED_JOB',
    'E_EMPTY_DIFF',
    'E_TEST_ONLY',
    'E_CREDIT_MISSING',
    'E_DIGEST_OPEN',
    'E_LOGS_EARLY',
    'E_CREDIT_UNBOUND',
    'E_FREEZE_UNBOUND',
    'E_FREEZE_COVERS_CREDIT',
    'E_FREEZE_EXPIRED',
    'E_POLICY_CHANGED',
    'E_TESTS_FAILED',
  ] as const) {
    assert.ok(seen.has(code), `generator never produced ${code}`);
  }
});

test('property: the generated allow-inputs are allowed (and the model agrees)', () => {
  fc.assert(
    fc.property(allowArb, (x) => {
      assert.equal(decide(x).code, 'ALLOW');
      assert.equal(model(x), 'ALLOW');
    }),
  );
});

/** Each flip moves one field a rule reads away from what ALLOW needs. */
const FLIPS: Record<string, (x: GateInputs) => GateInputs> = {
  'author = runner': (x) => ({ ...x, record: { ...x.record, author_job: x.record.runner_job ?? 'j' } }),
  'author empty': (x) => ({ ...x, record: { ...x.record, author_job: '' } }),
  'runner absent': (x) => {
    const { runner_job: _r, ...rest } = x.record;
    return { ...x, record: rest };
  },
  'digest_status open': (x) => ({ ...x, record: { ...x.record, digest_status: 'open' } }),
  'logs_after_seal false with logs': (x) => ({
    ...x,
    record: { ...x.record, logs_present: true, logs_after_seal: false },
  }),
  'status file open': (x) => ({ ...x, runnerFiles: { ...x.runnerFiles, status: 'open' } }),
  'digest file differs': (x) => ({ ...x, runnerFiles: { ...x.runnerFiles, digest: 'ffffff' } }),
  'record digest differs': (x) => ({ ...x, record: { ...x.record, digest: 'eeeeee' } }),
  'no patch files': (x) => ({ ...x, patchFiles: [] }),
  'only tests': (x) => ({ ...x, patchFiles: x.patchFiles.map((f) => ({ ...f, class: 'test' as const })) }),
  'patch bytes changed': (x) => ({ ...x, patchSha256: 'c'.repeat(64) }),
  'record digest absent': (x) => {
    const { digest: _d, ...rest } = x.record;
    return { ...x, record: rest };
  },
  'record patch hash absent': (x) => {
    const { patch_sha256: _p, ...rest } = x.record;
    return { ...x, record: rest };
  },
  'record base commit absent': (x) => {
    const { base_commit: _b, ...rest } = x.record;
    return { ...x, record: rest };
  },
  'credit scored on another base': (x) =>
    x.credit ? { ...x, credit: { ...x.credit, base_commit: '9'.repeat(40) } } : x,
  'no credit': (x) => ({ ...x, credit: null }),
  'credit pass false': (x) => (x.credit ? { ...x, credit: { ...x.credit, pass: false } } : x),
  'credit missing a symbol': (x) => (x.credit ? { ...x, credit: { ...x.credit, missing: ['tax_cents'] } } : x),
  'credit nothing credited': (x) => (x.credit ? { ...x, credit: { ...x.credit, credited: [] } } : x),
  'credit digest differs': (x) => (x.credit ? { ...x, credit: { ...x.credit, digest: 'dddddd' } } : x),
  'credit runner differs': (x) => (x.credit ? { ...x, credit: { ...x.credit, runner_job: 'other-runner' } } : x),
  'credit proposal differs': (x) => (x.credit ? { ...x, credit: { ...x.credit, proposal_id: 'p-other' } } : x),
  'credit uncreditable': (x) => (x.credit ? { ...x, credit: { ...x.credit, uncreditable: ['x.yaml'] } } : x),
  'freeze by author': (x) => (x.freeze ? { ...x, freeze: { ...x.freeze, author_job: x.record.author_job || 'a' } } : x),
  'freeze by runner': (x) => (x.freeze ? { ...x, freeze: { ...x.freeze, author_job: x.record.runner_job || 'r' } } : x),
  'freeze digest differs': (x) => (x.freeze ? { ...x, freeze: { ...x.freeze, runner_digest: 'cccccc' } } : x),
  'freeze credit id differs': (x) => (x.freeze ? { ...x, freeze: { ...x.freeze, credit_id: 'credit-other' } } : x),
  'freeze runner differs': (x) => (x.freeze ? { ...x, freeze: { ...x.freeze, runner_job: 'runner-other' } } : x),
  'freeze covers credit': (x) =>
    x.freeze && x.credit?.test_ids[0] ? { ...x, freeze: { ...x.freeze, test_id: x.credit.test_ids[0] } } : x,
  'policy surface touched': (x) => ({
    ...x,
    surface: [{ code: 'E_POLICY_CHANGED', path: 'package.json', detail: 'test script changed' }],
  }),
  'results absent': (x) => ({ ...x, results: null }),
  'credit binds no results': (x) => {
    if (!x.credit) return x;
    const { results_sha256: _r, ...rest } = x.credit;
    return { ...x, credit: rest };
  },
  'results bytes differ': (x) => (x.results ? { ...x, results: { ...x.results, sha256: 'f'.repeat(64) } } : x),
  'results from another digest': (x) =>
    x.results ? { ...x, results: { ...x.results, value: { ...x.results.value, digest: 'ffffff' } } } : x,
  'results by another runner': (x) =>
    x.results ? { ...x, results: { ...x.results, value: { ...x.results.value, runner_job: 'runner-other' } } } : x,
  'zero cases': (x) => (x.results ? { ...x, results: { ...x.results, value: { ...x.results.value, cases: [] } } } : x),
  'an unfrozen case failed': (x) =>
    x.results
      ? {
          ...x,
          results: {
            ...x.results,
            value: {
              ...x.results.value,
              cases: x.results.value.cases.map((k) =>
                k.id === 'prop-tax-bounds' ? { ...k, status: 'failed' as const } : k,
              ),
            },
          },
        }
      : x,
  'a case errored': (x) =>
    x.results
      ? {
          ...x,
          results: {
            ...x.results,
            value: {
              ...x.results.value,
              cases: x.results.value.cases.map((k) =>
                k.id === 'prop-discount-bounds' ? { ...k, status: 'error' as const } : k,
              ),
            },
          },
        }
      : x,
  'run timed out': (x) =>
    x.results ? { ...x, results: { ...x.results, value: { ...x.results.value, timed_out: true } } } : x,
  'run killed': (x) =>
    x.results ? { ...x, results: { ...x.results, value: { ...x.results.value, signal: 'SIGKILL' } } } : x,
  'exit 1 without a failing case': (x) =>
    x.results
      ? {
          ...x,
          results: {
            ...x.results,
            value: {
              ...x.results.value,
              exit_code: 1,
              cases: x.results.value.cases.map((k) => ({ ...k, status: 'passed' as const })),
            },
          },
        }
      : x,
  'freeze dropped while its test fails': (x) =>
    x.results?.value.cases.some((k) => k.status === 'failed') ? { ...x, freeze: null } : x,
  'freeze expires now': (x) => (x.freeze ? { ...x, freeze: { ...x.freeze, expires_at: '2026-10-12T12:00:00Z' } } : x),
};

test('property: flipping any single field a rule reads turns ALLOW into a reject', () => {
  fc.assert(
    fc.property(allowArb, fc.constantFrom(...Object.keys(FLIPS)), (x, name) => {
      const flipped = (FLIPS[name] as (x: GateInputs) => GateInputs)(x);
      if (flipped === x) return; // flip not applicable (e.g. no freeze to flip)
      assert.notEqual(decide(flipped).code, 'ALLOW', name);
    }),
    { numRuns: 3000 },
  );
});

test('property: no flip ever turns a reject into ALLOW', () => {
  fc.assert(
    fc.property(fc.oneof(inputsArb, nearAllowArb), fc.constantFrom(...Object.keys(FLIPS)), (x, name) => {
      const flipped = (FLIPS[name] as (x: GateInputs) => GateInputs)(x);
      if (decide(x).code !== 'ALLOW') assert.notEqual(decide(flipped).code, 'ALLOW', name);
    }),
    { numRuns: 5000 },
  );
});

test('findings are data: every reject names a path and a detail, and ALLOW has none', () => {
  fc.assert(
    fc.property(inputsArb, (x) => {
      const d = decide(x);
      if (d.code === 'ALLOW') {
        assert.equal(d.decisive, null);
        assert.equal(d.findings.length, 0);
      } else {
        assert.equal(d.decisive?.code, d.code);
        assert.ok(d.findings.every((f) => f.detail.length > 0));
      }
    }),
    { numRuns: 2000 },
  );
});

test('the spec trace, branch by branch', () => {
  const base = fc.sample(allowArb, 1)[0] as GateInputs;
  const credit = {
    credit_id: 'credit-014',
    digest: 'abc123',
    credited: ['apply_discount'],
    test_ids: ['prop-discount-bounds'],
    missing: ['tax_cents'],
    tautologies: ['prop-tax-identity'],
    pass: false,
  };
  const freeze = {
    freeze_id: 'fz-014',
    author_job: 'reviewer-job-2',
    runner_job: 'server-job-88',
    runner_digest: 'abc123',
    credit_id: 'credit-014',
    test_id: 'test_report_timezone_flake',
    expires_at: '2026-10-19T00:00:00+00:00',
  };
  const rec = { ...base.record, digest: 'abc123', patch_sha256: base.patchSha256, base_commit: '1'.repeat(40) };
  const files = { status: null, digest: null };
  assert.equal(decide({ ...base, record: rec, runnerFiles: files, credit, freeze }).code, 'E_CREDIT_MISSING');
  const passing = {
    ...credit,
    credited: ['apply_discount', 'tax_cents'],
    test_ids: ['prop-discount-bounds', 'prop-tax-bounds'],
    missing: [],
    tautologies: [],
    pass: true,
    results_sha256: SHAS[1],
  };
  const y = { ...base, record: rec, runnerFiles: files, credit: passing };
  assert.equal(decide({ ...y, freeze: { ...freeze, test_id: 'prop-discount-bounds' } }).code, 'E_FREEZE_COVERS_CREDIT');
  assert.equal(decide({ ...y, freeze }).code, 'ALLOW');
  assert.equal(decide({ ...y, freeze, now: parseInstant('2026-10-19T00:00:00Z') as Instant }).code, 'E_FREEZE_EXPIRED');
  assert.equal(NOW.text, '2026-10-12T12:00:00+00:00');
});

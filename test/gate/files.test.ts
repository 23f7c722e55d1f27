import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { decide } from '../../src/gate/decide.js';
import { parseGateFiles, type GateFiles } from '../../src/gate/read.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { sha256Hex } from '../../src/core/ids.js';
import { NOW } from './generators.js';

const patch = readFileSync(new URL('./prod.diff', import.meta.url));
const sha = sha256Hex(patch);
const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const json = (v: unknown): Uint8Array => enc(JSON.stringify(v, null, 2) + '\n');

const recordJson = {
  proposal_id: 'p-014',
  author_job: 'model-session-17',
  runner_job: 'server-job-88',
  patch_path: 'patches/014.diff',
  digest_status: 'sealed',
  logs_present: true,
  logs_after_seal: true,
  log_visibility: 'hidden',
  digest: 'abc123',
  patch_sha256: sha,
  base_commit: 'ab'.repeat(20),
};
const recordYaml =
  Object.entries(recordJson)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join('\n') + '\n';
const resultsJson = {
  runner_job: 'server-job-88',
  digest: 'abc123',
  command: ['npm', 'test'],
  exit_code: 0,
  signal: null,
  timed_out: false,
  started_at: '2026-10-12T11:00:00Z',
  ended_at: '2026-10-12T11:01:00Z',
  sandbox: 'bwrap',
  cwd: '/sealgate/work',
  junit: [{ path: 'junit.xml', sha256: 'e'.repeat(64), status: 'ok' }],
  cases: ['prop-discount-bounds', 'prop-tax-bounds'].map((name) => ({
    id: `pricing::${name}`,
    file: null,
    suite: 'pricing',
    name,
    status: 'passed',
    duration_ms: 3,
  })),
};
const results = json(resultsJson);
const credit = {
  results_sha256: sha256Hex(results),
  credit_id: 'credit-014',
  digest: 'abc123',
  credited: ['apply_discount', 'tax_cents'],
  test_ids: ['prop-discount-bounds', 'prop-tax-bounds'],
  missing: [],
  tautologies: [],
  pass: true,
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

function files(yaml: boolean): GateFiles {
  return {
    record: yaml ? enc(recordYaml) : json(recordJson),
    recordFormat: yaml ? 'yaml' : 'json',
    credit: json(credit),
    freeze: json(freeze),
    patch,
    digestTxt: enc('abc123\n'),
    statusTxt: enc('sealed\n'),
    results,
    surface: null,
  };
}

const run = (f: GateFiles): string => {
  const r = parseGateFiles(f, DEFAULT_CONFIG, NOW);
  return r.ok ? decide(r.value).code : 'E_INPUT_INVALID';
};

test('the untouched files are allowed, as JSON and as YAML', () => {
  assert.equal(run(files(false)), 'ALLOW');
  assert.equal(run(files(true)), 'ALLOW');
});

const KEYS = ['record', 'credit', 'freeze', 'patch', 'digestTxt', 'statusTxt', 'results'] as const;
// results.json is JSON too, but bound by its SHA-256 (the credit's results_sha256): any change of its bytes is a reject.
const JSON_KEYS = new Set<string>(['credit', 'freeze']);
const isJson = (yaml: boolean, key: string): boolean => JSON_KEYS.has(key) || (key === 'record' && !yaml);
/** JSON needs no final newline: a cut that removes only trailing whitespace leaves the same document. */
const contentLength = (bytes: Uint8Array, json: boolean): number =>
  json ? Buffer.from(bytes).toString('utf8').trimEnd().length : bytes.length;

test('JSON inputs without a final newline are accepted; YAML and line-oriented files keep the rule', () => {
  for (const yaml of [false, true]) {
    const f = files(yaml);
    for (const key of KEYS) {
      const bytes = f[key] as Uint8Array;
      const code = run({ ...f, [key]: bytes.subarray(0, bytes.length - 1) });
      if (key === 'results')
        assert.equal(
          code,
          'E_CREDIT_UNBOUND',
          'results.json without its final newline is other bytes than the credit binds',
        );
      else
        assert.equal(
          code,
          isJson(yaml, key) ? 'ALLOW' : 'E_INPUT_INVALID',
          `${yaml ? 'yaml' : 'json'} ${key} without its final newline`,
        );
    }
  }
});

test('property: cutting any input file at any byte of its content never gives ALLOW', () => {
  fc.assert(
    fc.property(fc.boolean(), fc.boolean(), fc.constantFrom(...KEYS), fc.nat(), (yaml, bare, key, cut) => {
      const f = files(yaml);
      const json = isJson(yaml, key);
      // JSON files are tried both with their final newline and without (as most writers save them).
      const bytes =
        json && bare
          ? (f[key] as Uint8Array).subarray(0, contentLength(f[key] as Uint8Array, true))
          : (f[key] as Uint8Array);
      const k = cut % contentLength(bytes, json); // a strict prefix of the content, possibly empty
      const code = run({ ...f, [key]: bytes.subarray(0, k) });
      assert.notEqual(code, 'ALLOW', `${key} cut at ${k} of ${bytes.length}`);
    }),
    { numRuns: 4000 },
  );
});

test('exhaustive: every prefix of every file is refused, down to its content', () => {
  for (const yaml of [false, true]) {
    const f = files(yaml);
    for (const key of KEYS) {
      const bytes = f[key] as Uint8Array;
      const end = contentLength(bytes, isJson(yaml, key));
      for (let k = 0; k < end; k++)
        assert.notEqual(run({ ...f, [key]: bytes.subarray(0, k) }), 'ALLOW', `${key} cut at ${k}`);
      // What lies past the content of a JSON file is whitespace: cutting it leaves the document.
      for (let k = end; k < bytes.length; k++)
        assert.equal(run({ ...f, [key]: bytes.subarray(0, k) }), 'ALLOW', `${key} cut at ${k} (whitespace only)`);
    }
  }
});

test('every invalid file is named, not just the first', () => {
  const r = parseGateFiles({ ...files(false), credit: enc('{"pass": true'), freeze: enc('{}\n') }, DEFAULT_CONFIG, NOW);
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.ok(r.findings.some((f) => f.path === 'credit'));
    assert.ok(r.findings.some((f) => f.path.startsWith('freeze#')));
  }
});

test('an absent credit is no property run; an absent status file defers to the record', () => {
  assert.equal(run({ ...files(false), credit: null }), 'E_CREDIT_MISSING');
  assert.equal(run({ ...files(false), statusTxt: null, digestTxt: null, freeze: null }), 'ALLOW');
  assert.equal(run({ ...files(false), statusTxt: enc('sealed\nsealed\n') }), 'E_INPUT_INVALID');
  assert.equal(run({ ...files(false), digestTxt: enc('ABC123\n') }), 'E_INPUT_INVALID');
});

test('the sealed results: absent, another run, a failing case, or no case is not ALLOW', () => {
  assert.equal(run({ ...files(false), results: null }), 'E_TESTS_FAILED');
  const other = json({ ...resultsJson, ended_at: '2026-10-12T11:02:00Z' });
  assert.equal(run({ ...files(false), results: other }), 'E_CREDIT_UNBOUND');
  const failing = (cases: unknown[], exit: number): GateFiles => {
    const bytes = json({ ...resultsJson, exit_code: exit, cases });
    return { ...files(false), results: bytes, credit: json({ ...credit, results_sha256: sha256Hex(bytes) }) };
  };
  const [a, b] = resultsJson.cases as unknown as [Record<string, unknown>, Record<string, unknown>];
  assert.equal(run(failing([a, { ...b, status: 'failed' }], 1)), 'E_TESTS_FAILED');
  assert.equal(run(failing([], 0)), 'E_TESTS_FAILED');
  assert.equal(run(failing([a, { ...b, status: 'skipped' }], 0)), 'ALLOW');
  // A run in which no case passed shows nothing, even with none failing.
  assert.equal(
    run(
      failing(
        [
          { ...a, status: 'skipped' },
          { ...b, status: 'skipped' },
        ],
        0,
      ),
    ),
    'E_TESTS_FAILED',
  );
  // The freeze waives its own test, by case id, and nothing else.
  const flake = {
    id: 'receipt::test_report_timezone_flake',
    file: null,
    suite: 'receipt',
    name: 'test_report_timezone_flake',
    status: 'failed',
    duration_ms: 1,
  };
  const waived = { ...failing([a, b, flake], 1), freeze: json({ ...freeze, test_id: flake.id }) };
  assert.equal(run(waived), 'ALLOW');
  assert.equal(run({ ...waived, freeze: null }), 'E_TESTS_FAILED');
  assert.equal(
    run({ ...failing([{ ...a, status: 'skipped' }, flake], 1), freeze: json({ ...freeze, test_id: flake.id }) }),
    'E_TESTS_FAILED',
    'only the waived test ran',
  );
  assert.equal(
    run({ ...failing([a, { ...b, status: 'error' }, flake], 1), freeze: json({ ...freeze, test_id: flake.id }) }),
    'E_TESTS_FAILED',
  );
});

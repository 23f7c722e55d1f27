import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { toJsonText } from '../../src/core/json.js';
import { parseResults, readResults, writeResults, type Results } from '../../src/runner/results.js';
import { tempDir } from '../helpers/git.js';

const GOOD: Results = {
  runner_job: 'runner-1',
  digest: 'ab'.repeat(32),
  command: ['npm', 'test'],
  exit_code: 1,
  signal: null,
  timed_out: false,
  started_at: '2026-10-12T12:00:00Z',
  ended_at: '2026-10-12T12:00:02Z',
  junit: [{ path: 'junit.xml', sha256: 'cd'.repeat(32), status: 'ok' }],
  cases: [{ id: 'a.test.ts::s::n', file: 'a.test.ts', suite: 's', name: 'n', status: 'passed', duration_ms: 3 }],
  sandbox: 'bwrap',
  cwd: '/sealgate/work',
};

const text = (r: unknown): Buffer => Buffer.from(toJsonText(r));
const bad = (r: unknown, pattern: RegExp): void => {
  const p = parseResults(text(r));
  assert.equal(p.ok, false);
  if (!p.ok) assert.match(p.findings.map((f) => `${f.path} ${f.detail}`).join('; '), pattern);
};

test('results round-trip through write and read; the file is private (0600)', () => {
  const t = tempDir();
  try {
    mkdirSync(join(t.dir, 'review/runner'), { recursive: true });
    writeResults(t.dir, GOOD);
    assert.deepEqual(readResults(t.dir), GOOD);
    assert.equal(statSync(join(t.dir, 'review/runner/results.json')).mode & 0o777, 0o600);
  } finally {
    t.dispose();
  }
});

test('cross-field rules: unique ids equal to file::suite::name, no cases without a readable JUnit file, consistent statuses and times', () => {
  const c = GOOD.cases[0] as Results['cases'][number];
  bad({ ...GOOD, cases: [c, c] }, /duplicate case id/);
  bad({ ...GOOD, cases: [{ ...c, id: 'forged::id' }] }, /not file::suite::name/);
  bad(
    { ...GOOD, junit: [{ path: 'junit.xml', sha256: null, status: 'missing', detail: 'gone' }] },
    /without any readable JUnit file/,
  );
  bad({ ...GOOD, junit: [{ path: 'junit.xml', sha256: null, status: 'ok' }] }, /null exactly when the file is missing/);
  bad({ ...GOOD, junit: [{ path: 'junit.xml', sha256: 'cd'.repeat(32), status: 'malformed' }] }, /needs a detail/);
  bad({ ...GOOD, signal: 'SIGKILL' }, /not both/);
  bad({ ...GOOD, ended_at: '2026-10-12T11:59:59Z' }, /ends before it starts/);
  bad({ ...GOOD, extra: 1 }, /extra/);
  bad({ ...GOOD, cases: [{ ...c, status: 'passed-ish' }] }, /cases\.0\.status/);
  bad({ ...GOOD, cases: [{ ...c, name: 'a\nb', id: 'a.test.ts::s::a\nb' }] }, /control characters/);
});

test('hostile bytes: every truncation, trailing garbage, duplicate keys and a BOM are refused', () => {
  const bytes = text(GOOD);
  // A cut before the closing brace never parses; past it only the final newline (whitespace) goes.
  const content = bytes.toString('utf8').trimEnd().length;
  for (let n = 0; n < content; n++) assert.equal(parseResults(bytes.subarray(0, n)).ok, false, `cut at ${n}`);
  assert.equal(parseResults(Buffer.concat([bytes, Buffer.from('{}\n')])).ok, false);
  assert.equal(
    parseResults(Buffer.from(toJsonText(GOOD).replace('"timed_out": false', '"timed_out": false, "timed_out": true')))
      .ok,
    false,
  );
  assert.equal(parseResults(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])).ok, false);
  assert.equal(parseResults(Buffer.from(toJsonText(GOOD).replace(/\n/g, '\r\n'))).ok, true, 'CRLF is JSON whitespace');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JournalEvent } from '../../src/store/journal.js';
import { deriveFullLogState } from '../../src/runner/state.js';
import { editRecordText } from '../../src/record/file.js';

const D = 'cd'.repeat(32);
const H = 'ef'.repeat(32);
const common = { runner_job: 'r-1', digest: D, prev_sha256: '0'.repeat(64), at: '2026-10-12T12:00:00Z' };
const published: JournalEvent[] = [
  { ...common, seq: 1, type: 'seal' },
  { ...common, seq: 2, type: 'run-start', command: ['true'], sandbox: 'bwrap' },
  { ...common, seq: 3, type: 'log', file: 'stdout.log', sha256: H, bytes: 1 },
  { ...common, seq: 4, type: 'run-end', exit_code: 0, signal: null, timed_out: false },
  { ...common, seq: 5, type: 'publish', files: ['stdout.log'] },
];
const store = [{ name: 'stdout.log', sha256: H, bytes: 1 }];

test('deriveFullLogState: the journal decides for the store; a published copy must be exactly the published store', () => {
  assert.deepEqual(deriveFullLogState(published, store, store), {
    logs_present: true,
    logs_after_seal: true,
    log_visibility: 'published',
  });
  assert.deepEqual(deriveFullLogState(published.slice(0, 4), store, []), {
    logs_present: true,
    logs_after_seal: true,
    log_visibility: 'hidden',
  });
  assert.deepEqual(
    deriveFullLogState(published.slice(0, 4), store, store),
    { logs_present: true, logs_after_seal: false, log_visibility: 'hidden' },
    'copied without a publish',
  );
  assert.deepEqual(deriveFullLogState([], [], []), {
    logs_present: false,
    logs_after_seal: true,
    log_visibility: 'hidden',
  });
  assert.deepEqual(deriveFullLogState([], [], store), {
    logs_present: true,
    logs_after_seal: false,
    log_visibility: 'hidden',
  });
});

test('property: any published copy that differs from the store means logs not after the seal', () => {
  const fileArb = fc.record({
    name: fc.constantFrom('stdout.log', 'stderr.log', 'junit-1.xml'),
    sha256: fc.constantFrom(H, D),
    bytes: fc.nat(10),
  });
  fc.assert(
    fc.property(
      fc.uniqueArray(fileArb, { selector: (f) => f.name, maxLength: 3 }),
      fc.uniqueArray(fileArb, { selector: (f) => f.name, minLength: 1, maxLength: 3 }),
      (st, pub) => {
        const same =
          st.length === pub.length && pub.every((p) => st.some((s) => s.name === p.name && s.sha256 === p.sha256));
        const state = deriveFullLogState(published, st, pub);
        if (!same) assert.deepEqual(state, { logs_present: true, logs_after_seal: false, log_visibility: 'hidden' });
        if (state.log_visibility === 'published') assert.ok(same && state.logs_after_seal);
      },
    ),
  );
});

test('editRecordText with the log fields: JSON keeps key order; YAML keeps comments and other fields', () => {
  const json =
    '{\n  "proposal_id": "p",\n  "logs_present": false,\n  "logs_after_seal": true,\n  "log_visibility": "hidden",\n  "z": 1\n}\n';
  assert.equal(
    editRecordText(json, 'json', { logs_present: true, logs_after_seal: false, log_visibility: 'hidden' }),
    '{\n  "proposal_id": "p",\n  "logs_present": true,\n  "logs_after_seal": false,\n  "log_visibility": "hidden",\n  "z": 1\n}\n',
  );
  const yaml =
    '# the record\nproposal_id: p # id\nlogs_present: false\nlogs_after_seal: true\nlog_visibility: hidden\n';
  assert.equal(
    editRecordText(yaml, 'yaml', { logs_present: true, logs_after_seal: true, log_visibility: 'published' }),
    '# the record\nproposal_id: p # id\nlogs_present: true\nlogs_after_seal: true\nlog_visibility: published\n',
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  appendJournal,
  checkJournal,
  deriveLogState,
  readJournal,
  type NewJournalEvent,
} from '../../src/store/journal.js';
import { tempDir } from '../helpers/git.js';

const AT = '2026-10-12T12:00:00Z';
const base = { runner_job: 'server-job-88', digest: 'abc123', at: AT };
const RUN: NewJournalEvent[] = [
  { ...base, type: 'seal' },
  { ...base, type: 'run-start', command: ['npm', 'test'], sandbox: 'bwrap' },
  { ...base, type: 'log', file: 'stdout.log', sha256: 'a'.repeat(64), bytes: 10 },
  { ...base, type: 'run-end', exit_code: 1, signal: null, timed_out: false },
  { ...base, type: 'publish', files: ['stdout.log'] },
];

function journalFiles(events: readonly NewJournalEvent[]): { text: string; head: string } {
  const t = tempDir();
  try {
    mkdirSync(join(t.dir, 'review/runner'), { recursive: true });
    for (const e of events) appendJournal(t.dir, e);
    return {
      text: readFileSync(join(t.dir, 'review/runner/journal.jsonl'), 'utf8'),
      head: readFileSync(join(t.dir, 'review/runner/journal.head'), 'utf8'),
    };
  } finally {
    t.dispose();
  }
}
const journalText = (events: readonly NewJournalEvent[]): string => journalFiles(events).text;

test('a well-formed run verifies and reads back in order', () => {
  const r = checkJournal(journalText(RUN));
  assert.ok(r.ok);
  if (r.ok)
    assert.deepEqual(
      r.value.map((e) => [e.seq, e.type]),
      [
        [1, 'seal'],
        [2, 'run-start'],
        [3, 'log'],
        [4, 'run-end'],
        [5, 'publish'],
      ],
    );
});

test('edited, reordered, removed and truncated lines are detected', () => {
  const text = journalText(RUN);
  const lines = text.slice(0, -1).split('\n');
  const bad = (t: string, pattern: RegExp): void => {
    const r = checkJournal(t);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.findings.map((f) => f.detail).join('; '), pattern);
  };
  bad(text.replace('"exit_code":1', '"exit_code":0'), /prev_sha256/);
  bad([lines[0], lines[2], lines[1], lines[3], lines[4]].join('\n') + '\n', /sequence number/);
  bad([lines[0], lines[1], lines[3], lines[4]].join('\n') + '\n', /sequence number/);
  bad(text.slice(0, -1), /truncated/);
  bad(text.slice(0, text.length - 20), /truncated/);
  bad(text + '{"seq": 6}\n', /.+/);
  bad(text.replace('"type":"seal"', '"type":"seal","extra":1'), /unknown field/);
});

test('property: changing any single byte of a journal is detected against its head', () => {
  const { text, head } = journalFiles(RUN);
  assert.ok(checkJournal(text, head).ok);
  fc.assert(
    fc.property(fc.nat({ max: text.length - 1 }), fc.integer({ min: 1, max: 255 }), (k, delta) => {
      const bytes = Buffer.from(text, 'latin1');
      bytes[k] = ((bytes[k] as number) + delta) % 256;
      assert.equal(checkJournal(bytes.toString('latin1'), head).ok, false, `byte ${k}`);
    }),
    { numRuns: 1000 },
  );
});

test('the head anchor catches what the chain cannot: a removed or edited last line', () => {
  const { text, head } = journalFiles(RUN);
  const lines = text.slice(0, -1).split('\n');
  const withoutLast = lines.slice(0, -1).join('\n') + '\n';
  assert.ok(checkJournal(withoutLast).ok, 'the chain alone accepts the shorter journal');
  assert.equal(checkJournal(withoutLast, head).ok, false);
  assert.equal(checkJournal(text.replace('"files":["stdout.log"]', '"files":["other.log"]'), head).ok, false);
  assert.equal(checkJournal(text, null).ok, false, 'a journal without its head');
  assert.ok(checkJournal('', null).ok);
});

test('order: no run without a live seal; no log outside a run; no publish before a run ended', () => {
  const t = tempDir();
  try {
    mkdirSync(join(t.dir, 'review/runner'), { recursive: true });
    assert.throws(() => appendJournal(t.dir, RUN[1] as NewJournalEvent), /without a live seal/);
    appendJournal(t.dir, RUN[0] as NewJournalEvent);
    assert.throws(() => appendJournal(t.dir, RUN[2] as NewJournalEvent), /outside a run/);
    assert.throws(() => appendJournal(t.dir, RUN[4] as NewJournalEvent), /publish without a finished run/);
    assert.throws(
      () => appendJournal(t.dir, { ...(RUN[1] as NewJournalEvent), digest: 'def456' }),
      /without a live seal/,
    );
    assert.throws(
      () => appendJournal(t.dir, { ...(RUN[1] as NewJournalEvent), runner_job: 'other-job' }),
      /without a live seal/,
    );
    appendJournal(t.dir, { ...base, type: 'reopen', reason: 'fixture drift' });
    assert.throws(() => appendJournal(t.dir, RUN[1] as NewJournalEvent), /without a live seal/);
    assert.equal(readJournal(t.dir).length, 2);
  } finally {
    t.dispose();
  }
});

test('log state: derived from the journal and the files actually in the store', () => {
  const r = checkJournal(journalText(RUN));
  assert.ok(r.ok);
  if (!r.ok) return;
  const events = r.value;
  const store = new Map([['stdout.log', 'a'.repeat(64)]]);
  assert.deepEqual(deriveLogState(events, store), {
    logs_present: true,
    logs_after_seal: true,
    log_visibility: 'published',
  });
  assert.deepEqual(deriveLogState(events.slice(0, 4), store), {
    logs_present: true,
    logs_after_seal: true,
    log_visibility: 'hidden',
  });
  // A file the journal does not account for, or one whose bytes changed, is early.
  assert.equal(deriveLogState(events, new Map([...store, ['junit.xml', 'b'.repeat(64)]])).logs_after_seal, false);
  assert.equal(deriveLogState(events, new Map([['stdout.log', 'c'.repeat(64)]])).logs_after_seal, false);
  // Logs in the store with no seal at all are early; no logs at all is not.
  assert.equal(deriveLogState([], store).logs_after_seal, false);
  assert.deepEqual(deriveLogState([], new Map()), {
    logs_present: false,
    logs_after_seal: true,
    log_visibility: 'hidden',
  });
  // After a reseal, the old run's logs no longer count.
  const resealed = [...events, { ...events[0], seq: 6, type: 'seal' as const }];
  assert.equal(deriveLogState(resealed as typeof events, store).logs_after_seal, false);
});

test('readJournal refuses a journal that is not UTF-8', () => {
  const t = tempDir();
  try {
    mkdirSync(join(t.dir, 'review/runner'), { recursive: true });
    writeFileSync(join(t.dir, 'review/runner/journal.jsonl'), Buffer.from([0xff, 0xfe, 0x0a]));
    assert.throws(() => readJournal(t.dir), /UTF-8/);
  } finally {
    t.dispose();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendJournal, appendJournalEvents, readJournal } from '../../src/store/journal.js';
import { tempDir } from '../helpers/git.js';

const D = 'ab'.repeat(32);
const AT = '2026-10-12T12:00:00Z';
const base = { runner_job: 'runner-1', digest: D, at: AT };

test('appendJournalEvents: one chained, verified append; an illegal batch writes nothing', () => {
  const t = tempDir();
  try {
    mkdirSync(join(t.dir, 'review/runner'), { recursive: true });
    appendJournal(t.dir, { ...base, type: 'seal' });
    appendJournal(t.dir, { ...base, type: 'run-start', command: ['true'], sandbox: 'bwrap' });
    const written = appendJournalEvents(t.dir, [
      { ...base, type: 'log', file: 'stdout.log', sha256: D, bytes: 3 },
      { ...base, type: 'run-end', exit_code: 0, signal: null, timed_out: false },
    ]);
    assert.deepEqual(
      written.map((e) => e.seq),
      [3, 4],
    );
    assert.deepEqual(
      readJournal(t.dir).map((e) => e.type),
      ['seal', 'run-start', 'log', 'run-end'],
    );
    const before = readFileSync(join(t.dir, 'review/runner/journal.jsonl'), 'utf8');
    assert.throws(
      () => appendJournalEvents(t.dir, [{ ...base, type: 'log', file: 'late.log', sha256: D, bytes: 1 }]),
      /outside a run/,
    );
    assert.equal(readFileSync(join(t.dir, 'review/runner/journal.jsonl'), 'utf8'), before);
  } finally {
    t.dispose();
  }
});

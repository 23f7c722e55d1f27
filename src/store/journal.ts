import * as v from 'valibot';
import { SANDBOX_KINDS } from '../config/schema.js';
import { appendFileSync, closeSync, fsyncSync, openSync, constants } from 'node:fs';
import { digestHex, identifier, instantText, jobId, nonEmpty, sha256 } from '../core/fields.js';
import { checkSchema } from '../core/document.js';
import { SealgateError, type Finding } from '../core/errors.js';
import { fileExists, readBoundedFile, writeFileAtomic } from '../core/io.js';
import { parseStrictJson, type JsonValue } from '../core/json.js';
import { sha256Hex } from '../core/ids.js';
import { decodeStrictUtf8 } from '../core/text.js';
import { LAYOUT, layoutPath } from '../core/layout.js';
import { fail, ok, type Result } from '../core/result.js';

/**
 * review/runner/journal.jsonl: the runner's append-only account, one JSON event per line.
 * Each line carries its sequence number and the SHA-256 of the previous line, so an edited,
 * reordered or truncated journal is detected; the record's log fields are derived from it.
 */

export const GENESIS = '0'.repeat(64);

const common = {
  seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
  runner_job: jobId,
  digest: digestHex,
  prev_sha256: sha256,
  at: instantText,
};

export const JournalEventSchema = v.variant('type', [
  v.strictObject({ ...common, type: v.literal('seal') }),
  v.strictObject({
    ...common,
    type: v.literal('run-start'),
    command: v.array(nonEmpty),
    sandbox: v.picklist(SANDBOX_KINDS, 'must be "bwrap" or "none"'),
  }),
  v.strictObject({
    ...common,
    type: v.literal('log'),
    file: identifier,
    sha256,
    bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  }),
  v.strictObject({
    ...common,
    type: v.literal('run-end'),
    exit_code: v.nullable(v.pipe(v.number(), v.integer())),
    signal: v.nullable(v.string()),
    timed_out: v.boolean(),
  }),
  v.strictObject({ ...common, type: v.literal('publish'), files: v.array(identifier) }),
  v.strictObject({ ...common, type: v.literal('discard'), files: v.array(identifier) }),
  v.strictObject({ ...common, type: v.literal('reopen'), reason: nonEmpty }),
]);

export type JournalEvent = v.InferOutput<typeof JournalEventSchema>;
type EventType = JournalEvent['type'];
/** What a caller supplies; seq, prev_sha256 are filled in by appendJournal. */
export type NewJournalEvent = {
  [T in EventType]: Omit<Extract<JournalEvent, { type: T }>, 'seq' | 'prev_sha256'>;
}[EventType];

const LABEL = 'review/runner/journal.jsonl';

/** The head file's text for a journal whose last line is `line` with sequence number `seq`. */
export function toJournalHead(seq: number, line: string | null): string {
  return `${seq} ${line === null ? GENESIS : sha256Hex(line)}\n`;
}

/**
 * Parse and verify the whole journal text: strict lines, consecutive seq, unbroken hash chain,
 * legal order, and, when the head file's text is given, a last line that matches it (the chain
 * alone cannot see an edited or removed last line).
 */
export function checkJournal(text: string, head?: string | null): Result<JournalEvent[]> {
  const r = checkJournalLines(text);
  if (!r.ok || head === undefined) return r;
  const lines = text === '' ? [] : text.slice(0, -1).split('\n');
  const expected = toJournalHead(lines.length, lines[lines.length - 1] ?? null);
  if (head === null) {
    return lines.length === 0
      ? r
      : fail([
          { code: 'E_INPUT_INVALID', path: LAYOUT.journalHead, detail: 'missing: the journal has no head anchor' },
        ]);
  }
  if (head !== expected)
    return fail([
      {
        code: 'E_INPUT_INVALID',
        path: LAYOUT.journalHead,
        detail: "does not match the journal's last line (journal cut or edited)",
      },
    ]);
  return r;
}

function checkJournalLines(text: string): Result<JournalEvent[]> {
  if (text === '') return ok([]);
  if (!text.endsWith('\n'))
    return fail([{ code: 'E_INPUT_INVALID', path: LABEL, detail: 'last line is not newline-terminated (truncated?)' }]);
  const lines = text.slice(0, -1).split('\n');
  const events: JournalEvent[] = [];
  let prev = GENESIS;
  for (const [k, line] of lines.entries()) {
    const where = `${LABEL}:${k + 1}`;
    let raw: JsonValue;
    try {
      raw = parseStrictJson(line);
    } catch (err) {
      return fail([{ code: 'E_INPUT_INVALID', path: where, detail: `not valid JSON: ${(err as Error).message}` }]);
    }
    const r = checkSchema(JournalEventSchema, raw, where);
    if (!r.ok) return r;
    const e = r.value;
    if (e.seq !== k + 1)
      return fail([
        {
          code: 'E_INPUT_INVALID',
          path: where,
          detail: `sequence number ${e.seq}, expected ${k + 1} (lines removed or reordered)`,
        },
      ]);
    if (e.prev_sha256 !== prev)
      return fail([
        {
          code: 'E_INPUT_INVALID',
          path: where,
          detail: 'prev_sha256 does not match the previous line (journal edited)',
        },
      ]);
    prev = sha256Hex(line);
    events.push(e);
  }
  const order = checkOrder(events);
  return order.length > 0 ? fail(order) : ok(events);
}

/** Order rules: a run starts only on a live seal of the same job and digest; logs only inside a run; publish only after a run ended. */
function checkOrder(events: readonly JournalEvent[]): Finding[] {
  let seal: { digest: string; job: string } | null = null;
  let running = false;
  let ended = false;
  for (const e of events) {
    const where = `${LABEL}:${e.seq}`;
    const bad = (detail: string): Finding[] => [
      { code: e.type === 'log' ? 'E_LOGS_EARLY' : 'E_INPUT_INVALID', path: where, detail },
    ];
    const onSeal = seal !== null && seal.digest === e.digest && seal.job.toLowerCase() === e.runner_job.toLowerCase();
    switch (e.type) {
      case 'seal':
        if (running) return bad('seal during a run');
        seal = { digest: e.digest, job: e.runner_job };
        ended = false;
        break;
      case 'reopen':
        seal = null;
        running = false;
        ended = false;
        break;
      case 'run-start':
        if (!onSeal) return bad('run started without a live seal of this job and digest');
        if (running) return bad('run started inside another run');
        running = true;
        ended = false;
        break;
      case 'log':
        if (!onSeal) return bad('log written without a live seal of this job and digest');
        if (!running) return bad('log written outside a run');
        break;
      case 'run-end':
        if (!running || !onSeal) return bad('run ended without a run on this seal');
        running = false;
        ended = true;
        break;
      case 'publish':
        if (!onSeal || !ended) return bad('publish without a finished run on a live seal');
        break;
      case 'discard':
        if (running) return bad('discard during a run');
        break;
    }
  }
  return [];
}

export interface LogState {
  readonly logs_present: boolean;
  readonly logs_after_seal: boolean;
  readonly log_visibility: 'hidden' | 'published';
}

/**
 * The record's log fields, derived from the journal and the files actually in the log store.
 * A file in the store that no `log` event of the current seal accounts for (same name and
 * hash) means logs exist that were not written by a run after this seal.
 */
export function deriveLogState(events: readonly JournalEvent[], storeFiles: ReadonlyMap<string, string>): LogState {
  let sealAt = -1;
  let discardAt = -1;
  for (const [k, e] of events.entries()) {
    if (e.type === 'seal') sealAt = k;
    else if (e.type === 'reopen') sealAt = -1;
    else if (e.type === 'discard') discardAt = k;
  }
  const from = Math.max(sealAt, discardAt);
  const accounted = new Map<string, string>();
  let lastLogAt = -1;
  let publishAt = -1;
  if (sealAt >= 0) {
    for (const [k, e] of events.entries()) {
      if (k <= from) continue;
      if (e.type === 'log') {
        accounted.set(e.file, e.sha256);
        lastLogAt = k;
      } else if (e.type === 'publish') publishAt = k;
    }
  }
  const logs_present = storeFiles.size > 0;
  let after = sealAt >= 0;
  for (const [file, hash] of storeFiles) if (accounted.get(file) !== hash) after = false;
  const published = logs_present && after && publishAt > lastLogAt;
  return {
    logs_present,
    logs_after_seal: logs_present ? after : true,
    log_visibility: published ? 'published' : 'hidden',
  };
}

function readHead(repo: string): string | null {
  const path = layoutPath(repo, 'journalHead');
  return fileExists(path) ? readBoundedFile(path, 1024, LAYOUT.journalHead).toString('utf8') : null;
}

function readText(repo: string): string {
  const path = layoutPath(repo, 'journal');
  if (!fileExists(path)) return '';
  const d = decodeStrictUtf8(readBoundedFile(path, 64 * 1024 * 1024, LABEL));
  if ('problem' in d)
    throw new SealgateError('E_INPUT_INVALID', [{ code: 'E_INPUT_INVALID', path: LABEL, detail: d.detail }]);
  return d.text;
}

/** Read and verify the journal against its head anchor; absent (both files) means empty. */
export function readJournal(repo: string): JournalEvent[] {
  const text = readText(repo);
  const head = readHead(repo);
  if (text === '' && head !== null)
    throw new SealgateError('E_INPUT_INVALID', [
      {
        code: 'E_INPUT_INVALID',
        path: LABEL,
        detail: 'missing or empty while its head anchor exists (journal removed?)',
      },
    ]);
  const r = checkJournal(text, head);
  if (!r.ok) throw new SealgateError(r.findings[0]?.code ?? 'E_INPUT_INVALID', r.findings);
  return r.value;
}

/** Append one event after verifying the chain so far; O_APPEND plus fsync. Returns the event as written. */
export function appendJournal(repo: string, event: NewJournalEvent): JournalEvent {
  return appendJournalEvents(repo, [event])[0] as JournalEvent;
}

/**
 * Append several events with one read, one verification pass and one fsync (the runner's
 * `run-start`, its `log` events and `run-end`). The existing journal is checked in full; the
 * new lines are schema-checked, chained and order-checked on top of it. Returns the new events.
 */
export function appendJournalEvents(repo: string, batch: readonly NewJournalEvent[]): JournalEvent[] {
  if (batch.length === 0) return [];
  const path = layoutPath(repo, 'journal');
  const before = readText(repo);
  const prior = checkJournal(before, readHead(repo));
  if (!prior.ok) throw new SealgateError(prior.findings[0]?.code ?? 'E_INPUT_INVALID', prior.findings);
  let prev = before === '' ? GENESIS : sha256Hex(before.slice(0, -1).split('\n').pop() as string);
  let seq = prior.value.length;
  const lines: string[] = [];
  const out: JournalEvent[] = [];
  for (const event of batch) {
    const full = { ...event, seq: ++seq, prev_sha256: prev } as JournalEvent;
    const line = JSON.stringify(full);
    const r = checkSchema(JournalEventSchema, full, `${LABEL}:${seq}`);
    if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
    lines.push(line);
    out.push(full);
    prev = sha256Hex(line);
  }
  const order = checkOrder([...prior.value, ...out]);
  if (order.length > 0) throw new SealgateError(order[0]?.code ?? 'E_INPUT_INVALID', order);
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
  try {
    appendFileSync(fd, lines.map((l) => l + '\n').join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  writeFileAtomic(layoutPath(repo, 'journalHead'), toJournalHead(seq, lines[lines.length - 1] ?? null), 0o600);
  return out;
}

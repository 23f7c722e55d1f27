import * as v from 'valibot';
import { SANDBOX_KINDS } from '../config/schema.js';
import { checkSchema, parseDocumentBytes } from '../core/document.js';
import { SealgateError, type Finding } from '../core/errors.js';
import { digestHex, identifier, instantText, jobId, nonEmpty, sha256 } from '../core/fields.js';
import { readBoundedFile, writeFileAtomic, MAX_INPUT_BYTES } from '../core/io.js';
import { toJsonText } from '../core/json.js';
import { LAYOUT, layoutPath } from '../core/layout.js';
import { fail, ok, type Result } from '../core/result.js';
import { compareInstants, parseInstant, type Instant } from '../core/time.js';

/** The largest JUnit or jest report a run may leave: larger ones are not read, hashed or kept. */
export const MAX_JUNIT_BYTES = 64 * 1024 * 1024;

/** review/runner/results.json: what one `sealgate run` observed, written by the runner only. */

export const JunitCaseSchema = v.strictObject({
  id: identifier,
  file: v.nullable(identifier),
  suite: v.pipe(v.string(), v.maxLength(4096)),
  name: identifier,
  status: v.picklist(['passed', 'failed', 'error', 'skipped']),
  duration_ms: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

export const JunitFileSchema = v.strictObject({
  /** The configured path, relative to the repository. */
  path: nonEmpty,
  /** SHA-256 of the file as the run left it; null when it was missing. */
  sha256: v.nullable(sha256),
  status: v.picklist(['ok', 'missing', 'empty', 'malformed']),
  detail: v.optional(v.string()),
});

export const ResultsSchema = v.strictObject({
  runner_job: jobId,
  digest: digestHex,
  command: v.pipe(v.array(nonEmpty), v.minLength(1)),
  exit_code: v.nullable(v.pipe(v.number(), v.integer())),
  signal: v.nullable(nonEmpty),
  timed_out: v.boolean(),
  started_at: instantText,
  ended_at: instantText,
  junit: v.array(JunitFileSchema),
  cases: v.array(JunitCaseSchema),
  /** The isolation the run had: "bwrap" (sandboxed) or "none" (only where the policy allows it). */
  sandbox: v.picklist(SANDBOX_KINDS, 'must be "bwrap" or "none"'),
  /** The working directory the tests saw. */
  cwd: nonEmpty,
});

export type Results = v.InferOutput<typeof ResultsSchema>;

/** A case's id: `file::suite::name` where the file is known, else `suite::name`. */
export function caseId(file: string | null, suite: string, name: string): string {
  return file === null ? `${suite}::${name}` : `${file}::${suite}::${name}`;
}
export type JunitFileResult = v.InferOutput<typeof JunitFileSchema>;

/** Cross-field rules: ids unique and equal to file::suite::name, statuses consistent, no case without a readable JUnit file, time runs forward. */
export function checkResults(r: Results, label: string = LAYOUT.results): Result<Results> {
  const findings: Finding[] = [];
  const add = (path: string, detail: string): void =>
    void findings.push({ code: 'E_INPUT_INVALID', path: `${label}#${path}`, detail });
  const seen = new Set<string>();
  for (const [k, c] of r.cases.entries()) {
    if (seen.has(c.id)) add(`cases.${k}.id`, `duplicate case id "${c.id}"`);
    seen.add(c.id);
    if (c.id !== caseId(c.file, c.suite, c.name)) add(`cases.${k}.id`, 'id is not file::suite::name (or suite::name)');
  }
  for (const [k, j] of r.junit.entries()) {
    if ((j.status === 'missing') !== (j.sha256 === null))
      add(`junit.${k}.sha256`, 'sha256 is null exactly when the file is missing');
    if (j.status !== 'ok' && (j.detail === undefined || j.detail === ''))
      add(`junit.${k}.detail`, 'a JUnit file that is not ok needs a detail');
  }
  if (r.cases.length > 0 && !r.junit.some((j) => j.status === 'ok'))
    add('cases', 'cases listed without any readable JUnit file');
  if (r.exit_code !== null && r.signal !== null) add('signal', 'a process has an exit code or a signal, not both');
  const s = parseInstant(r.started_at) as Instant;
  const e = parseInstant(r.ended_at) as Instant;
  if (compareInstants(s, e) > 0) add('ended_at', 'ends before it starts');
  return findings.length > 0 ? fail(findings) : ok(r);
}

/** Bytes to checked results. */
export function parseResults(bytes: Uint8Array, label: string = LAYOUT.results): Result<Results> {
  const parsed = parseDocumentBytes(bytes, 'json', label);
  if (!parsed.ok) return parsed;
  const r = checkSchema(ResultsSchema, parsed.value, label);
  return r.ok ? checkResults(r.value, label) : r;
}

export function readResults(repo: string): Results {
  const r = parseResults(readBoundedFile(layoutPath(repo, 'results'), MAX_INPUT_BYTES * 8, LAYOUT.results));
  if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
  return r.value;
}

/** Check, then write atomically. Mode 0600: the results name failing tests, hidden like the logs until publish. */
export function writeResults(repo: string, results: Results): void {
  const checked = checkSchema(ResultsSchema, results, LAYOUT.results);
  const r = checked.ok ? checkResults(checked.value) : checked;
  if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
  writeFileAtomic(layoutPath(repo, 'results'), toJsonText(r.value), 0o600);
}

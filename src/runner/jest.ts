import { isAbsolute, relative, sep } from 'node:path';
import type { Finding } from '../core/errors.js';
import { JsonSyntaxError, parseStrictJson, type JsonValue } from '../core/json.js';
import { decodeDocument } from '../core/text.js';
import { fail, ok, type Result } from '../core/result.js';
import { foldDuplicates, MAX_JUNIT_BYTES, type CaseStatus, type JunitCase } from './junit.js';
import { caseId } from './results.js';

/**
 * jest's own `--json --outputFile=FILE` report to one entry per test case, so jest needs no
 * extra reporter package. Fail closed like the JUnit reader: strict JSON (no duplicate keys),
 * every field it uses type-checked, the totals jest states must equal what the per-file
 * lists hold, and a test file that failed to run becomes an error case, never nothing.
 */

type Obj = Readonly<Record<string, JsonValue>>;

const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const MAX_ID_LENGTH = 4096;

/** jest's assertion statuses; anything else is refused. */
const STATUS: Readonly<Record<string, CaseStatus>> = {
  passed: 'passed',
  failed: 'failed',
  pending: 'skipped',
  skipped: 'skipped',
  todo: 'skipped',
  disabled: 'skipped',
  focused: 'passed',
};

/** Control characters become spaces: ids are single-line. */
// eslint-disable-next-line no-control-regex
const clean = (s: string): string => s.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();

/** An absolute test file path to a repository-relative POSIX one; null when it lies outside every root. */
function toRepoPath(name: string, roots: readonly string[]): string | null {
  if (!isAbsolute(name))
    return name
      .split(sep)
      .join('/')
      .replace(/^(\.\/)+/, '');
  for (const root of roots) {
    const rel = relative(root, name);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  }
  return null;
}

export interface JestReadOptions {
  /** Where the test command ran (absolute); jest writes absolute test file paths. */
  readonly roots: readonly string[];
}

/** Parse jest JSON report bytes. Empty, truncated, malformed or inconsistent input is a finding, never a pass. */
export function parseJestJson(bytes: Uint8Array, label: string, opts: JestReadOptions): Result<JunitCase[]> {
  const bad = (detail: string, path = label): Result<never> => fail([{ code: 'E_INPUT_INVALID', path, detail }]);
  if (bytes.length === 0) return bad('jest report is empty');
  if (bytes.length > MAX_JUNIT_BYTES) return bad(`jest report is larger than the ${MAX_JUNIT_BYTES}-byte cap`);
  const text = decodeDocument(bytes, 'json');
  if ('problem' in text) return bad(`jest report ${text.detail}`);
  let root: JsonValue;
  try {
    root = parseStrictJson(text.text);
  } catch (err) {
    if (err instanceof JsonSyntaxError || err instanceof RangeError) return bad(`not valid JSON: ${err.message}`);
    throw err;
  }
  if (!isObj(root)) return bad('a jest report is a JSON object');
  const results = root['testResults'];
  if (!Array.isArray(results)) return bad('testResults is missing or not a list (is this jest --json output?)');
  const findings: Finding[] = [];
  const at = (path: string, detail: string): void =>
    void findings.push({ code: 'E_INPUT_INVALID', path: `${label}#${path}`, detail });
  const cases: Omit<JunitCase, 'id'>[] = [];
  const tally = { total: 0, passed: 0, failed: 0, pending: 0, todo: 0 };
  for (const [i, r] of results.entries()) {
    if (!isObj(r)) {
      at(`testResults.${i}`, 'not an object');
      continue;
    }
    const name = r['name'];
    const assertions = r['assertionResults'];
    if (typeof name !== 'string' || name === '') {
      at(`testResults.${i}.name`, 'the test file name is missing');
      continue;
    }
    const file = toRepoPath(name, opts.roots);
    if (file === null) {
      at(`testResults.${i}.name`, `test file "${name}" is outside the folder the tests ran in`);
      continue;
    }
    if (!Array.isArray(assertions)) {
      at(`testResults.${i}.assertionResults`, 'missing or not a list');
      continue;
    }
    const fileStatus = r['status'];
    if (fileStatus !== 'passed' && fileStatus !== 'failed' && fileStatus !== 'pending' && fileStatus !== 'focused') {
      at(`testResults.${i}.status`, `unknown test file status ${JSON.stringify(fileStatus ?? null)}`);
      continue;
    }
    for (const [k, a] of assertions.entries()) {
      const where = `testResults.${i}.assertionResults.${k}`;
      if (!isObj(a)) {
        at(where, 'not an object');
        continue;
      }
      const ancestors = a['ancestorTitles'];
      const status = a['status'];
      const duration = a['duration'];
      if (!Array.isArray(ancestors) || !ancestors.every((t): t is string => typeof t === 'string')) {
        at(`${where}.ancestorTitles`, 'not a list of strings');
        continue;
      }
      const title = titleOf(a['title'], ancestors, a['fullName']);
      if (title === null || clean(title) === '') {
        at(`${where}.title`, 'a test without a title');
        continue;
      }
      if (typeof status !== 'string' || !Object.hasOwn(STATUS, status)) {
        at(`${where}.status`, `unknown test status ${JSON.stringify(status ?? null)}`);
        continue;
      }
      if (
        duration !== undefined &&
        duration !== null &&
        (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0)
      ) {
        at(`${where}.duration`, 'not a duration in milliseconds');
        continue;
      }
      tally.total++;
      if (status === 'passed' || status === 'focused') tally.passed++;
      else if (status === 'failed') tally.failed++;
      else if (status === 'todo') tally.todo++;
      else tally.pending++;
      const suite = ancestors.map(clean).join(' > ');
      const c = {
        file,
        suite,
        name: clean(title),
        status: STATUS[status] as CaseStatus,
        duration_ms: typeof duration === 'number' ? Math.round(duration) : 0,
      };
      if (caseId(c.file, c.suite, c.name).length > MAX_ID_LENGTH)
        at(where, `test id longer than ${MAX_ID_LENGTH} characters`);
      else cases.push(c);
    }
    // A test file that failed to run (a syntax error, a throwing import, a failing hook) is an error case, never silently absent.
    if (fileStatus === 'failed' && !assertions.some((a) => isObj(a) && a['status'] === 'failed')) {
      cases.push({ file, suite: '', name: '(test file failed)', status: 'error', duration_ms: 0 });
    }
  }
  // The totals jest states must match the lists: a report whose numbers disagree is not trusted.
  const declared: [keyof typeof tally, string][] = [
    ['total', 'numTotalTests'],
    ['passed', 'numPassedTests'],
    ['failed', 'numFailedTests'],
    ['pending', 'numPendingTests'],
    ['todo', 'numTodoTests'],
  ];
  for (const [key, field] of declared) {
    const n = root[field];
    if (n === undefined) {
      if (key === 'todo') continue; // older jest versions do not write it
      at(field, 'missing');
    } else if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) at(field, 'not a count');
    else if (n !== tally[key]) at(field, `says ${n}, the test lists hold ${tally[key]}`);
  }
  if (root['wasInterrupted'] === true) at('wasInterrupted', 'the run was interrupted: its report is incomplete');
  if (findings.length > 0) return fail(findings);
  return ok(foldDuplicates(cases));
}

/**
 * A test's title as jest names it. jest keeps a title that is not a string as it was given
 * (dayjs: `it([2010, 6], ...)` in a loop) and names the test by its text (`2010,6`, as
 * fullName shows it). Such a title (a number, or a list of strings and numbers) is taken as that
 * text only where the report's fullName says so (the ancestors and that text, joined by
 * spaces); anything else is no title.
 */
export function titleOf(raw: unknown, ancestors: readonly string[], fullName: unknown): string | null {
  if (typeof raw === 'string') return raw;
  const simple = (x: unknown): boolean => typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x));
  if (!(simple(raw) || (Array.isArray(raw) && raw.every(simple)))) return null;
  const text = String(raw);
  return typeof fullName === 'string' && fullName === [...ancestors, text].join(' ') ? text : null;
}

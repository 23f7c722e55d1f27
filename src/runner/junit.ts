import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Finding } from '../core/errors.js';
import { fail, ok, type Result } from '../core/result.js';
import { caseId, MAX_JUNIT_BYTES } from './results.js';
import { JUNIT_DIALECTS, reportPath, type JunitDialect } from '../test-runners/index.js';

/**
 * JUnit XML (pytest xunit1/xunit2, vitest, jest-junit, node:test, Maven Surefire) to one
 * entry per test case. Fail closed: the text is checked lexically and by a validating
 * pass before the (lenient) parser sees it, markup declarations are refused outright so no
 * entity is ever expanded, and anything the producers' quirks leave uncertain is not a pass.
 */

export type CaseStatus = 'passed' | 'failed' | 'error' | 'skipped';

export interface JunitCase {
  /** `file::suite::name` where the file is known, else `suite::name`. */
  readonly id: string;
  readonly file: string | null;
  readonly suite: string;
  readonly name: string;
  readonly status: CaseStatus;
  readonly duration_ms: number;
}

export { MAX_JUNIT_BYTES };
/** Deepest element nesting accepted (testsuites > testsuite ... > testcase > failure). */
export const MAX_JUNIT_DEPTH = 64;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const bad = (label: string, detail: string): Result<never> => fail([{ code: 'E_INPUT_INVALID', path: label, detail }]);

/** Parse JUnit XML bytes. Empty, truncated, malformed or unrecognised input is a finding, never a pass. */
export function parseJunitXml(bytes: Uint8Array, label: string): Result<JunitCase[]> {
  if (bytes.length === 0) return bad(label, 'JUnit file is empty');
  if (bytes.length > MAX_JUNIT_BYTES) return bad(label, `JUnit file is larger than the ${MAX_JUNIT_BYTES}-byte cap`);
  let text: string;
  try {
    text = decoder.decode(bytes); // a leading UTF-8 BOM, legal in XML, is dropped here
  } catch {
    return bad(label, 'JUnit file is not valid UTF-8');
  }
  const lexical = checkLexical(text);
  if (lexical !== undefined) return bad(label, lexical);
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (valid !== true)
    return bad(label, `malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
  let tree: XmlNode[];
  try {
    tree = PARSER.parse(text) as XmlNode[];
  } catch (err) {
    return bad(label, `malformed XML: ${(err as Error).message}`);
  }
  const roots = tree.filter((n) => elementName(n) !== null && elementName(n) !== '?xml');
  if (roots.length !== 1) return bad(label, `expected exactly one root element, found ${roots.length}`);
  const root = roots[0] as XmlNode;
  const rootName = elementName(root) as string;
  if (rootName !== 'testsuites' && rootName !== 'testsuite')
    return bad(label, `root element is <${rootName}>, not <testsuites> or <testsuite>`);
  const tail = checkTail(text, rootName);
  if (tail !== undefined) return bad(label, tail);
  const findings: Finding[] = [];
  const raw = collectCases(root, label, findings);
  if (findings.length > 0) return fail(findings);
  return ok(foldDuplicates(raw));
}

// ---------------------------------------------------------------------------------------
// Lexical checks the validator does not make.

/** XML 1.0 forbids these characters anywhere, even in CDATA. */
// eslint-disable-next-line no-control-regex
const ILLEGAL_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;
const MARKUP =
  /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<!|&(?!(?:lt|gt|amp|apos|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)/g;

function checkLexical(text: string): string | undefined {
  const c = ILLEGAL_CHAR.exec(text);
  if (c)
    return `contains the character U+${c[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}, which XML does not allow`;
  const decl = /^\s*<\?xml\s[^?]*\bencoding\s*=\s*["']([^"']*)["']/.exec(text);
  if (decl && !/^(utf-?8|us-ascii|ascii)$/i.test(decl[1] ?? ''))
    return `declares encoding "${decl[1] ?? ''}"; only UTF-8 is accepted`;
  for (const m of text.matchAll(MARKUP)) {
    if (m[0] === '<!')
      return 'contains a markup declaration (<!DOCTYPE, <!ENTITY, ...); entities are never expanded, so such files are refused';
    if (m[0] === '&')
      return 'contains "&" that does not start one of the five predefined entities or a character reference';
  }
  return undefined;
}

/** After the root element only whitespace, comments and processing instructions may follow (the parser drops trailing text silently). */
function checkTail(text: string, rootName: string): string | undefined {
  let end = text.length;
  for (;;) {
    while (end > 0 && /\s/.test(text[end - 1] as string)) end--;
    if (text.endsWith('-->', end)) {
      const start = text.lastIndexOf('<!--', end - 3);
      if (start < 0) return 'content after the root element';
      end = start;
    } else if (text.endsWith('?>', end)) {
      const start = text.lastIndexOf('<?', end - 2);
      if (start < 0) return 'content after the root element';
      end = start;
    } else break;
  }
  const body = text.slice(0, end);
  if (new RegExp(`</${rootName}\\s*>$`).test(body) || body.endsWith('/>')) return undefined;
  return 'content after the root element (trailing garbage, or truncated)';
}

// ---------------------------------------------------------------------------------------
// Tree walk.

type XmlNode = Record<string, unknown>;

const PARSER = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false, // decoded below, strictly; DOCTYPE was refused above
  htmlEntities: false,
  ignoreDeclaration: false,
  ignorePiTags: true,
  maxNestedTags: MAX_JUNIT_DEPTH,
});

function elementName(node: XmlNode): string | null {
  for (const k of Object.keys(node)) if (k !== ':@' && k !== '#text') return k;
  return null;
}

function childrenOf(node: XmlNode): XmlNode[] {
  const name = elementName(node);
  const kids = name === null ? undefined : node[name];
  return Array.isArray(kids) ? (kids as XmlNode[]) : [];
}

const ENTITY = /&(?:(lt)|(gt)|(amp)|(apos)|(quot)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));/g;

function decodeEntities(s: string): string {
  return s.replace(ENTITY, (_m, lt, gt, amp, apos, quot, dec: string | undefined, hex: string | undefined) => {
    if (lt) return '<';
    if (gt) return '>';
    if (amp) return '&';
    if (apos) return "'";
    if (quot) return '"';
    const cp = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
  });
}

function attr(node: XmlNode, key: string): string | undefined {
  const attrs = node[':@'] as Record<string, unknown> | undefined;
  const v = attrs?.[key];
  return typeof v === 'string' ? decodeEntities(v) : undefined;
}

/** The dialect a report is written in (a runner's, by its root's name or its shape), or null: the common form. */
type Producer = JunitDialect | null;

interface RawCase {
  file: string | null;
  suite: string;
  name: string;
  status: CaseStatus;
  duration_ms: number;
  /** time attribute absent or zero: a jest-junit `todo` looks exactly like this. */
  zeroTime: boolean;
}

function detectProducer(root: XmlNode, rootName: string): Producer {
  const name = rootName === 'testsuites' ? attr(root, 'name') : undefined;
  const named = JUNIT_DIALECTS.find((d) => d.rootName === name);
  if (named !== undefined) return named;
  if (rootName === 'testsuites' && root[':@'] === undefined) {
    // A bare <testsuites> and one constant classname on every case (node's own reporter: "test").
    for (const d of JUNIT_DIALECTS) {
      if (d.bareClassname === undefined) continue;
      let all = true;
      let any = false;
      const walk = (n: XmlNode, depth: number): void => {
        if (depth > MAX_JUNIT_DEPTH) return;
        for (const c of childrenOf(n)) {
          const cn = elementName(c);
          if (cn === 'testcase') {
            any = true;
            if (attr(c, 'classname') !== d.bareClassname) all = false;
          } else if (cn === 'testsuite') walk(c, depth + 1);
        }
      };
      walk(root, 0);
      if (any && all) return d;
    }
  }
  return null;
}

/** Seconds as written (Surefire once wrote "1,234.5"); unparseable or negative durations read as 0. */
function toMs(time: string | undefined): number {
  if (time === undefined) return 0;
  const s = Number(time.replace(/,/g, '').trim());
  return Number.isFinite(s) && s > 0 ? Math.round(s * 1000) : 0;
}

const FAIL_CHILDREN = new Set(['failure', 'rerunFailure', 'flakyFailure']);
const ERROR_CHILDREN = new Set(['error', 'rerunError', 'flakyError']);
const SKIP_STATUS = /^(skip|skipped|notrun|not_run|disabled|ignored|todo|pending)$/i;
const FAIL_STATUS = /^(fail|failed|failure|error|errored|timeout|timedout|timed_out|broken)$/i;

function caseStatus(tc: XmlNode): CaseStatus {
  let failed = attr(tc, 'failure') !== undefined;
  let errored = false;
  let skipped = false;
  for (const c of childrenOf(tc)) {
    const n = elementName(c);
    if (n === null) continue;
    // Surefire's flaky* children mean "passed only on a rerun": not a clean pass on the sealed digest.
    if (FAIL_CHILDREN.has(n)) failed = true;
    else if (ERROR_CHILDREN.has(n)) errored = true;
    else if (n === 'skipped') skipped = true;
  }
  const declared = attr(tc, 'status') ?? attr(tc, 'result');
  if (declared !== undefined) {
    if (FAIL_STATUS.test(declared.trim())) failed = true;
    else if (SKIP_STATUS.test(declared.trim())) skipped = true;
  }
  if (errored) return 'error';
  if (failed) return 'failed';
  if (skipped) return 'skipped';
  return 'passed';
}

const MAX_ID_LENGTH = 4096;

/** Ids are single-line: control characters (from character references) become spaces. */
function clean(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]/g, ' ');
}

const normalisePath = reportPath;

function collectCases(root: XmlNode, label: string, findings: Finding[]): RawCase[] {
  const rootName = elementName(root) as string;
  const producer = detectProducer(root, rootName);
  const out: RawCase[] = [];
  // Cases are kept in document order; checkCounts adjusts a suite's own cases in place.
  const visitSuite = (suite: XmlNode, chain: readonly string[], suiteFile: string | null): void => {
    const direct: RawCase[] = [];
    for (const child of childrenOf(suite)) {
      const n = elementName(child);
      if (n === 'testsuite') {
        const name = (attr(child, 'name') ?? '').trim();
        const file = attr(child, 'file');
        visitSuite(
          child,
          name === '' ? chain : [...chain, name],
          file !== undefined && file.trim() !== '' ? normalisePath(file.trim()) : suiteFile,
        );
      } else if (n === 'testcase') {
        const c = toRawCase(child, chain, suiteFile, producer);
        if (typeof c === 'string')
          findings.push({ code: 'E_INPUT_INVALID', path: `${label}#testcase ${out.length + 1}`, detail: c });
        else {
          direct.push(c);
          out.push(c);
        }
      }
    }
    checkCounts(suite, direct, producer);
  };
  // A lone <testsuite> root is visited as the only child of a holder, like any other suite.
  visitSuite(rootName === 'testsuite' ? { holder: [root] } : root, [], null);
  return out;
}

function toRawCase(
  tc: XmlNode,
  chain: readonly string[],
  suiteFile: string | null,
  producer: Producer,
): RawCase | string {
  const rawName = attr(tc, 'name');
  if (rawName === undefined || rawName.trim() === '') return 'a <testcase> without a name';
  const trimmed = rawName.trim();
  const classname = (attr(tc, 'classname') ?? '').trim();
  const fileAttr = attr(tc, 'file');
  const given = fileAttr !== undefined && fileAttr.trim() !== '' ? normalisePath(fileAttr.trim()) : suiteFile;
  let { file, suite, name } =
    producer === null
      ? { file: given, suite: classname !== '' ? classname : chain.join(' > '), name: trimmed }
      : producer.caseOf({ name: trimmed, classname, file: given, chain });
  const duration_ms = toMs(attr(tc, 'time'));
  [file, suite, name] = [file === null ? null : clean(file), clean(suite), clean(name)];
  if (caseId(file, suite, name).length > MAX_ID_LENGTH) return `test id longer than ${MAX_ID_LENGTH} characters`;
  return { file, suite, name, status: caseStatus(tc), duration_ms, zeroTime: duration_ms === 0 };
}

function count(node: XmlNode, key: string): number | undefined {
  const v = attr(node, key);
  if (v === undefined) return undefined;
  return /^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN;
}

/**
 * A suite that declares its counts must not show more passes than it declares. jest-junit
 * writes `todo` tests as bare passes with time 0 and leaves them out of `tests`; such surplus
 * passes become skipped (only the zero-time ones can be todos). Any surplus left over, or
 * counts that are not numbers, makes every pass in the suite untrustworthy: failed.
 */
function checkCounts(suite: XmlNode, direct: RawCase[], producer: Producer): void {
  if (elementName(suite) !== 'testsuite') return;
  const tests = count(suite, 'tests');
  if (tests === undefined) return;
  const nums = [
    tests,
    count(suite, 'failures') ?? 0,
    count(suite, 'errors') ?? 0,
    count(suite, 'skipped') ?? count(suite, 'skip') ?? 0,
  ];
  const passes = direct.filter((c) => c.status === 'passed');
  if (nums.some((n) => Number.isNaN(n))) {
    for (const c of passes) c.status = 'failed';
    return;
  }
  // node:test counts nested suites in `tests`; its surplus check would be meaningless.
  if (producer?.nestedCounts === true) return;
  const [t, f, e, s] = nums as [number, number, number, number];
  const declared = t - f - e - s;
  let surplus = passes.length - declared;
  if (surplus <= 0) return;
  const zero = passes.filter((c) => c.zeroTime);
  for (const c of zero) c.status = 'skipped';
  surplus -= zero.length;
  if (surplus > 0) for (const c of passes) if (c.status === 'passed') c.status = 'failed';
}

export { caseId };

/** One entry per id, in first-seen order; a copy that failed or errored makes the id failed, else a skipped copy makes it skipped. */
export function foldDuplicates(cases: readonly Omit<RawCase, 'zeroTime'>[]): JunitCase[] {
  const byId = new Map<
    string,
    { file: string | null; suite: string; name: string; statuses: Set<CaseStatus>; duration_ms: number }
  >();
  for (const c of cases) {
    const id = caseId(c.file, c.suite, c.name);
    const prev = byId.get(id);
    if (prev) {
      prev.statuses.add(c.status);
      prev.duration_ms += c.duration_ms;
    } else
      byId.set(id, {
        file: c.file,
        suite: c.suite,
        name: c.name,
        statuses: new Set([c.status]),
        duration_ms: c.duration_ms,
      });
  }
  return [...byId].map(([id, c]) => {
    const s = c.statuses;
    const status: CaseStatus =
      s.size === 1
        ? ([...s][0] as CaseStatus)
        : s.has('failed') || s.has('error')
          ? 'failed'
          : s.has('skipped')
            ? 'skipped'
            : 'passed';
    return { id, file: c.file, suite: c.suite, name: c.name, status, duration_ms: c.duration_ms };
  });
}

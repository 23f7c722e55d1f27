import { relative, sep } from 'node:path';

/**
 * A node:test reporter that writes JUnit XML with the test file on every case (Node 20's
 * built-in `junit` reporter leaves it out, so its ids cannot name their file). Use it as
 *   node --test --test-reporter=sealgate/node-test-reporter --test-reporter-destination=junit.xml
 * The root is `<testsuites name="node:test">`; a describe (or a test with subtests) is a
 * `<testsuite>`, a test a `<testcase file="..." classname="test">`, the file relative to the
 * folder the tests ran in. This runs inside the test process: it imports nothing of sealgate.
 */

interface TestData {
  readonly name: string;
  readonly nesting: number;
  readonly file?: string;
  readonly skip?: boolean | string;
  readonly todo?: boolean | string;
  readonly details?: { readonly duration_ms?: number; readonly type?: string; readonly error?: unknown };
}

interface TestEvent {
  readonly type: string;
  readonly data: TestData;
}

interface Node {
  readonly data: TestData;
  readonly passed: boolean;
  readonly children: Node[];
}

// XML 1.0 forbids these characters even as references: they become spaces.
// eslint-disable-next-line no-control-regex
const ILLEGAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function esc(s: string): string {
  return s
    .replace(ILLEGAL, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

function fileOf(d: TestData): string | null {
  if (d.file === undefined || d.file === '') return null;
  const rel = relative(process.cwd(), d.file.startsWith('file://') ? new URL(d.file).pathname : d.file);
  return rel.split(sep).join('/');
}

const seconds = (d: TestData): string => ((d.details?.duration_ms ?? 0) / 1000).toFixed(6);

function errorText(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? (cause.stack ?? cause.message) : (e.stack ?? e.message);
  }
  return String(e);
}

function toXml(n: Node, depth: number, out: string[]): void {
  const pad = '  '.repeat(depth);
  const d = n.data;
  const file = fileOf(d);
  const isSuite = n.children.length > 0 || d.details?.type === 'suite';
  if (isSuite) {
    const count = (x: Node): number =>
      x.children.length === 0 && x.data.details?.type !== 'suite' ? 1 : x.children.reduce((a, c) => a + count(c), 0);
    out.push(
      `${pad}<testsuite name="${esc(d.name)}"${file !== null ? ` file="${esc(file)}"` : ''} tests="${count(n)}" time="${seconds(d)}">`,
    );
    for (const c of n.children) toXml(c, depth + 1, out);
    // A suite that failed on its own (a hook, a throw in describe) must not read as green.
    if (!n.passed && n.children.every((c) => c.passed)) {
      out.push(
        `${pad}  <testcase name="(suite failed)" classname="test"${file !== null ? ` file="${esc(file)}"` : ''} time="0"><failure message="the suite failed">${esc(errorText(d.details?.error))}</failure></testcase>`,
      );
    }
    out.push(`${pad}</testsuite>`);
    return;
  }
  // A file that fails to load is reported as a test named by its absolute path: name it as the file.
  const name = file !== null && d.name === d.file ? file : d.name;
  const attrs = `name="${esc(name)}" classname="test"${file !== null ? ` file="${esc(file)}"` : ''} time="${seconds(d)}"`;
  if (d.skip !== undefined && d.skip !== false)
    out.push(`${pad}<testcase ${attrs}><skipped message="skip"/></testcase>`);
  else if (d.todo !== undefined && d.todo !== false)
    out.push(`${pad}<testcase ${attrs}><skipped message="todo"/></testcase>`);
  else if (!n.passed)
    out.push(
      `${pad}<testcase ${attrs}><failure message="${esc(errorText(d.details?.error).split('\n')[0] ?? '')}">${esc(errorText(d.details?.error))}</failure></testcase>`,
    );
  else out.push(`${pad}<testcase ${attrs}/>`);
}

/** The reporter: collects every finished test by nesting level and writes the tree at the end. */
export default async function* nodeTestJunit(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  // Children finish before their parent: those seen at level n+1 since the last level-n event are its children.
  // Keyed by file too: with several test files their events may interleave.
  const pending = new Map<string, Node[]>();
  const key = (d: TestData, level: number): string => `${d.file ?? ''}\u0000${level}`;
  const roots: Node[] = [];
  for await (const ev of source) {
    if (ev.type !== 'test:pass' && ev.type !== 'test:fail') continue;
    const d = ev.data;
    const node: Node = { data: d, passed: ev.type === 'test:pass', children: pending.get(key(d, d.nesting + 1)) ?? [] };
    pending.delete(key(d, d.nesting + 1));
    if (d.nesting === 0) roots.push(node);
    else pending.set(key(d, d.nesting), [...(pending.get(key(d, d.nesting)) ?? []), node]);
  }
  const out = ['<?xml version="1.0" encoding="utf-8"?>', '<testsuites name="node:test">'];
  for (const r of roots) toXml(r, 1, out);
  out.push('</testsuites>', '');
  yield out.join('\n');
}

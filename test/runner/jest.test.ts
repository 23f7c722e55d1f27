import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseJestJson } from '../../src/runner/jest.js';
import { parseTestReport } from '../../src/runner/report.js';

// jest's own --json report, as jest 30.5.2 wrote it (test/fixtures/junit/README.md).
const REAL = readFileSync('test/fixtures/junit/jest.json');
const ROOTS = ['/work/repo'];
const parse = (bytes: Uint8Array | string) =>
  parseJestJson(typeof bytes === 'string' ? Buffer.from(bytes) : bytes, 'jest.json', { roots: ROOTS });
interface JestDoc {
  [field: string]: unknown;
  testResults: { [field: string]: unknown; assertionResults: Record<string, unknown>[] }[];
}
const real = (): JestDoc => JSON.parse(REAL.toString('utf8')) as JestDoc;
const edit = (f: (r: JestDoc) => void): string => {
  const r = real();
  f(r);
  return JSON.stringify(r);
};

test('jest JSON: every case with its file, describe chain and status; a file that failed to run is an error case', () => {
  const r = parse(REAL);
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(
    r.value.map((c) => [c.id, c.status]),
    [
      ['test/a.test.js::pricing > discount::clamps', 'passed'],
      ['test/a.test.js::pricing::fails', 'failed'],
      ['test/a.test.js::pricing::skipped', 'skipped'],
      ['test/a.test.js::pricing::later', 'skipped'],
      ['test/a.test.js::::top level', 'passed'],
      ['test/b.test.js::::(test file failed)', 'error'],
    ],
  );
  // The dispatcher picks this reader by the .json extension, JUnit otherwise.
  assert.deepEqual(parseTestReport(REAL, 'out/jest.json', ROOTS), parse(REAL));
  assert.equal(parseTestReport(REAL, 'junit.xml', ROOTS).ok, false);
});

test('jest JSON: a title jest kept as given (a number, a list: dayjs `it(testArr, ...)` in a loop) is its text where fullName says so', () => {
  const r = parse(
    edit((d) => {
      Object.assign(d.testResults[0]!.assertionResults[0]!, {
        title: [2010, 6, 10],
        fullName: 'pricing discount 2010,6,10',
      });
      Object.assign(d.testResults[0]!.assertionResults[1]!, { title: 7, fullName: 'pricing 7' });
    }),
  );
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(
    r.value.slice(0, 2).map((c) => c.id),
    ['test/a.test.js::pricing > discount::2010,6,10', 'test/a.test.js::pricing::7'],
  );
});

test('jest JSON: hostile input is a finding, never a pass', () => {
  const text = REAL.toString('utf8');
  const bad: [string, string | Uint8Array, RegExp][] = [
    ['empty', '', /empty/],
    ['not JSON', '<testsuites/>', /not valid JSON/],
    ['an array', '[]', /JSON object/],
    ['BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), REAL]), /byte-order mark/],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), /UTF-8/],
    ['trailing garbage', `${text}{}`, /not valid JSON/],
    ['duplicate key', text.replace('"numTotalTests":5', '"numTotalTests":5,"numTotalTests":5'), /duplicate key/],
    ['deep nesting', `{"testResults": ${'['.repeat(100)}${']'.repeat(100)}}`, /nesting/],
    ['no testResults', '{"numTotalTests": 0}', /testResults/],
    ['a total that disagrees', edit((r) => (r['numTotalTests'] = 4)), /numTotalTests.*says 4, the test lists hold 5/],
    [
      'a pass count that disagrees (a case dropped)',
      edit((r) => r.testResults[0]!.assertionResults.splice(0, 1)),
      /numTotalTests|numPassedTests/,
    ],
    [
      'a failure rewritten as a pass',
      edit((r) => (r.testResults[0]!.assertionResults[1]!.status = 'passed')),
      /numPassedTests|numFailedTests/,
    ],
    [
      'an unknown status',
      edit((r) => (r.testResults[0]!.assertionResults[0]!['status'] = 'ok')),
      /unknown test status/,
    ],
    [
      'a status as a boolean',
      edit((r) => (r.testResults[0]!.assertionResults[0]!.status = true)),
      /unknown test status/,
    ],
    ['a title missing', edit((r) => delete r.testResults[0]!.assertionResults[0]!.title), /without a title/],
    [
      'a list title whose fullName says otherwise',
      edit((r) => Object.assign(r.testResults[0]!.assertionResults[0]!, { title: [2010, 6] })),
      /without a title/,
    ],
    [
      'an object title',
      edit((r) =>
        Object.assign(r.testResults[0]!.assertionResults[0]!, {
          title: { a: 1 },
          fullName: 'pricing discount [object Object]',
        }),
      ),
      /without a title/,
    ],
    [
      'a title of lists within a list',
      edit((r) =>
        Object.assign(r.testResults[0]!.assertionResults[0]!, { title: [[1], 2], fullName: 'pricing discount 1,2' }),
      ),
      /without a title/,
    ],
    [
      'ancestors not strings',
      edit((r) => (r.testResults[0]!.assertionResults[0]!.ancestorTitles = [1])),
      /ancestorTitles/,
    ],
    ['a negative duration', edit((r) => (r.testResults[0]!.assertionResults[0]!.duration = -1)), /duration/],
    ['a test file outside the folder', edit((r) => (r.testResults[0]!.name = '/etc/a.test.js')), /outside the folder/],
    ['a file status unknown', edit((r) => (r.testResults[0]!.status = 'great')), /unknown test file status/],
    ['interrupted', edit((r) => (r['wasInterrupted'] = true)), /interrupted/],
    ['a count as a string', edit((r) => (r['numFailedTests'] = '1')), /not a count/],
    ['a count missing', edit((r) => delete r['numPassedTests']), /numPassedTests.*missing/],
  ];
  for (const [what, bytes, why] of bad) {
    const r = parse(bytes);
    assert.equal(r.ok, false, what);
    if (!r.ok) assert.match(r.findings.map((f) => `${f.path}: ${f.detail}`).join('\n'), why, what);
  }
  assert.equal(parse(Buffer.alloc(65 * 1024 * 1024, 0x20)).ok, false, 'oversized');
});

test('jest JSON: control characters in titles become spaces; relative names are kept as repository paths', () => {
  const r = parse(
    edit((x) => {
      x.testResults[0]!.assertionResults[0]!.title = 'a\nb';
      x.testResults[1]!.name = './test/b.test.js';
    }),
  );
  assert.ok(r.ok);
  assert.equal(r.value[0]?.name, 'a b');
  assert.equal(r.value.at(-1)?.file, 'test/b.test.js');
});

test('property: a jest report cut at any byte before its end is refused', () => {
  const content = REAL.toString('utf8').trimEnd();
  fc.assert(
    fc.property(fc.nat(content.length - 1), (k) => {
      assert.equal(parse(content.slice(0, k)).ok, false, `cut at ${k}`);
    }),
    { numRuns: 2000 },
  );
});

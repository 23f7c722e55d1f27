import { test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/git.js';
import { layout, scoreRepo, type Scoring } from '../helpers/oracle.js';

/** The forged lines were taken as `add`'s reach (no probe ran), and earned nothing. Returns the forging test's id. */
function forgedAddEarnsNothing(s: Scoring, path: string, forgeName: string): string {
  const forge = [...s.oracle.usable].find((t) => t.endsWith(forgeName));
  assert.ok(forge !== undefined, `the forging test is usable: ${JSON.stringify([...s.oracle.usable])}`);
  const add = s.scored.credit.evidence?.[`${path}::add`];
  assert.equal(add?.reached_by, 'trace', JSON.stringify(add));
  assert.deepEqual(add.reached, [forge]);
  assert.equal(add.status, 'missing');
  assert.deepEqual(add.killed, []);
  return forge;
}

/** A vitest project: src/calc.ts (add, mul) and `tests`, scored as `sealgate credit` does, then `check`ed. */
async function scoreVitestCalc(tests: Record<string, string>, check: (s: Scoring) => void): Promise<void> {
  const { text, spans } = layout({
    add: ['export function add(a: number, b: number): number {', '  return a + b;', '}'],
    mul: ['export function mul(a: number, b: number): number {', '  return a * b;', '}'],
  });
  const repo = makeRepo({
    'package.json': '{"name":"vt","private":true,"type":"module"}\n',
    'src/calc.ts': text,
    ...tests,
    '.gitignore': 'node_modules\njunit.xml\n',
  });
  try {
    symlinkSync(join(resolve('.'), 'node_modules'), join(repo.dir, 'node_modules'), 'dir');
    check(
      await scoreRepo(repo.dir, 'src/calc.ts', 'typescript', spans, [
        'node_modules/.bin/vitest',
        'run',
        '--reporter=junit',
        '--outputFile.junit=junit.xml',
      ]),
    );
  } finally {
    repo.dispose();
  }
}

// Where the trace names a Python symbol's reaching tests one by one, they are its reach and no
// probe runs (credit/oracle.ts). The trace run is the patch's tests too, and they can read
// SEALGATE_TRACE_FILE: a test writes lines that say it reaches `add` (which it never calls)
// and `noop` (an added empty body, creditable only by its probe). Reach grants nothing: a test
// earns a symbol only by failing a real mutant of it while passing the controls and the null
// mutant, and a symbol only its probe can credit keeps its probe, whatever the trace says.
test(
  'a test that forges trace lines reaches what it claims and earns nothing for it',
  { timeout: 300_000 },
  async () => {
    const { text, spans } = layout({
      add: ['def add(a, b):', '    return a + b'],
      mul: ['def mul(a, b):', '    return a * b'],
      noop: ['def noop():', '    pass'],
    });
    const tests = `import os
from calc import mul


def test_forge():
    f = os.environ.get('SEALGATE_TRACE_FILE')
    if f:
        with open(f, 'a', encoding='utf-8') as out:
            for sym in ('calc.py::add', 'calc.py::noop'):
                out.write(sym + '\\ttests/test_calc.py::test_forge\\n')
    assert len(os.sep) == 1


def test_mul_really():
    assert mul(3, 4) == 12
    assert mul(2, 5) == 10
`;
    const repo = makeRepo({
      'calc.py': text,
      'tests/test_calc.py': tests,
      'tests/conftest.py':
        'import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n',
      '.gitignore': 'junit.xml\n__pycache__\n',
    });
    try {
      const s = await scoreRepo(repo.dir, 'calc.py', 'python', spans, [
        'python3',
        '-m',
        'pytest',
        '-q',
        '-p',
        'no:cacheprovider',
        '--junitxml=junit.xml',
        'tests',
      ]);
      const ev = (n: string) => s.scored.credit.evidence?.[`calc.py::${n}`];
      const forge = forgedAddEarnsNothing(s, 'calc.py', 'test_forge');
      // noop can be credited only by its probe: it keeps it, and the probe shows no test reaches it.
      assert.equal(ev('noop')?.reached_by, 'probe', JSON.stringify(ev('noop')));
      assert.deepEqual(ev('noop')?.reached, []);
      assert.equal(ev('noop')?.status, 'missing');
      assert.deepEqual(s.scored.credit.credited, ['calc.py::mul']);
      assert.ok(!s.scored.credit.test_ids.includes(forge), JSON.stringify(s.scored.credit.test_ids));
    } finally {
      repo.dispose();
    }
  },
);

// The same for vitest, whose trace names a test by its file and full name: a test writes lines
// that say it reaches `add` (never called) and that a test of no such name reaches `mul`.
test(
  'vitest: a test that forges trace lines by name reaches what it claims and earns nothing; a name no test has sends the symbol back to its probe',
  { timeout: 300_000 },
  async () => {
    const tests = `import { expect, test } from 'vitest';
import { appendFileSync } from 'node:fs';
import { mul } from '../src/calc';

test('forge', () => {
  const f = process.env.SEALGATE_TRACE_FILE;
  if (f) appendFileSync(f, 'src/calc.ts::add\\ttest/calc.test.ts\\t"forge"\\nsrc/calc.ts::mul\\ttest/calc.test.ts\\t"nobody"\\n');
  expect(1 + 1).toBe(2);
});

test('mul really', () => {
  expect(mul(3, 4)).toBe(12);
  expect(mul(2, 5)).toBe(10);
});
`;
    await scoreVitestCalc({ 'test/calc.test.ts': tests }, (s) => {
      const ev = (n: string) => s.scored.credit.evidence?.[`src/calc.ts::${n}`];
      const forge = forgedAddEarnsNothing(s, 'src/calc.ts', 'forge');
      // "nobody" names no test: mul's reach comes from its probe, which finds the real test.
      assert.equal(ev('mul')?.reached_by, 'probe', JSON.stringify(ev('mul')));
      assert.deepEqual(
        ev('mul')?.reached.map((t) => t.split('::').pop()),
        ['mul really'],
      );
      assert.deepEqual(s.scored.credit.credited, ['src/calc.ts::mul']);
      assert.ok(!s.scored.credit.test_ids.includes(forge), JSON.stringify(s.scored.credit.test_ids));
    });
  },
);

// A jest or vitest test file the trace records alone (entered while it loaded) counts with all
// its tests. A test forges such a line for `add`, naming another file whose tests never call
// it: they become add's reach (no probe runs), and still earn nothing, since none of them fails
// a real mutant of add.
test(
  'vitest: a forged trace line naming a whole test file adds its tests to the reach, and they earn nothing',
  { timeout: 300_000 },
  async () => {
    const forging = `import { expect, test } from 'vitest';
import { appendFileSync } from 'node:fs';
import { mul } from '../src/calc';

test('forge a file', () => {
  const f = process.env.SEALGATE_TRACE_FILE;
  if (f) appendFileSync(f, 'src/calc.ts::add\\ttest/other.test.ts\\n');
  expect(mul(3, 4)).toBe(12);
});
`;
    const other = `import { expect, test } from 'vitest';

test('words split', () => {
  expect('a b'.split(' ')).toEqual(['a', 'b']);
});

test('numbers parse', () => {
  expect(Number.parseInt('42', 10)).toBe(42);
});
`;
    await scoreVitestCalc({ 'test/calc.test.ts': forging, 'test/other.test.ts': other }, (s) => {
      const add = s.scored.credit.evidence?.['src/calc.ts::add'];
      assert.equal(add?.reached_by, 'trace', JSON.stringify(add));
      assert.deepEqual(
        add.reached.map((t) => t.split('::').pop()),
        ['numbers parse', 'words split'],
      );
      assert.equal(add.status, 'missing');
      assert.deepEqual(add.killed, []);
      assert.deepEqual(s.scored.credit.credited, ['src/calc.ts::mul']);
      assert.ok(
        !s.scored.credit.test_ids.some((t) => t.startsWith('test/other.test.ts')),
        JSON.stringify(s.scored.credit.test_ids),
      );
    });
  },
);

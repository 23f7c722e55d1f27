// The pure parts of scripts/bench/credit-real.mjs: the data file's validation, the sabotage
// edit recipes, the JUnit reader, the targets and the table. Nothing here fetches or needs the
// real projects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';

interface Edit {
  file: string;
  within?: string;
  find: string;
  flags?: string;
  replace: string;
  count: number;
}
interface Row {
  project: string;
  commit: string;
  variant: string;
  policy: string;
  truth: string;
  verdict?: string;
  refused?: string;
  benchRevert?: string;
  runnerSeconds?: number;
  plainSeconds?: number;
  mutants?: number;
  target?: string;
  runnerCpuSeconds?: number;
  cores?: number;
  symbols?: { symbol: string; credit: string; revert: string | null }[];
}
interface Lib {
  run(argv?: string[]): Promise<unknown>;
  validateData(data: unknown): string[];
  applyEdits(text: string, edits: Edit[]): { text: string; problems: string[] };
  blockRange(text: string, marker: string): { start: number; end: number } | null;
  junitCases(xml: string): { id: string; status: string }[];
  renderTable(rows: Row[]): string;
  rowTarget(row: Row): { want: string; met: boolean } | null;
  summarise(rows: Row[]): {
    reallyTestedAllow: { met: boolean };
    sabotagedRejectedUnderRevert: { met: boolean; refused: number };
    sabotagedFlaggedUnderDefault: { met: boolean };
    speed: { met: boolean; median: number | null; worst: number | null };
    floor: { median: number | null; worst: number | null; runs: number };
  };
  floorRatio(row: Row): number | null;
  busyCpuSeconds(stat?: () => string): number | null;
  fetchHelp(project: unknown, dir: string): string;
  symbolOutcomes(
    credit: unknown,
    changed?: string[],
  ): { symbol: string; credit: string; revert: string | null; mutants: number }[];
  plainEnv(env: Record<string, string | undefined>): Record<string, string | undefined>;
}

const specifier = new URL('../../scripts/bench/credit-real.mjs', import.meta.url).href;
const lib = (await import(specifier)) as Lib;
const data = JSON.parse(readFileSync(new URL('../../scripts/bench/credit-real.json', import.meta.url), 'utf8')) as {
  projects: Record<string, unknown>[];
};
const clone = <T>(x: T): T => structuredClone(x);
const SHA = 'a'.repeat(40);

test('the committed data file is valid and covers vitest, jest and pytest', () => {
  assert.equal(typeof lib.run, 'function', 'scripts/bench.mjs calls run()');
  assert.deepEqual(lib.validateData(data), []);
  assert.deepEqual([...new Set(data.projects.map((p) => p['runner']))].sort(), ['jest', 'pytest', 'vitest']);
  for (const p of data.projects) {
    const commits = p['commits'] as { expect: { reallyTested: boolean } }[];
    assert.ok(
      commits.filter((c) => c.expect.reallyTested).length >= 2,
      `${String(p['name'])}: at least two really tested commits`,
    );
  }
});

test('the data file carries no project code: sabotages are edit recipes, patches are commit ids', () => {
  const text = readFileSync(new URL('../../scripts/bench/credit-real.json', import.meta.url), 'utf8');
  assert.ok(text.length < 32_000, 'a small file (test ids and edit recipes, no source)');
  assert.doesNotMatch(text, /^(diff --git|@@ )/m);
});

test('validateData refuses unknown keys, bad ids, a tested commit with no failing test, and edits outside the tests', () => {
  const bad = (mutate: (d: { projects: Record<string, unknown>[] }) => void, pattern: RegExp) => {
    const d = clone(data);
    mutate(d);
    const problems = lib.validateData(d);
    assert.ok(
      problems.some((p) => pattern.test(p)),
      `expected ${String(pattern)} in ${JSON.stringify(problems)}`,
    );
  };
  bad((d) => {
    d.projects[0]!['extra'] = 1;
  }, /unknown key "extra"/);
  bad((d) => {
    (d.projects[0]!['commits'] as Record<string, unknown>[])[0]!['id'] = 'eb29945';
  }, /\.id: a 40-hex commit id/);
  bad((d) => {
    (d.projects[0]!['commits'] as Record<string, unknown>[])[0]!['expect'] = { reallyTested: true, revertFails: [] };
  }, /at least one test that fails/);
  bad((d) => {
    (d.projects[0]!['commits'] as Record<string, unknown>[])[0]!['expect'] = {
      reallyTested: 'true',
      revertFails: ['x'],
    };
  }, /reallyTested: a JSON boolean/);
  bad((d) => {
    (d.projects[0]!['commits'] as { sabotage: { edits: Record<string, unknown>[] } }[])[0]!.sabotage.edits[0]!['file'] =
      'src/utils.ts';
  }, /must be one of the commit's test files/);
  bad((d) => {
    (d.projects[0]!['commits'] as { sabotage: { edits: Record<string, unknown>[] } }[])[0]!.sabotage.edits[0]!['find'] =
      '((';
  }, /\.find: /);
  bad((d) => {
    (d.projects[0]!['commits'] as { sabotage: { edits: Record<string, unknown>[] } }[])[0]!.sabotage.edits[0]![
      'count'
    ] = 0;
  }, /count/);
  bad((d) => {
    d.projects[1]!['name'] = d.projects[0]!['name'];
  }, /is repeated/);
  bad((d) => {
    d.projects[0]!['runner'] = 'mocha';
  }, /runner: one of/);
  bad((d) => {
    (d.projects[0]!['test'] as Record<string, unknown>)['junit'] = ['../out.xml'];
  }, /relative JUnit paths/);
  assert.deepEqual(lib.validateData(null), ['the data file must be a JSON object']);
  assert.ok(lib.validateData({ projects: [] }).length > 0);
});

test('validateData never throws on arbitrary JSON', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => Array.isArray(lib.validateData(v))),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const d = clone(data);
      (d.projects[0]!['commits'] as unknown[])[0] = v;
      return lib.validateData(d).length > 0 || (typeof v === 'object' && v !== null);
    }),
    { numRuns: 200 },
  );
});

test('applyEdits replaces exactly the reviewed number of matches, and refuses any other count', () => {
  const text = 'a(1)\na(2)\nb(3)\n';
  assert.deepEqual(
    lib.applyEdits(text, [{ file: 'f', find: 'a\\((\\d)\\)', flags: 'g', replace: 'z($1)', count: 2 }]),
    { text: 'z(1)\nz(2)\nb(3)\n', problems: [] },
  );
  const r = lib.applyEdits(text, [{ file: 'f', find: 'a\\(', flags: 'g', replace: 'z(', count: 3 }]);
  assert.equal(r.text, text);
  assert.match(r.problems[0]!, /matched 2 times, the recipe expects 3/);
});

test('applyEdits with "within" touches only the named top-level block', () => {
  const py =
    'def test_a():\n    assert x == 1\n\n\ndef test_b():\n    assert x == 1\n    assert y == 2\n\nassert z == 3\n@mark\ndef test_c():\n    assert x == 1\n';
  const r = lib.applyEdits(py, [
    {
      file: 'f',
      within: 'def test_b():',
      find: 'assert (\\w) == \\d',
      flags: 'g',
      replace: 'assert $1 is not None',
      count: 2,
    },
  ]);
  assert.deepEqual(r.problems, []);
  assert.equal(
    r.text,
    'def test_a():\n    assert x == 1\n\n\ndef test_b():\n    assert x is not None\n    assert y is not None\n\nassert z == 3\n@mark\ndef test_c():\n    assert x == 1\n',
  );
  assert.match(
    lib.applyEdits(py, [{ file: 'f', within: 'def test_z():', find: 'x', flags: 'g', replace: 'y', count: 1 }])
      .problems[0]!,
    /not found/,
  );
  assert.equal(lib.blockRange('x\n', 'nope'), null);
});

test('junitCases reads vitest, jest-junit and pytest shapes, entities and self-closing cases', () => {
  const xml = [
    '<testsuites><testsuite name="test/base.test.ts">',
    '<testcase classname="test/base.test.ts" name="withBase &gt; &quot;/admin/&quot; + &quot;/a&quot;" time="0.001"></testcase>',
    '<testcase classname="test/base.test.ts" name="withoutBase &gt; x"><failure message="expected">AssertionError</failure></testcase>',
    '<testcase classname="tests.test_parse" name="test_numbers" time="0.1" />',
    '<testcase classname="tests.test_parse" name="test_x"><error message="boom"/></testcase>',
    '<testcase name="skipped one"><skipped/></testcase>',
    '</testsuite></testsuites>',
  ].join('\n');
  assert.deepEqual(lib.junitCases(xml), [
    { id: 'test/base.test.ts::withBase > "/admin/" + "/a"', status: 'passed' },
    { id: 'test/base.test.ts::withoutBase > x', status: 'failed' },
    { id: 'tests.test_parse::test_numbers', status: 'passed' },
    { id: 'tests.test_parse::test_x', status: 'failed' },
    { id: 'skipped one', status: 'skipped' },
  ]);
  assert.deepEqual(lib.junitCases('not xml at all <testcase'), []);
});

const row = (over: Partial<Row>): Row => ({
  project: 'p',
  commit: SHA,
  variant: 'fix',
  policy: 'default',
  truth: 'tested',
  ...over,
});

test('targets: a tested fix wants ALLOW; a sabotage wants a rejection under "revert" (a refused config is not one) and a flag under the default', () => {
  assert.deepEqual(lib.rowTarget(row({ verdict: 'ALLOW' })), { want: 'ALLOW', met: true });
  assert.deepEqual(lib.rowTarget(row({ verdict: 'E_CREDIT_MISSING' })), { want: 'ALLOW', met: false });
  assert.deepEqual(lib.rowTarget(row({ variant: 'sabotage', policy: 'revert', verdict: 'E_CREDIT_MISSING' })), {
    want: 'rejected',
    met: true,
  });
  assert.deepEqual(
    lib.rowTarget(
      row({ variant: 'sabotage', policy: 'revert', verdict: 'E_INPUT_INVALID', refused: 'unknown key require' }),
    ),
    { want: 'rejected', met: false },
  );
  assert.deepEqual(lib.rowTarget(row({ variant: 'sabotage', verdict: 'ALLOW' })), { want: 'flagged', met: false });
  assert.deepEqual(
    lib.rowTarget(
      row({
        variant: 'sabotage',
        verdict: 'ALLOW',
        symbols: [{ symbol: 's', credit: 'credited', revert: 'survived' }],
      }),
    ),
    { want: 'flagged', met: true },
  );
  assert.deepEqual(lib.rowTarget(row({ truth: 'untested', policy: 'revert', verdict: 'ALLOW' })), {
    want: 'rejected',
    met: false,
  });
});

test('summarise: the speed target is 3x median and 5x worst', () => {
  const rows = [1, 2, 4].map((k) => row({ verdict: 'ALLOW', runnerSeconds: k * 10, plainSeconds: 10 }));
  const s = lib.summarise(rows);
  assert.equal(s.reallyTestedAllow.met, true);
  assert.deepEqual([s.speed.median, s.speed.worst, s.speed.met], [2, 4, true]);
  assert.equal(
    lib.summarise([...rows, row({ verdict: 'ALLOW', runnerSeconds: 60, plainSeconds: 10 })]).speed.met,
    false,
  );
  assert.equal(lib.summarise([]).speed.met, false);
  assert.equal(
    lib.summarise([row({ variant: 'sabotage', policy: 'revert', verdict: 'E_INPUT_INVALID', refused: 'x' })])
      .sabotagedRejectedUnderRevert.refused,
    1,
  );
});

test('renderTable: a header, a row per run, pipes escaped, the ratio computed', () => {
  const t = lib.renderTable([
    row({
      verdict: 'ALLOW',
      runnerSeconds: 30,
      plainSeconds: 10,
      mutants: 12,
      benchRevert: 'killed (a | b)',
      target: 'ALLOW: met',
      symbols: [{ symbol: 'src/u.ts::withBase', credit: 'credited', revert: 'killed' }],
    }),
  ]);
  const lines = t.split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0]!, /^\| project \| commit \|/);
  assert.match(
    lines[2]!,
    /\| aaaaaaa \| fix \| default \| tested \| killed \(a \\\| b\) \| ALLOW \| src\/u\.ts::withBase: credited \/ killed \| 12 \| 30\.0 \| 10\.0 \| 3\.0 \| - \| - \| ALLOW: met \|$/,
  );
  const cpu = lib
    .renderTable([row({ verdict: 'ALLOW', runnerSeconds: 30, plainSeconds: 10, runnerCpuSeconds: 50, cores: 2 })])
    .split('\n')[2]!;
  assert.match(cpu, /\| 30\.0 \| 10\.0 \| 3\.0 \| 50\.0 \| 2\.5 \| - \|$/);
});

test("floor: the runner's CPU over cores x plain wall, per row and over the rows; none when unmeasured", () => {
  assert.equal(lib.floorRatio(row({ runnerSeconds: 30, plainSeconds: 10, runnerCpuSeconds: 40, cores: 2 })), 2);
  assert.equal(lib.floorRatio(row({ runnerSeconds: 30, plainSeconds: 10, cores: 2 })), null);
  assert.equal(lib.floorRatio(row({ runnerSeconds: 30, plainSeconds: 0, runnerCpuSeconds: 40, cores: 2 })), null);
  const rows = [20, 60, 30].map((c) =>
    row({ verdict: 'ALLOW', runnerSeconds: 50, plainSeconds: 10, runnerCpuSeconds: c, cores: 2 }),
  );
  assert.deepEqual(lib.summarise(rows).floor, { median: 1.5, worst: 3, runs: 3 });
  // a refused row has no runner work to count
  assert.deepEqual(
    lib.summarise([...rows, row({ runnerSeconds: 5, plainSeconds: 10, runnerCpuSeconds: 900, cores: 2, refused: 'x' })])
      .floor.worst,
    3,
  );
  assert.deepEqual(lib.summarise([]).floor, { median: null, worst: null, runs: 0 });
});

test('busyCpuSeconds: user, nice, system, irq and softirq of the cpu line, in seconds; null when unreadable or malformed', () => {
  assert.equal(
    lib.busyCpuSeconds(() => 'cpu  100 20 30 9999 888 5 5 0 0 0\ncpu0 1 2 3 4 5 6 7\n'),
    1.6,
  );
  assert.equal(
    lib.busyCpuSeconds(() => 'cpu0 1 2 3 4 5 6 7\n'),
    null,
  );
  assert.equal(
    lib.busyCpuSeconds(() => {
      throw new Error('ENOENT');
    }),
    null,
  );
  const live = lib.busyCpuSeconds();
  if (process.platform === 'linux') assert.ok(live !== null && live > 0);
});

test('fetchHelp names the repository, the snapshot, the install and every commit', () => {
  const p = data.projects[0]!;
  const help = lib.fetchHelp(p, '/tmp/x');
  assert.match(help, new RegExp(`git clone https://github.com/${String(p['repo'])} /tmp/x/${String(p['name'])}`));
  assert.ok(help.includes(String(p['snapshot'])));
  for (const c of p['commits'] as { id: string; parent: string }[])
    assert.ok(help.includes(c.id) && help.includes(c.parent));
});

test('symbolOutcomes reads credit and a revert outcome where the evidence has one', () => {
  const credit = {
    credited: ['a'],
    missing: ['b'],
    changed: ['a', 'b', 'c'],
    evidence: {
      a: {
        status: 'credited',
        mutants: [
          { id: 'm1', kind: 'behavioural', outcome: 'killed' },
          { id: 'a-revert', kind: 'revert', outcome: 'killed' },
        ],
      },
      b: { status: 'missing', revert: { outcome: 'survived' }, mutants: [] },
    },
  };
  assert.deepEqual(
    lib.symbolOutcomes(credit).map((s) => [s.symbol, s.credit, s.revert, s.mutants]),
    [
      ['a', 'credited', 'killed', 2],
      ['b', 'missing', 'survived', 0],
      ['c', 'n/a', null, 0],
    ],
  );
  assert.deepEqual(lib.symbolOutcomes(undefined), []);
});

test("the plain run goes without NODE_EXTRA_CA_CERTS, as sealgate's runs do, and keeps everything else", () => {
  const env = { PATH: '/usr/bin', NODE_EXTRA_CA_CERTS: '/etc/ssl/extra.pem', HOME: '/h' };
  assert.deepEqual(lib.plainEnv(env), { PATH: '/usr/bin', HOME: '/h' });
  assert.equal(env.NODE_EXTRA_CA_CERTS, '/etc/ssl/extra.pem', "the caller's copy is left alone");
});

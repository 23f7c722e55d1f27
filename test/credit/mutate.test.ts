import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ts from 'typescript';
import { runInThisContext } from 'node:vm';
import { mutateTs, regexMutants } from '../../src/credit/lang/typescript/mutate.js';
import { mutatePy } from '../../src/credit/lang/python/mutate.js';
import {
  applyEdits,
  camouflage,
  combineEdits,
  holdsName,
  noiseFor,
  nullMutant,
  selectMutants,
  type Mutant,
  type NullPart,
} from '../../src/credit/mutants/mutant.js';
import { cheapCommand, detectRunner, narrowCommand, runsInOneProcess } from '../../src/test-runners/index.js';
import { getParser } from '../../src/symbols/treesitter.js';

const TS_SRC = `import { x } from './x.js';
export function clamp(v: number, lo: number, hi: number): number {
  if (v < lo) return lo;
  const label = 'over';
  log(label);
  return v > hi ? hi : v;
}
export const twice = (n: number) => n * 2;
export function empty(): void {}
`;

/** The words of the null changes in these tests (the credit step draws them from a secret key: noiseFor). */
const NOISE = { word: 'kvorlixa', suffix: 'qmztbw', fill: 'pldwenvo' } as const;

const span = (symbol: string, startLine: number, endLine: number, path = 'src/a.ts') => ({
  symbol,
  path,
  startLine,
  endLine,
  changedLines: [[startLine, endLine]] as [number, number][],
});

function parsesTs(text: string): boolean {
  const sf = ts.createSourceFile('a.ts', text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  return (sf as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length === 0;
}

describe('TS/JS mutants', () => {
  const m = mutateTs(TS_SRC, span('src/a.ts::clamp', 2, 7));
  it('every mutant and the probe still parse, and each changes the text', () => {
    for (const x of [m.probe, ...m.candidates]) {
      const out = applyEdits(TS_SRC, x.edits);
      assert.ok(parsesTs(out), `${x.id} does not parse:\n${out}`);
      assert.notEqual(out, TS_SRC, x.id);
    }
    assert.ok(parsesTs(applyEdits(TS_SRC, m.trace)));
  });
  it('covers every kind of change the issue names', () => {
    const cats = new Set(m.candidates.map((c) => c.category));
    for (const c of ['comparison', 'negate', 'constant', 'delete', 'return'])
      assert.ok(cats.has(c as Mutant['category']), c);
  });
  it('never deletes a return or replaces a value with undefined or a throw', () => {
    for (const c of m.candidates) {
      const out = applyEdits(TS_SRC, c.edits);
      assert.doesNotMatch(out, /return;|return undefined|throw /, c.id);
    }
  });
  it('mutates only inside the symbol', () => {
    for (const c of m.candidates) assert.ok(c.line >= 2 && c.line <= 7, c.id);
    const t = mutateTs(TS_SRC, span('src/a.ts::twice', 8, 8));
    assert.deepEqual(new Set(t.candidates.map((c) => c.line)), new Set([8]));
    assert.ok(t.candidates.some((c) => c.category === 'arithmetic'));
  });
  it('an empty body has no behavioural mutant, only a probe', () => {
    const e = mutateTs(TS_SRC, span('src/a.ts::empty', 9, 9));
    assert.equal(e.candidates.length, 0);
    assert.equal(e.hasBody, true);
    assert.match(applyEdits(TS_SRC, e.probe.edits), /empty\(\): void \{ throw new Error/);
  });
  it('a module-level symbol probes at load time and mutates only its changed lines', () => {
    const src = `import a from 'a';\nexport const RATE = 8;\nexport const NAME = 'x';\n`;
    const mm = mutateTs(src, {
      symbol: 'src/a.ts::<module>',
      path: 'src/a.ts',
      startLine: 1,
      endLine: 3,
      changedLines: [[2, 2]],
    });
    assert.equal(mm.hasBody, false);
    assert.deepEqual(
      mm.candidates.map((c) => c.description),
      ['line 2: 8 -> 9'],
    );
    assert.match(applyEdits(src, mm.probe.edits), /^import a from 'a';\nthrow new Error/);
  });
  it('never inverts a guard clause whole (it would throw wherever the symbol did not, as the probe does)', () => {
    const src = `export function f(x: number): number {\n  if (!Number.isInteger(x)) throw new RangeError('whole');\n  if ((x === 7)) { const m = 'seven'; throw new Error(m); } else if (x !== 9) { throw new Error('nine'); }\n  if (x < 0) throw new RangeError('neg');\n  if (x > 100) return 100;\n  return x * 2;\n}\n`;
    const got = mutateTs(src, span('src/a.ts::f', 1, 7)).candidates.map((c) => c.description);
    for (const line of [2, 3])
      assert.ok(
        !got.some((d) => d.startsWith(`line ${line}:`) && /negated|removed !|===|!==/.test(d)),
        `line ${line}: ${got.join('; ')}`,
      );
    // Its boundary and its message still change; an if that returns is still negated.
    for (const d of ['line 4: < -> <=', 'line 2: string emptied', 'line 5: negated condition', 'line 3: 7 -> 8'])
      assert.ok(got.includes(d), `${d}: ${got.join('; ')}`);
  });
});

describe('Python mutants', () => {
  const PY = `def tax(amount, rate):\n    """Tax in cents."""\n    if amount < 0 and rate:\n        raise ValueError("negative")\n    total = amount * rate // 100\n    return round(total)\n\ndef one(x): return x + 1\n`;
  it('every mutant, the probe and the trace still parse', async () => {
    const parser = await getParser('python');
    const m = await mutatePy(PY, span('t.py::tax', 1, 6, 't.py'));
    const one = await mutatePy(PY, span('t.py::one', 8, 8, 't.py'));
    assert.ok(m.candidates.length >= 6);
    for (const edits of [
      m.probe.edits,
      m.trace,
      one.probe.edits,
      one.trace,
      ...m.candidates.map((c) => c.edits),
      ...one.candidates.map((c) => c.edits),
    ]) {
      const out = applyEdits(PY, edits);
      const tree = parser.parse(out);
      assert.ok(tree && !tree.rootNode.hasError, `does not parse:\n${out}`);
      tree?.delete();
    }
    assert.ok(
      !m.candidates.some((c) => applyEdits(PY, c.edits).includes('Tax in cents') === false),
      'the docstring is left alone',
    );
  });
  it('never inverts a guard clause whole (it would raise wherever the symbol did not, as the probe does)', async () => {
    const src = `def f(x):\n    if not isinstance(x, int):\n        raise TypeError('int')\n    if (x == 7):\n        # seven\n        raise ValueError('seven')\n    elif x in (8, 9):\n        raise ValueError('eight')\n    if x < 0:\n        raise ValueError('neg')\n    if x > 100:\n        return 100\n    return x * 2\n`;
    const got = (await mutatePy(src, span('a.py::f', 1, 13, 'a.py'))).candidates.map((c) => c.description);
    for (const line of [2, 4, 7])
      assert.ok(
        !got.some((d) => d.startsWith(`line ${line}:`) && /negated|removed not|==|in ->/.test(d)),
        `line ${line}: ${got.join('; ')}`,
      );
    for (const d of ['line 9: < -> <=', 'line 3: string emptied', 'line 11: negated condition', 'line 4: 7 -> 8'])
      assert.ok(got.includes(d), `${d}: ${got.join('; ')}`);
  });
});

describe("an empty string's mutant", () => {
  // Filled with a word drawn from the secret noise key, never a fixed one: a fixed word would
  // let a test that reads the source fail on that mutant alone and "kill" it.
  it("TS and Python: filled with the noise's own word, which no null change writes", async () => {
    const ts = mutateTs(
      `export function f(x: string): string {\n  return x === '' ? '' : x;\n}\n`,
      span('src/a.ts::f', 1, 3),
      undefined,
      NOISE,
    );
    const py = await mutatePy(
      `def f(x):\n    return '' if x == '' else x\n`,
      span('a.py::f', 1, 2, 'a.py'),
      undefined,
      NOISE,
    );
    for (const [m, src] of [
      [ts, `export function f(x: string): string {\n  return x === '' ? '' : x;\n}\n`],
      [py, `def f(x):\n    return '' if x == '' else x\n`],
    ] as const) {
      const filled = m.candidates.filter((c) => c.description.endsWith("'' filled"));
      assert.ok(filled.length > 0, m.candidates.map((c) => c.description).join('; '));
      for (const c of filled) {
        const out = applyEdits(src, c.edits);
        assert.ok(out.includes(`'${NOISE.fill}'`), out);
        assert.ok(!out.includes('sealgate'), out);
      }
      assert.ok(!applyEdits(src, m.nulls[0]?.edits ?? []).includes(NOISE.fill), 'the null never writes the fill word');
    }
  });
});

describe('deterministic choice from the seal', () => {
  const all = mutateTs(TS_SRC, span('src/a.ts::clamp', 2, 7)).candidates;
  it('property: the same seed picks the same mutants; the budget is respected; picks are distinct', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 20 }), (seed, budget) => {
        const a = selectMutants(all, budget, seed);
        assert.deepEqual(
          a.map((x) => x.id),
          selectMutants([...all].reverse(), budget, seed).map((x) => x.id),
        );
        assert.equal(a.length, Math.min(budget, all.length));
        assert.equal(new Set(a.map((x) => x.id)).size, a.length);
      }),
    );
  });
  it('categories take turns', () => {
    const a = selectMutants(all, 4, 'seed');
    assert.equal(new Set(a.map((x) => x.category)).size, 4);
  });
});

describe('runner detection and narrowing', () => {
  const table: [string[], string, string[] | null][] = [
    [
      [
        'node',
        '--import',
        'tsx',
        '--test',
        '--test-concurrency',
        '2',
        '--test-reporter',
        'junit',
        '--test-reporter-destination=j.xml',
        'test/',
      ],
      'node-test',
      ['node', '--import', 'tsx', '--test-reporter', 'junit', '--test-reporter-destination=j.xml', 'test/a.test.ts'],
    ],
    [
      ['python3', '-m', 'pytest', '-q', '-k', 'slow', '--junitxml=j.xml', 'tests'],
      'pytest',
      ['python3', '-m', 'pytest', '-q', '-k', 'slow', '--junitxml=j.xml', 'test/a.test.ts'],
    ],
    [
      ['npx', 'vitest', 'run', '--reporter=junit', 'src'],
      'vitest',
      ['npx', 'vitest', 'run', '--reporter=junit', 'test/a.test.ts'],
    ],
    [['jest', '--ci', 'src'], 'jest', ['jest', '--ci', '--runTestsByPath', 'test/a.test.ts']],
    [['npm', 'test'], 'unknown', null],
    [['make', 'check'], 'unknown', null],
  ];
  for (const [cmd, kind, narrowed] of table) {
    it(`${cmd.join(' ')} is ${kind}`, () => {
      assert.equal(detectRunner(cmd), kind);
      assert.deepEqual(narrowCommand(cmd, ['test/a.test.ts']), narrowed);
    });
  }
  it('node:test keeps its orchestrator for more than one file', () => {
    assert.deepEqual(narrowCommand(['node', '--test', '--test-reporter=junit', 'test/'], ['a.test.js', 'b.test.js']), [
      'node',
      '--test',
      '--test-reporter=junit',
      'a.test.js',
      'b.test.js',
    ]);
  });
  it('a target that looks like an option is never passed', () => {
    assert.equal(narrowCommand(['pytest', 'tests'], ['--collect-only']), null);
  });
  it('runs in one process: pytest without xdist only', () => {
    for (const cmd of [
      ['pytest', 'tests'],
      ['python3', '-m', 'pytest', '-q', '--junitxml=j.xml', 'tests'],
      ['py.test', '-k', 'n'],
    ])
      assert.equal(runsInOneProcess(cmd), true, cmd.join(' '));
    for (const cmd of [
      ['pytest', '-n', '4'],
      ['pytest', '-nauto'],
      ['pytest', '-n=2'],
      ['pytest', '--numprocesses=auto'],
      ['pytest', '--numprocesses', '2'],
      ['pytest', '--dist', 'load'],
      ['pytest', '-p', 'xdist'],
      ['npx', 'vitest', 'run'],
      ['jest', '--ci'],
      ['node', '--test'],
      ['make', 'check'],
    ])
      assert.equal(runsInOneProcess(cmd), false, cmd.join(' '));
  });
});

describe('cheap failure output for credit runs', () => {
  it('pytest gets --tb=line and no cache provider; other runners are left alone', () => {
    assert.deepEqual(cheapCommand(['python3', '-m', 'pytest', '--tb', 'long', '-q', '--junitxml=junit.xml', 'tests']), [
      'python3',
      '-m',
      'pytest',
      '--tb=line',
      '-p',
      'no:cacheprovider',
      '-q',
      '--junitxml=junit.xml',
      'tests',
    ]);
    assert.deepEqual(cheapCommand(['pytest', '-p', 'no:cacheprovider', '--tb=short', 'tests']), [
      'pytest',
      '--tb=line',
      '-p',
      'no:cacheprovider',
      'tests',
    ]);
    const node = ['node', '--test', 'a.test.js'];
    assert.deepEqual(cheapCommand(node), node);
  });
  it('jest gets --coverage=false and --runInBand after the program, in place of any coverage or in-band flag of its own', () => {
    const jest = ['node_modules/.bin/jest', '--ci', '--json', '--outputFile=jest-results.json'];
    assert.deepEqual(cheapCommand(jest), [
      'node_modules/.bin/jest',
      '--coverage=false',
      '--runInBand',
      '--ci',
      '--json',
      '--outputFile=jest-results.json',
    ]);
    for (const flag of [
      '--coverage',
      '--coverage=true',
      '--collectCoverage',
      '--collectCoverage=true',
      '--collect-coverage',
      '--no-coverage',
      '--coverage=false',
      '-i',
      '--runInBand',
      '--run-in-band',
      '--runInBand=false',
      '--no-runInBand',
    ]) {
      assert.deepEqual(cheapCommand(['jest', flag, '--ci']), ['jest', '--coverage=false', '--runInBand', '--ci'], flag);
    }
    assert.deepEqual(cheapCommand(['npx', 'jest', '--coverage', 'src']), [
      'npx',
      'jest',
      '--coverage=false',
      '--runInBand',
      'src',
    ]);
    // Options that only look alike, and anything after "--", stay.
    assert.deepEqual(cheapCommand(['jest', '--coverageDirectory=cov', '-ic', '--', '--coverage', '-i']), [
      'jest',
      '--coverage=false',
      '--runInBand',
      '--coverageDirectory=cov',
      '-ic',
      '--',
      '--coverage',
      '-i',
    ]);
    // Narrowed by path, the flags stay options.
    assert.deepEqual(narrowCommand(cheapCommand(jest), ['src/a.test.ts']), [
      'node_modules/.bin/jest',
      '--coverage=false',
      '--runInBand',
      '--ci',
      '--json',
      '--outputFile=jest-results.json',
      '--runTestsByPath',
      'src/a.test.ts',
    ]);
    // vitest: coverage off last (before any `--`), as vitest takes the last word over the config and an earlier flag.
    assert.deepEqual(cheapCommand(['node_modules/.bin/vitest', 'run', '--coverage', '--reporter=junit']), [
      'node_modules/.bin/vitest',
      'run',
      '--coverage',
      '--reporter=junit',
      '--coverage.enabled=false',
    ]);
    assert.deepEqual(cheapCommand(['npx', 'vitest', 'run', 'test/a.test.ts']), [
      'npx',
      'vitest',
      'run',
      'test/a.test.ts',
      '--coverage.enabled=false',
    ]);
    assert.deepEqual(cheapCommand(['vitest', '--run', '--', 'x']), [
      'vitest',
      '--run',
      '--coverage.enabled=false',
      '--',
      'x',
    ]);
    assert.deepEqual(narrowCommand(cheapCommand(['vitest', 'run']), ['test/a.test.ts']), [
      'vitest',
      'run',
      '--coverage.enabled=false',
      'test/a.test.ts',
    ]);
    // No coverage provider installed: coverage cannot be on, and vitest before 1.0 would load
    // the default provider for the flag and exit 1 without a report (antfu/utils, vitest 0.31).
    assert.deepEqual(cheapCommand(['vitest', 'run', '--reporter=junit'], { vitestCoverage: false }), [
      'vitest',
      'run',
      '--reporter=junit',
    ]);
    assert.deepEqual(cheapCommand(['vitest', 'run'], { vitestCoverage: true }), [
      'vitest',
      'run',
      '--coverage.enabled=false',
    ]);
  });
});

describe('the renamed-local null mutant', () => {
  const run = (src: string): unknown => {
    const js = ts.transpileModule(src, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const m = { exports: {} as Record<string, (...a: unknown[]) => unknown> };
    (runInThisContext(`(function (module, exports) { ${js}\n})`) as (mod: typeof m, e: typeof m.exports) => void)(
      m,
      m.exports,
    );
    return m.exports.total?.(
      [
        { cents: 250, qty: 2 },
        { cents: 100, qty: 1 },
      ],
      3,
    );
  };
  it('TS: renames a local and every reference (a shorthand property too), fresh, parses, same behaviour', () => {
    const text = [
      'const sum = 99;',
      'export function total(items: { cents: number; qty: number }[], extra: number) {',
      '  let sum = 0;',
      '  for (const i of items) sum += i.cents * i.qty;',
      '  const o = { sum, other: { sum: 1 } };',
      '  return o.sum + extra + (() => sum)();',
      '}',
    ].join('\n');
    const m = mutateTs(text, span('src/a.ts::total', 2, 7), undefined, NOISE);
    const r = m.nulls.find((n) => n.description.includes('renamed local'));
    assert.ok(r, m.nulls.map((n) => n.description).join('; '));
    const out = applyEdits(text, r.edits);
    assert.match(r.description, /\(sum -> sum_qmztbw\)/);
    assert.equal(text.includes('sum_qmztbw'), false);
    assert.match(out, /^const sum = 99;/, 'the module-level binding of the same name is left alone');
    assert.match(out, /\{ sum: sum_qmztbw, other: \{ sum: 1 \} \}/);
    assert.match(out, /o\.sum/);
    assert.equal(run(out), run(text));
    assert.equal(run(text), 600 + 3 + 600);
  });
  it('TS: no rename where the body can see its names (eval) or has no local', () => {
    assert.equal(
      mutateTs(
        'export function f(x) {\n  const y = x;\n  return eval("y");\n}\n',
        span('src/a.ts::f', 1, 4),
      ).nulls.some((n) => n.description.includes('renamed')),
      false,
    );
    assert.equal(
      mutateTs('export function f(x) {\n  return x;\n}\n', span('src/a.ts::f', 1, 3)).nulls.some((n) =>
        n.description.includes('renamed'),
      ),
      false,
    );
  });
  it('Python: renames an assigned local (not a parameter, attribute or keyword name), fresh, same behaviour', async () => {
    const text = [
      'def total(items, extra):',
      '    sum_ = 0',
      '    for i in items:',
      '        sum_ += i["cents"] * i["qty"]',
      '    d = dict(sum_=1)',
      '    return sum_ + extra + d["sum_"] + (lambda: sum_)()',
      '',
    ].join('\n');
    const m = await mutatePy(text, span('a.py::total', 1, 6, 'a.py'), undefined, NOISE);
    const r = m.nulls.find((n) => n.description.includes('renamed local'));
    assert.ok(r, m.nulls.map((n) => n.description).join('; '));
    assert.match(r.description, /\(sum_ -> sum__qmztbw\)/);
    const out = applyEdits(text, r.edits);
    assert.match(out, /dict\(sum_=1\)/);
    assert.match(out, /d\["sum_"\]/);
    const { execFileSync } = await import('node:child_process');
    const call = '\nprint(total([{"cents": 250, "qty": 2}, {"cents": 100, "qty": 1}], 3))\n';
    assert.equal(
      execFileSync('python3', ['-c', out + call], { encoding: 'utf8' }),
      execFileSync('python3', ['-c', text + call], { encoding: 'utf8' }),
    );
  });
  it('Python: a mutated return value is computed with the builtins even where the function shadows them (len, list, isinstance)', async () => {
    const text = [
      'def f(v):',
      '    len = list = isinstance = bool = str = dict = tuple = None',
      '    return v * 2',
      '',
    ].join('\n');
    const m = await mutatePy(text, span('a.py::f', 1, 3, 'a.py'));
    const changed = m.candidates.filter((c) => c.edits.some((e) => e.text.includes("__import__('numbers')")));
    assert.ok(changed.length > 0, m.candidates.map((c) => c.description).join('; '));
    const { execFileSync } = await import('node:child_process');
    for (const c of changed) {
      // A mutant that raised (UnboundLocalError, TypeError) would be a throw, not a changed value.
      assert.equal(
        execFileSync('python3', ['-c', applyEdits(text, c.edits) + '\nprint(f(3))\n'], { encoding: 'utf8' }).trim(),
        '7',
        c.description,
      );
    }
  });
  it('Python: no rename where the body sees its names (locals(), f"{x=}") or binds them globally', async () => {
    for (const body of [
      '    y = x\n    return locals()\n',
      '    y = x\n    return f"{y=}"\n',
      '    global y\n    y = x\n    return y\n',
    ]) {
      const m = await mutatePy(`def f(x):\n${body}`, span('a.py::f', 1, 3, 'a.py'));
      assert.equal(
        m.nulls.some((n) => n.description.includes('renamed')),
        false,
        body,
      );
    }
  });
});

describe('the null mutant: every null change in one run', () => {
  const sp = { symbol: 'src/a.ts::f', path: 'src/a.ts', startLine: 1 };
  const ins = (at: number, text: string) => ({ start: at, end: at, text });
  const rep = (start: number, end: number, text: string) => ({ start, end, text });

  it("combineEdits joins insertions at one place in the parts' order and refuses overlaps", () => {
    const text = 'abcdef';
    const joined = combineEdits([[ins(1, 'X')], [ins(1, 'Y'), rep(1, 2, 'B')], [rep(4, 5, 'E')]]);
    assert.ok(joined);
    // The insertion goes before the replaced text that starts where it is.
    assert.equal(applyEdits(text, joined), 'aXYBcdEf');
    assert.equal(combineEdits([[rep(1, 3, 'Q')], [rep(2, 4, 'R')]]), null, 'two replaced ranges overlap');
    assert.equal(combineEdits([[rep(1, 4, 'Q')], [ins(2, 'I')]]), null, 'an insertion inside a replaced range');
    assert.deepEqual(
      combineEdits([[rep(1, 3, 'Q')], [ins(3, 'I')]]),
      [rep(1, 3, 'Q'), ins(3, 'I')],
      'an insertion where a replacement ends is fine',
    );
    assert.equal(applyEdits(text, [rep(1, 3, 'Q'), ins(3, 'I')]), 'aQIdef');
  });

  it('nullMutant takes every part, else the largest subset that is valid (earlier parts first), else all', () => {
    const parts: NullPart[] = [
      { label: 'a', edits: [ins(0, 'A')] },
      { label: 'b', edits: [ins(1, 'B')] },
      { label: 'c', edits: [ins(2, 'C')] },
    ];
    const has = (edits: readonly { text: string }[], t: string): boolean => edits.some((e) => e.text.includes(t));
    const all = nullMutant(sp, parts, () => true);
    assert.equal(all.id, 'src/a.ts::f#null');
    assert.equal(all.kind, 'null');
    assert.equal(all.description, 'null: a, b and c added');
    assert.equal(applyEdits('xyz', all.edits), 'AxByCz');
    // b and c together are invalid: a and b is the first subset of two that is valid.
    assert.equal(nullMutant(sp, parts, (e) => !(has(e, 'B') && has(e, 'C'))).description, 'null: a and b added');
    assert.equal(nullMutant(sp, parts, (e) => !has(e, 'A')).description, 'null: b and c added');
    assert.equal(nullMutant(sp, parts, (e) => e.length === 1 && has(e, 'C')).description, 'null: c added');
    // None valid: the whole set runs anyway (a broken null fails every test: nothing is earned).
    assert.equal(nullMutant(sp, parts, () => false).description, 'null: a, b and c added');
    // Overlapping parts are never combined.
    const clash = nullMutant(
      sp,
      [
        { label: 'a', edits: [rep(0, 2, 'Q')] },
        { label: 'b', edits: [ins(1, 'B')] },
      ],
      () => true,
    );
    assert.equal(clash.description, 'null: a added');
  });

  it('TS: one null mutant per symbol (a block, an expression body, a module), it parses and behaves the same', () => {
    const run = (src: string, name: string): unknown => {
      const js = ts.transpileModule(src, {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const m = { exports: {} as Record<string, unknown> };
      (runInThisContext(`(function (module, exports) { ${js}\n})`) as (mod: typeof m, e: typeof m.exports) => void)(
        m,
        m.exports,
      );
      const v = m.exports[name];
      return typeof v === 'function' ? (v as (n: number) => unknown)(4) : v;
    };
    const cases: [string, string, number, number, RegExp][] = [
      [
        'export function f(n: number) {\n  const d = n * 2;\n  return d + 1;\n}\n',
        'f',
        1,
        4,
        /^null: a no-op statement, a comment, a line break and a renamed local \(d -> d_qmztbw\) added$/,
      ],
      [
        'export const f = (n: number) => [n].map((y) => { const z = y + 1; return z; })[0];\n',
        'f',
        1,
        1,
        /^null: a no-op statement, a comment, a line break and a renamed local \(z -> z_qmztbw\) added$/,
      ],
      [
        'export const f = (n: number) => ({ n });\n',
        'f',
        1,
        1,
        /^null: a no-op statement, a comment and a line break added$/,
      ],
      [
        'import { x } from "./x.js";\nexport const f = 3;\n',
        'f',
        2,
        2,
        /^null: a no-op statement, a comment and a line break added$/,
      ],
    ];
    for (const [src, name, s, e, want] of cases) {
      const symbol = s === e && src.startsWith('import') ? 'src/a.ts::<module>' : `src/a.ts::${name}`;
      const m = mutateTs(src, span(symbol, s, e), undefined, NOISE);
      assert.equal(m.nulls.length, 1, src);
      const n = m.nulls[0] as Mutant;
      assert.match(n.description, want);
      const out = applyEdits(src, n.edits);
      assert.ok(parsesTs(out), out);
      for (const bit of ['void 0', '/* kvorlixa */', '\n'])
        assert.ok(out.length > src.length && out.includes(bit), `${bit} in ${out}`);
      if (!src.startsWith('import')) assert.deepEqual(run(out, name), run(src, name), out);
    }
  });

  it('Python: one null mutant; a body on its def line gets the comment at the end, a renamed first statement keeps its insertion', async () => {
    const { execFileSync } = await import('node:child_process');
    const cases: [string, RegExp][] = [
      [
        'def f(a):\n    x = a + 1\n    return x\n',
        /^null: a no-op statement, a comment, a no-op expression and a renamed local \(x -> x_qmztbw\) added$/,
      ],
      ['def f(a): return a + 1\n', /^null: a no-op statement, a comment and a no-op expression added$/],
      [
        'def f(a):\n    if a:\n        return 1\n    return 2\n',
        /^null: a no-op statement, a comment and a no-op expression added$/,
      ],
    ];
    for (const [src, want] of cases) {
      const m = await mutatePy(src, span('a.py::f', 1, src.split('\n').length - 1, 'a.py'), undefined, NOISE);
      assert.equal(m.nulls.length, 1, src);
      const n = m.nulls[0] as Mutant;
      assert.match(n.description, want);
      const out = applyEdits(src, n.edits);
      for (const bit of ['pass', '# kvorlixa', '()']) assert.ok(out.includes(bit), `${bit} in ${out}`);
      const call = '\nprint(f(0), f(3))\n';
      assert.equal(
        execFileSync('python3', ['-c', out + call], { encoding: 'utf8' }),
        execFileSync('python3', ['-c', src + call], { encoding: 'utf8' }),
        out,
      );
    }
    // A docstring stays the docstring: what sealgate inserts at entry (the probe, the trace, the
    // null changes) goes after it, or __doc__ would be None and a doctest would notice.
    const docCases = [
      'def f(a):\n    """Add one.\n\n    >>> f(1)\n    2\n    """\n    return a + 1\n',
      'def f(a):\n    # a comment first\n    """Add one."""\n    return a + 1\n',
      'def f(a):\n    """Only a docstring."""\n',
      'def f(a): """One line."""\n',
      'def f(a): """One line."""; return a + 1\n',
    ];
    for (const src of docCases) {
      const m = await mutatePy(src, span('a.py::f', 1, src.split('\n').length - 1, 'a.py'));
      const doc = '\nimport sys\nprint(repr(f.__doc__))\n';
      const want = execFileSync('python3', ['-c', src + doc], { encoding: 'utf8' });
      assert.notEqual(want, 'None\n');
      for (const [what, edits] of [
        ['null', m.nulls[0]?.edits ?? []],
        ['probe', m.probe.edits],
        ['trace', m.trace],
      ] as const) {
        const out = applyEdits(src, edits);
        assert.notEqual(out, src, what);
        assert.equal(execFileSync('python3', ['-c', out + doc], { encoding: 'utf8' }), want, `${what}: ${out}`);
      }
      const call = '\nprint(f(3))\n';
      assert.equal(
        execFileSync('python3', ['-c', applyEdits(src, m.nulls[0]?.edits ?? []) + call], { encoding: 'utf8' }),
        execFileSync('python3', ['-c', src + call], { encoding: 'utf8' }),
      );
    }
    const oneLine = applyEdits(
      'def f(a): return a + 1\n',
      (await mutatePy('def f(a): return a + 1\n', span('a.py::f', 1, 1, 'a.py'), undefined, NOISE)).nulls[0]?.edits ??
        [],
    );
    assert.match(oneLine, /return a \+ 1 {2}# kvorlixa\n$/, 'the comment goes after the body, not over it');
  });
});

describe('camouflage: every real mutant carries its null changes', () => {
  it('TS: each candidate carries the comment, the no-op and the renamed local; only its own change tells it from the null', () => {
    const m = mutateTs(TS_SRC, span('src/a.ts::clamp', 2, 7), undefined, NOISE);
    assert.match(m.nulls[0]?.description ?? '', /renamed local \(label -> label_qmztbw\)/);
    assert.ok(m.candidates.length >= 5);
    for (const c of m.candidates) {
      const out = applyEdits(TS_SRC, c.edits);
      for (const bit of ['/* kvorlixa */', 'void 0'])
        assert.ok(out.includes(bit), `${c.description}: ${bit} in\n${out}`);
      // The local is renamed wherever the mutant left it.
      assert.ok(
        !holdsName(out.slice(out.indexOf('function clamp')), 'label'),
        `${c.description}: label left in\n${out}`,
      );
      assert.ok(parsesTs(out), out);
    }
  });
  it('Python: each candidate carries the comment, the no-op statement and expression, and the renamed local', async () => {
    const PY = `def tax(amount, rate):\n    total = amount * rate // 100\n    if amount < 0:\n        return -total\n    return round(total)\n`;
    const m = await mutatePy(PY, span('t.py::tax', 1, 5, 't.py'), undefined, NOISE);
    assert.match(m.nulls[0]?.description ?? '', /renamed local \(total -> total_qmztbw\)/);
    assert.ok(m.candidates.length >= 4);
    for (const c of m.candidates) {
      const out = applyEdits(PY, c.edits);
      for (const bit of ['# kvorlixa', 'pass', '()'])
        assert.ok(out.includes(bit), `${c.description}: ${bit} in\n${out}`);
      assert.ok(!holdsName(out, 'total'), `${c.description}: total left in\n${out}`);
    }
  });
  it('a mutant whose own text names the renamed local, or that replaces a range an insertion falls in, cannot carry them', () => {
    const mk = (edits: { start: number; end: number; text: string }[]): Mutant => ({
      id: 'f#m',
      symbol: 'f',
      path: 'a.ts',
      kind: 'behavioural',
      category: 'return',
      line: 1,
      description: 'm',
      edits,
    });
    // text: "{ const x = 1; return x + 2; }"
    const noise: NullPart[] = [
      { label: 'a comment', edits: [{ start: 1, end: 1, text: ' /* w */' }] },
      {
        label: 'a renamed local (x -> x_s)',
        edits: [
          { start: 8, end: 9, text: 'x_s' },
          { start: 22, end: 23, text: 'x_s' },
        ],
        renames: 'x',
      },
    ];
    const text = '{ const x = 1; return x + 2; }';
    // The return value wrapped: the rename goes into the wrapped text (its last copy).
    const wrapped = camouflage(mk([{ start: 22, end: 27, text: 'alt(x + 2)' }]), noise, text);
    assert.ok(wrapped);
    assert.equal(applyEdits(text, wrapped.edits), '{ /* w */ const x_s = 1; return alt(x_s + 2); }');
    // A text naming x apart from the range it replaces: the rename would miss it.
    assert.equal(camouflage(mk([{ start: 22, end: 27, text: 'x * 2' }]), noise, text), null);
    assert.equal(camouflage(mk([{ start: 22, end: 27, text: 'f(x, x + 2)' }]), noise, text), null);
    // A property named x is another thing.
    assert.ok(camouflage(mk([{ start: 22, end: 27, text: 'o.x' }]), noise, text));
    // The statement deleted: the rename edit inside it goes with it, the rest stays.
    const del = camouflage(mk([{ start: 15, end: 28, text: ';' }]), noise, text);
    assert.ok(del);
    assert.equal(applyEdits(text, del.edits), '{ /* w */ const x_s = 1; ; }');
    // An insertion inside a range the mutant replaces cannot go anywhere.
    assert.equal(camouflage(mk([{ start: 0, end: 5, text: '{ let' }]), noise, text), null);
    // No noise: the mutant as it is.
    const plain = mk([{ start: 24, end: 25, text: '-' }]);
    assert.equal(camouflage(plain, [], text), plain);
  });
  it('property: the words come from the key alone; another key gives other words', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (k1, k2, sym) => {
        fc.pre(k1 !== k2);
        const a = noiseFor(k1, sym);
        assert.deepEqual(noiseFor(k1, sym), a);
        assert.match(a.word, /^[a-z]{8}$/);
        assert.match(a.suffix, /^[a-z]{6}$/);
        const b = noiseFor(k2, sym);
        assert.ok(a.word !== b.word || a.suffix !== b.suffix, `${k1} and ${k2} gave the same words`);
      }),
    );
  });
});

describe("camouflage keeps each mutant's behaviour", () => {
  it('TS: a camouflaged mutant computes what the same mutant without the null changes computes, on every input tried', () => {
    const src = [
      'export function score(a: number, b: number): number {',
      '  const total = a * 2 + b;',
      '  let bonus = 0;',
      '  if (total > 10) bonus = total - 10;',
      '  return total > 100 ? 100 : total + bonus;',
      '}',
      '',
    ].join('\n');
    const m = mutateTs(src, span('src/a.ts::score', 1, 6), undefined, NOISE);
    assert.match(m.nulls[0]?.description ?? '', /renamed local \(total -> total_qmztbw\)/);
    const load = (code: string): ((a: number, b: number) => unknown) => {
      const js = ts.transpileModule(code, {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const mod = { exports: {} as Record<string, unknown> };
      (runInThisContext(`(function (module, exports) { ${js}\n})`) as (x: typeof mod, e: typeof mod.exports) => void)(
        mod,
        mod.exports,
      );
      return mod.exports.score as (a: number, b: number) => unknown;
    };
    const outcome = (f: (a: number, b: number) => unknown, a: number, b: number): unknown => {
      try {
        return f(a, b);
      } catch (err) {
        return `throws ${(err as Error).name}`;
      }
    };
    // The null changes taken out again by hand: what is left is the mutant's own change.
    const denoise = (code: string): string =>
      code
        .replace(/void 0;\s*/g, '')
        .replace(/\/\* kvorlixa \*\/;?\s*/g, '')
        .replace(/total_qmztbw/g, 'total');
    assert.ok(m.candidates.length >= 6, m.candidates.map((c) => c.description).join('; '));
    const inputs = [
      [0, 0],
      [3, 1],
      [5, 2],
      [20, 7],
      [60, 1],
      [-4, 3],
    ] as const;
    for (const c of m.candidates) {
      const camo = applyEdits(src, c.edits);
      assert.ok(
        camo.includes('total_qmztbw') && camo.includes('/* kvorlixa */'),
        `${c.description}: carries the null changes\n${camo}`,
      );
      const own = denoise(camo);
      assert.notEqual(own, src, `${c.description} changes something of its own`);
      for (const [a, b] of inputs)
        assert.deepEqual(
          outcome(load(camo), a, b),
          outcome(load(own), a, b),
          `${c.description} on (${a}, ${b})\n${camo}`,
        );
    }
  });
});

describe('regular expression literals: a pattern-only change has mutants of its own', () => {
  it('drops an anchor, swaps the first quantifier, flips the first class escape; never inside a class or an escape', () => {
    const got = (r: string): string[] => regexMutants(r).map(([what, to]) => `${what} => ${to}`);
    assert.deepEqual(got(String.raw`/^(?<v>-?\d*\.?\d+) *(?<u>ms|s)?$/i`), [
      String.raw`regex: ^ anchor dropped => /(?<v>-?\d*\.?\d+) *(?<u>ms|s)?$/i`,
      String.raw`regex: $ anchor dropped => /^(?<v>-?\d*\.?\d+) *(?<u>ms|s)?/i`,
      String.raw`regex: first * made + => /^(?<v>-?\d+\.?\d+) *(?<u>ms|s)?$/i`,
      String.raw`regex: first \d made \D => /^(?<v>-?\D*\.?\d+) *(?<u>ms|s)?$/i`,
    ]);
    // In a class, `\d`, `*` and `^` are not what they are outside it; an escaped `$` is no anchor.
    assert.deepEqual(got(String.raw`/[\d*^]+x/`), [String.raw`regex: first + made * => /[\d*^]*x/`]);
    assert.deepEqual(got(String.raw`/a\$/`), []);
    assert.deepEqual(got(String.raw`/a\\$/`), [String.raw`regex: $ anchor dropped => /a\\/`]);
    // A group's `(?` is no quantifier; a pattern left empty is no mutant.
    assert.deepEqual(got('/(?:x)+/g'), ['regex: first + made * => /(?:x)*/g']);
    assert.deepEqual(got('/^$/'), ['regex: ^ anchor dropped => /$/', 'regex: $ anchor dropped => /^/']);
    assert.deepEqual(got('/^/'), []);
  });
  it('with the characters the patch changed, only there: an alternative added to a pattern gets no mutant on what it had', () => {
    const got = (r: string, within: readonly [number, number]): string[] =>
      regexMutants(r, [within]).map(([what]) => what);
    const lit = String.raw`/^(?<v>-?\d*\.?\d+) *(?<u>ms|s)?$/i`;
    // "simplify regex": (?:\d+)? became \d*.
    const at = lit.indexOf(String.raw`\d*`);
    assert.deepEqual(got(lit, [at, at + 3]), ['regex: first * made +', String.raw`regex: first \d made \D`]);
    // "add months": only the alternation grew; none of these kinds sits there.
    assert.deepEqual(got(lit, [lit.indexOf('ms|'), lit.indexOf('ms|') + 3]), []);
    // The anchors only where the patch changed them.
    assert.deepEqual(got('/^a$/', [1, 2]), ['regex: ^ anchor dropped']);
    assert.deepEqual(got('/^a$/', [3, 4]), ['regex: $ anchor dropped']);
  });
  it('property: every mutant compiles with the same flags and differs from the pattern', () => {
    const piece = fc.constantFrom(
      'a',
      'b',
      '\\d',
      '\\w',
      '\\s',
      '*',
      '+',
      '?',
      '^',
      '$',
      '.',
      '(?:a)',
      '[a*]',
      '[^b]',
      '\\$',
      '\\*',
      '|',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('', 'i', 'g', 'u'),
        (pieces, flags) => {
          const pattern = pieces.join('');
          let ok = true;
          try {
            new RegExp(pattern, flags);
          } catch {
            ok = false;
          }
          fc.pre(ok);
          for (const [, to] of regexMutants(`/${pattern}/${flags}`)) {
            assert.ok(to.endsWith(`/${flags}`) && to !== `/${pattern}/${flags}`, to);
            const body = to.slice(1, to.length - flags.length - 1);
            assert.doesNotThrow(() => new RegExp(body, flags), to);
          }
        },
      ),
    );
  });
  it('a symbol whose change is a pattern alone gets them as its behavioural candidates', () => {
    const src = 'export function num(s: string): boolean {\n  return /^-?\\d+$/.test(s);\n}\n';
    const m = mutateTs(src, span('src/a.ts::num', 1, 3), undefined, NOISE);
    const regex = m.candidates.filter((c) => c.description.includes('regex:'));
    assert.deepEqual(
      regex.map((c) => c.description),
      [
        'line 2: regex: ^ anchor dropped',
        'line 2: regex: $ anchor dropped',
        'line 2: regex: first + made *',
        'line 2: regex: first \\d made \\D',
      ],
    );
    for (const c of regex) assert.ok(parsesTs(applyEdits(src, c.edits)), c.description);
  });
});

// Every registered language and test runner goes through the same cases: a plug-in without a case here does not compile.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SOURCE_LANGUAGES, type SourceLanguage } from '../../src/core/languages.js';
import { CREDIT_LANGUAGES, checkSymbolChange, mutantsOf, topLevelNames } from '../../src/credit/lang/index.js';
import { applyEdits, noiseFor, type SymbolSpan } from '../../src/credit/mutants/mutant.js';
import { draftSymbols } from '../../src/credit/plan/symbols.js';
import { parseJunitXml } from '../../src/runner/junit.js';
import { compareFile, finishComparison, newComparison } from '../../src/symbols/compare.js';
import { SYMBOL_EXTRACTORS } from '../../src/symbols/extractors.js';
import type { FileSymbols } from '../../src/symbols/model.js';
import type { Changed } from '../../src/symbols/schema.js';
import {
  TEST_RUNNERS,
  cheapCommand,
  detectRunner,
  narrowByName,
  narrowCommand,
  type NamedTest,
  type RunnerKind,
} from '../../src/test-runners/index.js';
import { RUNNER_KINDS } from '../../src/test-runners/runner.js';

/** Per runner: commands that run it, a target to narrow to, a test to name, and a report it writes with the ids it reads. */
const RUNNER_CASES = {
  'node-test': {
    commands: [
      ['node', '--test', '--test-reporter=junit', '--test-reporter-destination=junit.xml', 'test/'],
      ['/usr/bin/node', '--import', 'tsx', '--test', 'test/a.test.ts'],
    ],
    target: 'test/a.test.js',
    test: { suite: 'area', name: 'multiplies' },
    report: {
      xml: '<testsuites name="node:test"><testsuite name="area"><testcase name="multiplies" classname="test" file="test/a.test.js" time="0.1"/></testsuite></testsuites>',
      ids: ['test/a.test.js::area::multiplies'],
    },
  },
  vitest: {
    commands: [
      ['vitest', 'run', '--reporter=junit', '--outputFile.junit=junit.xml'],
      ['npx', 'vitest', 'run'],
    ],
    target: 'src/a.test.ts',
    test: { suite: 'area', name: 'multiplies' },
    report: {
      xml: '<testsuites name="vitest tests"><testsuite name="src/a.test.ts"><testcase classname="src/a.test.ts" name="area &gt; multiplies" time="0.1"/></testsuite></testsuites>',
      ids: ['src/a.test.ts::area::multiplies'],
    },
  },
  jest: {
    commands: [
      ['jest', '--ci', '--json', '--outputFile=jest.json'],
      ['npx', 'jest', '--coverage'],
    ],
    target: 'test/a.test.js',
    test: { suite: 'area', name: 'multiplies' },
    report: {
      xml: '<testsuites name="jest tests"><testsuite name="area"><testcase classname="area multiplies" name="area multiplies" time="0.1"/></testsuite></testsuites>',
      ids: ['area::area multiplies'],
    },
  },
  pytest: {
    commands: [
      ['pytest', '-q', '--junitxml=junit.xml'],
      ['python3', '-m', 'pytest', 'tests'],
    ],
    target: 'tests/test_a.py::test_area',
    test: { suite: 'tests.test_a', name: 'test_area' },
    report: {
      xml: '<testsuites><testsuite name="pytest"><testcase classname="tests.test_a" name="test_area" file="tests/test_a.py" time="0.1"/></testsuite></testsuites>',
      ids: ['tests/test_a.py::tests.test_a::test_area'],
    },
  },
  unknown: {
    commands: [
      ['make', 'test'],
      ['go', 'test', './...'],
    ],
    target: 'pkg',
    test: { suite: 'Calc', name: 'area' },
    report: {
      xml: '<testsuite name="calc" tests="1"><testcase classname="Calc" name="area" time="1"/></testsuite>',
      ids: ['Calc::area'],
    },
  },
} as const satisfies Record<
  RunnerKind,
  {
    commands: readonly (readonly string[])[];
    target: string;
    test: NamedTest;
    report: { xml: string; ids: readonly string[] };
  }
>;

describe('every test runner adapter', () => {
  for (const kind of RUNNER_KINDS) {
    const c = RUNNER_CASES[kind];
    const runner = TEST_RUNNERS[kind];
    describe(kind, () => {
      it('matches its own commands and no other runner does', () => {
        for (const command of c.commands) {
          assert.equal(detectRunner(command), kind, command.join(' '));
          for (const other of RUNNER_KINDS)
            if (other !== kind)
              assert.equal(TEST_RUNNERS[other].matches(command), false, `${other}: ${command.join(' ')}`);
        }
      });
      it('narrows to a target (or says it cannot), keeping its program', () => {
        for (const command of c.commands) {
          const narrowed = narrowCommand(command, [c.target]);
          if (kind === 'unknown') assert.equal(narrowed, null);
          else {
            assert.ok(narrowed !== null, command.join(' '));
            assert.equal(narrowed[0], command[0]);
            assert.ok(narrowed.includes(c.target), narrowed.join(' '));
          }
          assert.equal(narrowCommand(command, ['-rf']), null, 'a target that looks like an option');
        }
      });
      it('narrows by name exactly where it takes a name', () => {
        const command = c.commands[0];
        const byName = narrowByName(command, [c.target], [c.test]);
        if (runner.byName === null) assert.equal(byName, null);
        else {
          assert.ok(byName !== null);
          assert.ok(
            byName.some((a) => a.includes(c.test.name)),
            byName.join(' '),
          );
          assert.ok(new RegExp(byName.find((a) => a.includes('^(?:')) ?? '').source.length > 0);
        }
      });
      it('its cheap judging command runs the same runner', () => {
        for (const command of c.commands) assert.equal(detectRunner(cheapCommand(command)), kind);
      });
      it('a clean run is no load failure', () => {
        for (const command of c.commands)
          assert.equal(runner.loadFailure({ status: 'ok', detail: 'exit status 0', exitCode: 0 }, command), null);
      });
      it('reads a sample of its report strictly', () => {
        const bytes = Buffer.from(c.report.xml, 'utf8');
        const r = parseJunitXml(bytes, 'junit.xml');
        assert.ok(r.ok, JSON.stringify(r));
        assert.deepEqual(
          r.value.map((x) => x.id),
          c.report.ids,
        );
        assert.equal(parseJunitXml(bytes.subarray(0, bytes.length - 5), 'junit.xml').ok, false, 'truncated');
      });
    });
  }
});

/** Per language: a tiny file, the patched version changing one function, that function, and its lines. */
interface Sample {
  readonly path: string;
  readonly base: string;
  readonly patched: string;
  /** The patched version with only a comment added to the function. */
  readonly commented: string;
  readonly symbol: string;
  readonly lines: readonly [number, number];
}

const SAMPLES = {
  typescript: {
    path: 'src/calc.ts',
    base: 'export function area(w: number, h: number): number {\n  return w * h;\n}\n\nexport function ident(x: number): number {\n  return x;\n}\n',
    patched:
      'export function area(w: number, h: number): number {\n  return w > 0 ? w * h : 0;\n}\n\nexport function ident(x: number): number {\n  return x;\n}\n',
    commented:
      'export function area(w: number, h: number): number {\n  // the area\n  return w * h;\n}\n\nexport function ident(x: number): number {\n  return x;\n}\n',
    symbol: 'area',
    lines: [1, 3],
  },
  javascript: {
    path: 'src/calc.js',
    base: 'export function area(w, h) {\n  return w * h;\n}\n\nexport function ident(x) {\n  return x;\n}\n',
    patched:
      'export function area(w, h) {\n  return w > 0 ? w * h : 0;\n}\n\nexport function ident(x) {\n  return x;\n}\n',
    commented:
      'export function area(w, h) {\n  // the area\n  return w * h;\n}\n\nexport function ident(x) {\n  return x;\n}\n',
    symbol: 'area',
    lines: [1, 3],
  },
  python: {
    path: 'calc.py',
    base: 'def area(w, h):\n    return w * h\n\n\ndef ident(x):\n    return x\n',
    patched: 'def area(w, h):\n    return w * h if w > 0 else 0\n\n\ndef ident(x):\n    return x\n',
    commented: 'def area(w, h):\n    # the area\n    return w * h\n\n\ndef ident(x):\n    return x\n',
    symbol: 'area',
    lines: [1, 2],
  },
  go: {
    path: 'calc.go',
    base: 'package calc\n\nfunc Area(w, h int) int {\n\treturn w * h\n}\n\nfunc Ident(x int) int {\n\treturn x\n}\n',
    patched:
      'package calc\n\nfunc Area(w, h int) int {\n\tif w > 0 {\n\t\treturn w * h\n\t}\n\treturn 0\n}\n\nfunc Ident(x int) int {\n\treturn x\n}\n',
    commented:
      'package calc\n\nfunc Area(w, h int) int {\n\t// the area\n\treturn w * h\n}\n\nfunc Ident(x int) int {\n\treturn x\n}\n',
    symbol: 'Area',
    lines: [3, 8],
  },
  java: {
    path: 'Calc.java',
    base: 'class Calc {\n  int area(int w, int h) {\n    return w * h;\n  }\n\n  int ident(int x) {\n    return x;\n  }\n}\n',
    patched:
      'class Calc {\n  int area(int w, int h) {\n    return w > 0 ? w * h : 0;\n  }\n\n  int ident(int x) {\n    return x;\n  }\n}\n',
    commented:
      'class Calc {\n  int area(int w, int h) {\n    // the area\n    return w * h;\n  }\n\n  int ident(int x) {\n    return x;\n  }\n}\n',
    symbol: 'Calc.area',
    lines: [2, 4],
  },
  rust: {
    path: 'src/calc.rs',
    base: 'pub fn area(w: i32, h: i32) -> i32 {\n    w * h\n}\n\npub fn ident(x: i32) -> i32 {\n    x\n}\n',
    patched:
      'pub fn area(w: i32, h: i32) -> i32 {\n    if w > 0 { w * h } else { 0 }\n}\n\npub fn ident(x: i32) -> i32 {\n    x\n}\n',
    commented:
      'pub fn area(w: i32, h: i32) -> i32 {\n    // the area\n    w * h\n}\n\npub fn ident(x: i32) -> i32 {\n    x\n}\n',
    symbol: 'area',
    lines: [1, 3],
  },
} as const satisfies Record<SourceLanguage, Sample>;

async function symbolsOf(language: SourceLanguage, path: string, text: string): Promise<FileSymbols> {
  const s = await SYMBOL_EXTRACTORS[language].extract(path, text, { docstringChanges: false });
  assert.ok(s.parsed, `${path} parses`);
  return s;
}

describe('every symbol extractor', () => {
  for (const language of SOURCE_LANGUAGES) {
    const s = SAMPLES[language];
    it(`${language}: finds the one function the patch changed, and no change in a comment`, async () => {
      await SYMBOL_EXTRACTORS[language].load();
      const changedBy = async (after: string): Promise<string[]> => {
        const state = newComparison();
        const a = await symbolsOf(language, s.path, s.base);
        const b = await symbolsOf(language, s.path, after);
        compareFile(state, { path: s.path, oldPath: null, language, oldSymbols: a, newSymbols: b, touched: [] });
        a.dispose?.();
        b.dispose?.();
        return finishComparison(state).changed;
      };
      assert.deepEqual(await changedBy(s.patched), [`${s.path}::${s.symbol}`]);
      assert.deepEqual(await changedBy(s.commented), []);
    });
  }
});

describe('every credit language', () => {
  for (const language of SOURCE_LANGUAGES) {
    const s = SAMPLES[language];
    const entry = CREDIT_LANGUAGES[language];
    const id = `${s.path}::${s.symbol}`;
    const span: SymbolSpan = {
      symbol: id,
      path: s.path,
      startLine: s.lines[0],
      endLine: s.lines[1],
      changedLines: [s.lines],
    };
    it(`${language}: credits its symbols, or the credit says why not in its own words`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sealgate-contract-'));
      try {
        writeFileSync(join(dir, s.path.split('/').pop() as string), s.patched);
        const path = s.path.split('/').pop() as string;
        const changed: Changed = {
          base: '0'.repeat(40),
          patch_sha256: '1'.repeat(64),
          files: [{ path, old_path: null, status: 'added', class: 'production', language }],
          changed: [`${path}::${s.symbol}`],
          moved: [],
          deleted: [],
          typeOnly: [],
          uncreditable: [],
          locations: {
            [`${path}::${s.symbol}`]: {
              path,
              language,
              start_line: s.lines[0],
              end_line: s.lines[1],
              changed_lines: [[s.lines[0], s.lines[1]]],
            },
          },
        };
        const d = await draftSymbols(dir, changed, 4, 'seed-1');
        const plans = await d.judged;
        if (entry.credit) {
          assert.deepEqual([...d.unsupported], []);
          assert.equal(plans.length, 1);
          assert.ok((plans[0]?.mutants.length ?? 0) > 0, 'it has behavioural mutants');
        } else {
          assert.match(entry.reason, new RegExp(`\\b${language}\\b`));
          assert.deepEqual([...d.unsupported], [[`${path}::${s.symbol}`, entry.reason]]);
          assert.equal(plans.length, 0);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
    if (!entry.credit) continue;
    it(`${language}: its probe, trace, null and behavioural mutants of a tiny sample are valid programs`, async () => {
      const base = await symbolsOf(language, s.path, s.base);
      const patched = await symbolsOf(language, s.path, s.patched);
      const change = checkSymbolChange(
        language,
        s.patched,
        patched.symbols.get(s.symbol) ?? [],
        s.base,
        base.symbols.get(s.symbol) ?? null,
      );
      const m = await mutantsOf(language, s.patched, span, change, noiseFor('k'.repeat(64), id));
      assert.ok(m.candidates.length > 0);
      const all = [m.probe, ...m.nulls, ...m.candidates, { ...m.probe, id: `${id}#trace`, edits: m.trace }];
      const session = entry.validity({ repo: tmpdir(), gitRepo: tmpdir(), typeCheck: false });
      const check = session.checker(s.path, s.patched, all);
      session.start();
      try {
        for (const x of all) assert.equal(await check(x), null, `${x.id}: ${applyEdits(s.patched, x.edits)}`);
      } finally {
        session.close();
      }
      // Its revert puts the base version back, token for token.
      assert.ok(change.revert !== null);
      assert.equal(applyEdits(s.patched, change.revert), s.base);
    });
    it(`${language}: a comment is no change to its tokens, and its names are the file's own`, async () => {
      const base = await symbolsOf(language, s.path, s.base);
      const commented = await symbolsOf(language, s.path, s.commented);
      const change = checkSymbolChange(
        language,
        s.commented,
        commented.symbols.get(s.symbol) ?? [],
        s.base,
        base.symbols.get(s.symbol) ?? null,
      );
      assert.equal(change.revert, null);
      assert.match(change.noRevert ?? '', /only comments or layout changed/);
      const names = await topLevelNames(language, s.path, s.base);
      assert.ok(names?.has(s.symbol), JSON.stringify([...(names ?? [])]));
    });
  }
});

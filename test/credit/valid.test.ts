import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTsValidity, makeTsValidityWorker } from '../../src/credit/lang/typescript/type-check.js';
import {
  checkRunnerTypeChecks,
  stripJsonc,
  tsJestTranspilesOnly,
} from '../../src/credit/lang/typescript/runner-checks.js';
import { checkPyCompiles } from '../../src/credit/lang/python/compile.js';
import { checkRuntimeValidity } from '../../src/credit/oracle/judge.js';
import { compileErrorIn } from '../../src/credit/lang/index.js';
import { pickValidAsync } from '../../src/credit/mutants/valid.js';
import { runOracle } from '../../src/credit/oracle/oracle.js';
import type { Mutant } from '../../src/credit/mutants/mutant.js';
import { testBox } from '../helpers/sandbox.js';
import { planSymbols } from '../../src/credit/plan/symbols.js';
import { makeRepo } from '../helpers/git.js';
import type { Changed } from '../../src/symbols/schema.js';

function tree(files: Record<string, string>): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-valid-'));
  for (const [p, t] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), t);
  }
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

const GREET = 'export function greet(name: string, suffix: string): string {\n  return name + suffix;\n}\n';

test('a TS mutant that does not type-check is invalid; one that does is valid; old errors do not count', () => {
  const t = tree({ 'tsconfig.json': '{ "compilerOptions": { "strict": true } }', 'src/greet.ts': GREET });
  try {
    const check = makeTsValidity(t.dir);
    assert.match(
      check('src/greet.ts', GREET, GREET.replace('name + suffix', 'name - suffix')) ?? '',
      /does not type-check \(TS2\d{3}: /,
    );
    assert.equal(check('src/greet.ts', GREET, GREET.replace('name + suffix', 'suffix + name')), null);
    // An error the unmutated file already has (an unresolvable import) is not the mutant's.
    const withMissing = `import { x } from './nowhere.js';\n${GREET}export const y = x;\n`;
    assert.equal(check('src/greet.ts', withMissing, withMissing.replace('name + suffix', 'suffix + name')), null);
    // JS files are only parsed (elsewhere), never type-checked.
    assert.equal(check('src/a.js', 'export const a = 1 - 1;', 'export const a = "s" - 1;'), null);
  } finally {
    t.dispose();
  }
});

test('the type check in its worker thread answers as in this one, and where the worker cannot start, here', async () => {
  const t = tree({ 'tsconfig.json': '{ "compilerOptions": { "strict": true } }', 'src/greet.ts': GREET });
  const asks: [string, string, string][] = [
    ['src/greet.ts', GREET, GREET.replace('name + suffix', 'name - suffix')],
    ['src/greet.ts', GREET, GREET.replace('name + suffix', 'suffix + name')],
    ['src/greet.ts', GREET, GREET.replace('): string {', '): number {')],
    ['src/a.js', 'export const a = 1 - 1;', 'export const a = "s" - 1;'],
  ];
  const here = makeTsValidity(t.dir);
  const want = asks.map(([p, o, m]) => here(p, o, m));
  assert.ok(want[0] !== null && want[1] === null && want[2] !== null, JSON.stringify(want));
  const worker = makeTsValidityWorker(t.dir);
  const broken = makeTsValidityWorker(t.dir, undefined, new URL('file:///nonexistent/sealgate-valid-worker.cjs'));
  // Ticks of this thread's event loop while a check is answered: the worker's first check
  // (it builds the program) leaves the loop turning; the fallback here blocks it.
  const ticking = async <T>(p: () => Promise<T>): Promise<{ value: T; ticks: number }> => {
    let ticks = 0;
    const iv = setInterval(() => ticks++, 5);
    try {
      return { value: await p(), ticks };
    } finally {
      clearInterval(iv);
    }
  };
  try {
    // Asked all at once: every answer comes back to its own question.
    const inWorker = await ticking(() => Promise.all(asks.map(([p, o, m]) => worker.check(p, o, m))));
    assert.deepEqual(inWorker.value, want);
    assert.ok(inWorker.ticks > 0, 'the worker answered off this thread');
    const here2 = await ticking(() => Promise.all(asks.map(([p, o, m]) => broken.check(p, o, m))));
    assert.deepEqual(here2.value, want);
    assert.equal(here2.ticks, 0, 'without a worker the checks ran in this thread');
  } finally {
    worker.close();
    broken.close();
    t.dispose();
  }
});

test('a type check over its time stops the worker: that check and every later one has no opinion, and it says so', async () => {
  const t = tree({ 'tsconfig.json': '{ "compilerOptions": { "strict": true } }', 'src/greet.ts': GREET });
  // 1 ms: the first check (it builds the program) cannot answer in time.
  const v = makeTsValidityWorker(t.dir, undefined, undefined, 1);
  try {
    assert.equal(v.stalled, null);
    assert.equal(await v.check('src/greet.ts', GREET, GREET.replace('name + suffix', 'name - suffix')), null);
    assert.match(v.stalled ?? '', /took over 1 ms, so the remaining mutants were not type-checked/);
    assert.equal(await v.check('src/greet.ts', GREET, GREET.replace('): string {', '): number {')), null);
  } finally {
    v.close();
    t.dispose();
  }
});

test('pickValidAsync: each invalid mutant is replaced by the next candidate, the discards say why, one check at a time', async () => {
  const ms = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
  let open = 0;
  const asked: string[] = [];
  const r = await pickValidAsync(ms, 3, async (m) => {
    open++;
    assert.equal(open, 1);
    asked.push(m.id);
    await new Promise((w) => setTimeout(w, 1));
    open--;
    return m.id === 'b' || m.id === 'd' ? `bad ${m.id}` : null;
  });
  assert.deepEqual(
    r.picked.map((m) => m.id),
    ['a', 'c', 'e'],
  );
  assert.deepEqual(r.discarded, [
    { mutant: 'b', reason: 'bad b' },
    { mutant: 'd', reason: 'bad d' },
  ]);
  // The budget filled, nothing more is checked.
  const two = await pickValidAsync(ms, 2, async (m) => (asked.push(`2:${m.id}`), m.id === 'b' ? 'bad b' : null));
  assert.deepEqual(
    two.picked.map((m) => m.id),
    ['a', 'c'],
  );
  assert.deepEqual(
    asked.filter((x) => x.startsWith('2:')),
    ['2:a', '2:b', '2:c'],
  );
});

test('the type check reads no file outside the tree: a tsconfig extending one outside is not followed', () => {
  const outside = tree({ 'base.json': '{ "compilerOptions": { "noUnusedLocals": true } }' });
  const inside = (ext: string) =>
    tree({
      'tsconfig.json': JSON.stringify({ extends: ext }),
      'base.json': '{ "compilerOptions": { "noUnusedLocals": true } }',
      'src/f.ts': '',
    });
  const original = 'export function f(a: number): number {\n  return a;\n}\n';
  const unused = 'export function f(a: number): number {\n  const b = a;\n  return a;\n}\n';
  const t = inside(join(outside.dir, 'base.json'));
  const u = inside('./base.json');
  try {
    // Read from inside the tree, the base's rule applies: the unused local is an error.
    assert.match(makeTsValidity(u.dir)('src/f.ts', original, unused) ?? '', /TS6133/);
    // The same base outside the tree is never read.
    assert.equal(makeTsValidity(t.dir)('src/f.ts', original, unused), null);
  } finally {
    t.dispose();
    u.dispose();
    outside.dispose();
  }
});

test('Python texts that parse but do not compile are reported; good ones pass', async () => {
  const pending = checkPyCompiles([
    { path: 'a.py', text: 'def f(x):\n    return x + 1\n' },
    { path: 'b.py', text: 'def f(x):\n    x + 1 = 3\n' },
    { path: 'c.py', text: 'def f(x):\n    return g(await x)\n' },
  ]);
  // The interpreter runs beside the event loop: a timer fires before its answer comes.
  let turned = false;
  setImmediate(() => (turned = true));
  const r = await pending;
  assert.equal(turned, true);
  assert.equal(r[0], null);
  assert.match(r[1] ?? '', /^SyntaxError: .*\(line 2\)/);
  assert.match(r[2] ?? '', /^SyntaxError: .*await/);
  // No interpreter: no opinion (the parse check still ran).
  assert.deepEqual(await checkPyCompiles([{ path: 'b.py', text: 'x + 1 = 3\n' }], '/nonexistent/python3'), [null]);
  // An answer of the wrong shape (another program in python's place) is no opinion either.
  assert.deepEqual(await checkPyCompiles([{ path: 'b.py', text: 'x + 1 = 3\n' }], '/bin/true'), [null]);
});

test('planSymbols discards TS mutants that do not type-check, fills the budget from the rest, and says so', async () => {
  const text =
    'export function label(name: string, n: number): string {\n  const s = name + String(n);\n  return s.length > 3 ? s : name;\n}\n';
  const repo = makeRepo({
    'tsconfig.json':
      '{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler" } }',
    'src/label.ts': text,
  });
  try {
    symlinkSync(join(process.cwd(), 'node_modules'), join(repo.dir, 'node_modules'), 'dir');
    const path = 'src/label.ts';
    const changed: Changed = {
      base: '0'.repeat(40),
      patch_sha256: '1'.repeat(64),
      files: [{ path, old_path: null, status: 'added', class: 'production', language: 'typescript' }],
      changed: [`${path}::label`],
      moved: [],
      deleted: [],
      typeOnly: [],
      uncreditable: [],
      locations: {
        [`${path}::label`]: { path, language: 'typescript', start_line: 1, end_line: 4, changed_lines: [[1, 4]] },
      },
    };
    const { plans } = await planSymbols(repo.dir, changed, 100, 'seed-1', changed.base, repo.dir, true);
    const p = plans[0];
    assert.ok(p);
    const discarded = p.discarded ?? [];
    // `name + String(n)` -> `name - String(n)`: strings cannot be subtracted.
    assert.ok(
      discarded.some((d) => /arithmetic@2:.*\+ -> -/.test(d.mutant) && /TS2362|TS2363/.test(d.reason)),
      JSON.stringify(discarded),
    );
    assert.ok(p.mutants.every((m) => !discarded.some((d) => d.mutant === m.id)));
    assert.equal(p.mutants.length + discarded.length, p.candidates);
    // With a budget of one, a discarded first pick is replaced by a valid one.
    const small = await planSymbols(repo.dir, changed, 1, 'seed-1', changed.base, repo.dir, true);
    // A runner that erases types (vitest, tsx) runs them: nothing is discarded for types.
    const erased = await planSymbols(repo.dir, changed, 100, 'seed-1');
    assert.deepEqual(erased.plans[0]?.discarded, []);
    assert.equal(small.plans[0]?.mutants.length, 1);
  } finally {
    repo.dispose();
  }
});

test("compileErrorIn: the runner's compile-error shapes, naming the mutated file", () => {
  assert.equal(
    compileErrorIn(
      '  ● Test suite failed to run\n\n    src/greet.ts:2:10 - error TS2362: The left-hand side ...\n',
      'src/greet.ts',
    ),
    'TS2362',
  );
  assert.equal(
    compileErrorIn('    src/other.ts:2:10 - error TS2362: ...\n', 'src/greet.ts'),
    null,
    "another file's error is not the mutant's",
  );
  assert.equal(
    compileErrorIn('E     File "/sealgate/work/src/calc.py", line 2\nE   SyntaxError: invalid syntax\n', 'src/calc.py'),
    'SyntaxError',
  );
  assert.equal(compileErrorIn('E   ZeroDivisionError in src/calc.py\n', 'src/calc.py'), null);
});

test('checkRuntimeValidity: a load failure of a file that does not compile is a crash, never a kill; a reported failure stays a kill', () => {
  const seen = { status: 'ok' as const, detail: 'exit status 2', failed: ['t1'] };
  const out = 'E     File "/sealgate/work/src/calc.py", line 2\nE   SyntaxError: invalid syntax\n';
  assert.equal(checkRuntimeValidity(seen, new Set(), out, 'src/calc.py').status, 'crash');
  assert.deepEqual(checkRuntimeValidity(seen, new Set(), out, 'src/calc.py').failed, []);
  // The test itself failed (it is in the report as failed): its failure is the mutant's doing.
  assert.equal(checkRuntimeValidity(seen, new Set(['t1']), out, 'src/calc.py'), seen);
  assert.equal(checkRuntimeValidity(seen, new Set(), 'E   AssertionError\n', 'src/calc.py'), seen);
});

test(
  'the oracle: a Python mutant that does not compile (slipped past the static checks) is a crash, not a kill',
  { timeout: 300_000 },
  async () => {
    const text = 'def add(a, b):\n    return a + b\n';
    const repo = makeRepo({
      'src/calc.py': text,
      'tests/test_calc.py':
        'import sys, os\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))\nfrom calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n',
      '.gitignore': 'junit.xml\n',
    });
    try {
      const path = 'src/calc.py';
      const changed: Changed = {
        base: '0'.repeat(40),
        patch_sha256: '1'.repeat(64),
        files: [{ path, old_path: null, status: 'added', class: 'production', language: 'python' }],
        changed: [`${path}::add`],
        moved: [],
        deleted: [],
        typeOnly: [],
        uncreditable: [],
        locations: {
          [`${path}::add`]: { path, language: 'python', start_line: 1, end_line: 2, changed_lines: [[1, 2]] },
        },
      };
      const { plans } = await planSymbols(repo.dir, changed, 2, 'seed-1');
      const plan = plans[0];
      assert.ok(plan);
      const at = text.indexOf('a + b');
      const bad: Mutant = {
        id: `${path}::add#arithmetic@2:12:bad`,
        symbol: `${path}::add`,
        path,
        kind: 'behavioural',
        category: 'arithmetic',
        line: 2,
        description: 'a + b -> a +* b',
        edits: [{ start: at, end: at + 5, text: 'a +* b' }],
      };
      const command = ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junitxml=junit.xml', 'tests'];
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_TEST_CONTEXT') env[k] = v;
      const oracle = await runOracle([{ ...plan, mutants: [bad], nulls: [], revert: null }], {
        workTree: repo.dir,
        command,
        junit: ['junit.xml'],
        env: { ...env, PYTHONDONTWRITEBYTECODE: '1', PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' },
        sandbox: testBox(repo.dir),
        controlTimeoutMs: 120_000,
        baselineMs: 1000,
        workers: 1,
        seed: 'seed-1',
        eligible: new Set(['tests.test_calc::test_add']),
        filesOf: () => ['tests/test_calc.py'],
        ignore: new Set(),
        narrow: () => null,
        narrowTargets: () => null,
        cacheDir: null,
        cacheSalt: 'valid-test',
      });
      const probe = oracle.probes.get(`${path}::add`);
      assert.deepEqual(
        probe?.failed,
        ['tests.test_calc::test_add'],
        `the probe reaches the test: ${JSON.stringify(probe)}`,
      );
      const r = oracle.mutants.get(`${path}::add`)?.find((x) => x.mutant.id === bad.id);
      assert.equal(r?.status, 'crash', JSON.stringify(r));
      assert.match(r.detail, /does not compile or type-check under the test runner \(SyntaxError\)/);
      assert.deepEqual(r.failed, []);
    } finally {
      repo.dispose();
    }
  },
);

test('checkRunnerTypeChecks: tsc in the command or the npm test script, or jest with ts-jest; not vitest or tsx', () => {
  const files = (m: Record<string, string>) => (p: string) => m[p] ?? null;
  assert.equal(checkRunnerTypeChecks(['sh', '-c', 'x'], files({})), false);
  assert.equal(checkRunnerTypeChecks(['node_modules/.bin/tsc', '--noEmit'], files({})), true);
  assert.equal(
    checkRunnerTypeChecks(
      ['npm', 'test'],
      files({ 'package.json': '{"scripts":{"test":"tsc --noEmit && vitest run"}}' }),
    ),
    true,
  );
  assert.equal(
    checkRunnerTypeChecks(
      ['npx', 'jest', '--ci'],
      files({ 'jest.config.js': "module.exports = { preset: 'ts-jest' };" }),
    ),
    true,
  );
  assert.equal(
    checkRunnerTypeChecks(
      ['npx', 'jest', '--ci'],
      files({ 'jest.config.js': "module.exports = { transform: { '^.+\\.tsx?$': '@swc/jest' } };" }),
    ),
    false,
  );
  assert.equal(
    checkRunnerTypeChecks(
      ['node_modules/.bin/vitest', 'run'],
      files({ 'package.json': '{"devDependencies":{"ts-jest":"1"}}' }),
    ),
    false,
  );
  assert.equal(checkRunnerTypeChecks(['node', '--import', 'tsx', '--test', 'test/a.test.ts'], files({})), false);
});

describe('ts-jest that only transpiles (29.3 and later, tsconfig.json isolatedModules: true): no type check of the mutants', () => {
  const files = (m: Record<string, string>) => (p: string) => m[p] ?? null;
  const JEST = { 'jest.config.ts': "export default { preset: 'ts-jest', transform: { '^.+\\.ts$': 'ts-jest' } };" };
  const TSCONFIG =
    '{\n  // ts-jest reads this one\n  "compilerOptions": {\n    "strict": true, /* "isolatedModules": false */\n    "isolatedModules": true,\n  },\n  "include": ["src/*.ts", "http://x//y"],\n}\n';
  const deps = (version: string) =>
    files({ 'node_modules/ts-jest/package.json': JSON.stringify({ name: 'ts-jest', version }) });
  const jest = ['node_modules/.bin/jest', '--ci'];
  it('29.3.0 and 29.4.0 with isolatedModules true in tsconfig.json (comments, trailing commas): transpile only', () => {
    for (const v of ['29.3.0', '29.4.0'])
      assert.equal(checkRunnerTypeChecks(jest, files({ ...JEST, 'tsconfig.json': TSCONFIG }), deps(v)), false, v);
  });
  it('anything else keeps the type check', () => {
    const cases: [string, Record<string, string>, string | null, string[]?][] = [
      [
        'ts-jest 29.2.6 (tsconfig isolatedModules did not switch it yet)',
        { ...JEST, 'tsconfig.json': TSCONFIG },
        '29.2.6',
      ],
      ['ts-jest 30', { ...JEST, 'tsconfig.json': TSCONFIG }, '30.0.0'],
      ['no installed ts-jest to read', { ...JEST, 'tsconfig.json': TSCONFIG }, null],
      [
        'isolatedModules false',
        { ...JEST, 'tsconfig.json': '{"compilerOptions":{"isolatedModules":false}}' },
        '29.4.0',
      ],
      [
        'isolatedModules "true" (a string)',
        { ...JEST, 'tsconfig.json': '{"compilerOptions":{"isolatedModules":"true"}}' },
        '29.4.0',
      ],
      [
        'isolatedModules twice',
        { ...JEST, 'tsconfig.json': '{"compilerOptions":{"isolatedModules":false,"isolatedModules":true}}' },
        '29.4.0',
      ],
      [
        'isolatedModules only in a config it extends',
        {
          ...JEST,
          'tsconfig.json': '{"extends":"./base.json"}',
          'base.json': '{"compilerOptions":{"isolatedModules":true}}',
        },
        '29.4.0',
      ],
      ['no tsconfig.json', { ...JEST }, '29.4.0'],
      [
        'a tsconfig.json that does not parse',
        { ...JEST, 'tsconfig.json': '{"compilerOptions":{"isolatedModules":true}' },
        '29.4.0',
      ],
      [
        'an unterminated comment',
        { ...JEST, 'tsconfig.json': '{"compilerOptions":{"isolatedModules":true}} /*' },
        '29.4.0',
      ],
      [
        'the jest config names another tsconfig',
        {
          'jest.config.js':
            "module.exports = { transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] } };",
          'tsconfig.json': TSCONFIG,
        },
        '29.4.0',
      ],
      [
        'the jest config sets ts-jest isolatedModules itself',
        {
          'jest.config.js': "module.exports = { transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: false }] } };",
          'tsconfig.json': TSCONFIG,
        },
        '29.4.0',
      ],
      [
        'the jest config has projects',
        { 'jest.config.js': "module.exports = { preset: 'ts-jest', projects: ['a'] };", 'tsconfig.json': TSCONFIG },
        '29.4.0',
      ],
      [
        'the command names another config',
        { ...JEST, 'tsconfig.json': TSCONFIG },
        '29.4.0',
        ['jest', '--config=other.js'],
      ],
    ];
    for (const [why, tree, version, command] of cases) {
      const dep = version === null ? files({}) : deps(version);
      assert.equal(checkRunnerTypeChecks(command ?? jest, files(tree), dep), true, why);
      assert.equal(tsJestTranspilesOnly(Object.values(tree).join('\n'), command ?? jest, files(tree), dep), false, why);
    }
    // Without a reader of the installed dependencies, as before.
    assert.equal(checkRunnerTypeChecks(jest, files({ ...JEST, 'tsconfig.json': TSCONFIG })), true);
  });
  it('stripJsonc: plain JSON comes back as it was (property), comments and trailing commas go, strings stay whole', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v, null, 2) ?? 'null';
        assert.deepEqual(JSON.parse(stripJsonc(text) as string), JSON.parse(text));
      }),
    );
    assert.deepEqual(JSON.parse(stripJsonc('{"a": "x // y /* z */", // c\n "b": [1, 2,], /* d */ }') as string), {
      a: 'x // y /* z */',
      b: [1, 2],
    });
    assert.equal(stripJsonc('{"a": "unterminated'), null);
    assert.equal(stripJsonc('{"a": 1} /* open'), null);
    assert.equal(stripJsonc('{"a": "q\\"uote"}'), '{"a": "q\\"uote"}');
  });
});

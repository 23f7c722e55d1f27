import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePatch } from 'diff';
import fc from 'fast-check';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { applyHunks, namesMixedFile } from '../../src/policy/contents.js';
import {
  checkPolicySurface,
  iniTestSections,
  mixedSection,
  type SurfaceFile,
  type SurfacePolicy,
} from '../../src/policy/surface.js';

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const policy: SurfacePolicy = { policyFiles: DEFAULT_CONFIG.policyFiles, testCommand: ['npm', 'test'] };
const codes = (files: SurfaceFile[], p: SurfacePolicy = policy): string[] =>
  checkPolicySurface(files, p).map((f) => `${f.code} ${f.path}`);
const modified = (path: string, before: string, after: string): SurfaceFile => ({
  oldPath: path,
  newPath: path,
  contents: { oldBytes: enc(before), newBytes: enc(after) },
});

test('whole policy files: added, changed, deleted, renamed from or to, at the anchored paths', () => {
  const table: [SurfaceFile, boolean][] = [
    [{ oldPath: null, newPath: '.npmrc' }, true],
    [{ oldPath: 'sealgate.config.json', newPath: 'sealgate.config.json' }, true],
    [{ oldPath: 'vitest.config.ts', newPath: null }, true],
    [{ oldPath: 'jest.config.js', newPath: 'src/settings.js' }, true],
    [{ oldPath: 'src/settings.js', newPath: 'packages/a/vite.config.mjs' }, true],
    [{ oldPath: '.github/workflows/ci.yml', newPath: '.github/workflows/ci.yml' }, true],
    [{ oldPath: null, newPath: 'tsconfig.build.json' }, true],
    [{ oldPath: null, newPath: 'tests/conftest.py' }, true],
    [{ oldPath: null, newPath: '.mocharc.yml' }, true],
    [{ oldPath: null, newPath: 'pytest.ini' }, true],
    // anchored: .github only at the root, and names that merely contain a policy name are not policy
    [{ oldPath: null, newPath: 'docs/.github/x.yml' }, false],
    [{ oldPath: 'src/vitest.ts', newPath: 'src/vitest.ts' }, false],
    [{ oldPath: 'src/pricing.ts', newPath: 'src/pricing.ts' }, false],
  ];
  for (const [file, hit] of table) assert.equal(codes([file]).length > 0, hit, JSON.stringify(file));
  assert.match(
    checkPolicySurface([{ oldPath: 'jest.config.js', newPath: 'src/settings.js' }], policy)[0]?.detail ?? '',
    /renames jest\.config\.js/,
  );
});

test('policyFiles from the config replace the defaults; a test command that is a repository script is policy', () => {
  assert.deepEqual(
    codes([{ oldPath: null, newPath: '.npmrc' }], { policyFiles: ['ci/**'], testCommand: undefined }),
    [],
  );
  // the sealgate config stays policy even when a config leaves it out
  assert.equal(
    codes([{ oldPath: 'sealgate.config.json', newPath: 'sealgate.config.json' }], {
      policyFiles: [],
      testCommand: undefined,
    }).length,
    1,
  );
  // git rewrites files at checkout by a .gitattributes at any depth: policy under any policyFiles
  for (const path of ['.gitattributes', 'test/.gitattributes', 'src/deep/.gitattributes']) {
    assert.deepEqual(codes([{ oldPath: null, newPath: path }], { policyFiles: [], testCommand: undefined }), [
      `E_POLICY_CHANGED ${path}`,
    ]);
  }
  assert.equal(
    codes([{ oldPath: 'ci/run', newPath: 'ci/run' }], { policyFiles: ['ci/**'], testCommand: undefined }).length,
    1,
  );
  assert.equal(
    codes([{ oldPath: 'scripts/test.sh', newPath: 'scripts/test.sh' }], {
      policyFiles: [],
      testCommand: ['./scripts/test.sh'],
    }).length,
    1,
  );
  assert.equal(
    codes([{ oldPath: 'Makefile', newPath: 'Makefile' }], { policyFiles: [], testCommand: ['make', 'test'] }).length,
    1,
  );
  assert.equal(
    codes([{ oldPath: 'sub/Makefile', newPath: 'sub/Makefile' }], {
      policyFiles: [],
      testCommand: ['make', '-C', 'sub', 'test'],
    }).length,
    1,
  );
  assert.equal(
    codes([{ oldPath: 'Makefile', newPath: 'Makefile' }], { policyFiles: [], testCommand: ['npm', 'test'] }).length,
    0,
  );
});

test('package.json: the test scripts and runner keys are policy, dependencies are not', () => {
  const base =
    JSON.stringify(
      { name: 'x', scripts: { test: 'node --test', build: 'tsc' }, dependencies: { a: '1.0.0' } },
      null,
      2,
    ) + '\n';
  interface Pkg {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    jest?: unknown;
    mocha?: unknown;
    babel?: unknown;
  }
  const edit = (f: (p: Partial<Pkg> & Pkg) => void): string => {
    const p = JSON.parse(base) as Pkg;
    f(p);
    return JSON.stringify(p, null, 2) + '\n';
  };
  const check = (after: string): number => codes([modified('package.json', base, after)]).length;
  assert.equal(check(edit((p) => (p.dependencies.a = '2.0.0'))), 0, 'a dependency bump');
  assert.equal(check(edit((p) => (p.scripts.build = 'tsc -b'))), 0, 'a non-test script');
  assert.equal(check(edit((p) => (p.scripts.test = 'node -e 0'))), 1, 'scripts.test');
  assert.equal(check(edit((p) => (p.scripts.pretest = 'touch x'))), 1, 'scripts.pretest added');
  assert.equal(check(edit((p) => (p.scripts.posttest = 'true'))), 1, 'scripts.posttest');
  assert.equal(check(edit((p) => (p.jest = { testMatch: [] }))), 1, 'jest key');
  assert.equal(check(edit((p) => (p.mocha = { spec: 'none' }))), 1, 'mocha key');
  assert.equal(
    check(edit((p) => (p.babel = { plugins: ['./strip.cjs'] }))),
    1,
    'babel key (babel-jest transforms the tests with it)',
  );
  assert.equal(check(edit((p) => void Reflect.deleteProperty(p, 'scripts'))), 1, 'scripts removed');
  // a script the test script delegates to is policy too, and so is the one the configured command names
  const delegating =
    JSON.stringify({ scripts: { test: 'npm run unit && yarn lint', unit: 'node --test', lint: 'eslint .' } }) + '\n';
  const bumped = (k: string): string => {
    const p = JSON.parse(delegating) as { scripts: Record<string, string> };
    p.scripts[k] += ' x';
    return JSON.stringify(p) + '\n';
  };
  assert.equal(codes([modified('package.json', delegating, bumped('unit'))]).length, 1);
  assert.equal(codes([modified('package.json', delegating, bumped('lint'))]).length, 1);
  const checkCmd = JSON.stringify({ scripts: { check: 'node --test' } }) + '\n';
  assert.equal(
    codes([modified('package.json', checkCmd, checkCmd.replace('--test', '-e 0'))], {
      ...policy,
      testCommand: ['npm', 'run', 'check'],
    }).length,
    1,
  );
  // a nested workspace package.json counts too
  assert.equal(
    codes([
      modified(
        'packages/a/package.json',
        base,
        edit((p) => (p.scripts.test = 'true')),
      ),
    ]).length,
    1,
  );
});

test('package.json: duplicate keys, trailing garbage, a BOM, invalid UTF-8 on either side fail closed', () => {
  const good = '{"scripts":{"test":"node --test"}}\n';
  for (const bad of [
    '{"scripts":{"test":"a"},"scripts":{"test":"b"}}\n',
    '{"scripts":{}}x\n',
    '\uFEFF' + good,
    '{"scripts":',
    '[]\n',
  ]) {
    assert.equal(codes([modified('package.json', good, bad)]).length, 1, JSON.stringify(bad));
    assert.equal(codes([modified('package.json', bad, good)]).length, 1, JSON.stringify(bad));
  }
  assert.equal(
    codes([
      {
        oldPath: 'package.json',
        newPath: 'package.json',
        contents: { oldBytes: enc(good), newBytes: Uint8Array.from([0x7b, 0xff, 0x7d]) },
      },
    ]).length,
    1,
  );
  // contents that could not be read at all
  assert.equal(codes([{ oldPath: 'package.json', newPath: 'package.json' }]).length, 1);
  assert.equal(
    codes([{ oldPath: 'package.json', newPath: 'package.json', contents: { problem: 'no base' } }]).length,
    1,
  );
});

test('an added or deleted mixed file is policy only when it carries test settings', () => {
  assert.equal(
    codes([
      { oldPath: null, newPath: 'package.json', contents: { oldBytes: null, newBytes: enc('{"dependencies":{}}\n') } },
    ]).length,
    0,
  );
  assert.equal(
    codes([
      {
        oldPath: null,
        newPath: 'package.json',
        contents: { oldBytes: null, newBytes: enc('{"scripts":{"test":"x"}}\n') },
      },
    ]).length,
    1,
  );
  assert.equal(
    codes([
      {
        oldPath: 'pyproject.toml',
        newPath: null,
        contents: { oldBytes: enc('[tool.pytest.ini_options]\naddopts = "-q"\n'), newBytes: null },
      },
    ]).length,
    1,
  );
  assert.equal(
    codes([
      {
        oldPath: 'pyproject.toml',
        newPath: null,
        contents: { oldBytes: enc('[project]\nname = "x"\n'), newBytes: null },
      },
    ]).length,
    0,
  );
});

test('pyproject.toml: [tool.pytest] and [tool.tox] are policy; duplicates and bad TOML fail closed', () => {
  const base =
    '[project]\nname = "x"\ndependencies = ["a==1"]\n\n[tool.pytest.ini_options]\naddopts = "-q"\ntestpaths = ["tests"]\n';
  const check = (after: string): number => codes([modified('pyproject.toml', base, after)]).length;
  assert.equal(check(base.replace('a==1', 'a==2')), 0, 'dependency change');
  assert.equal(check(base.replace('"-q"', '"-q -p no:cacheprovider"')), 1, 'addopts');
  assert.equal(check(base.replace('["tests"]', '["nothing"]')), 1, 'testpaths');
  assert.equal(check(base + '[tool.tox]\nlegacy_tox_ini = "x"\n'), 1, 'tool.tox added');
  assert.equal(check(base + 'addopts = "-x"\n'), 1, 'duplicate key');
  assert.equal(check(base + '[tool.pytest.ini_options]\n'), 1, 'duplicate table');
  assert.equal(check(base + '[tool.pytest\n'), 1, 'bad TOML');
  // formatting that leaves the values equal is not a change
  assert.equal(check(base.replace('addopts = "-q"', "addopts = '-q'  # quiet")), 0);
});

test('setup.cfg: [tool:pytest], [pytest], [tox] sections are policy; ambiguous INI fails closed', () => {
  const base = '[metadata]\nname = x\n\n[options]\ninstall_requires =\n    a==1\n\n[tool:pytest]\naddopts = -q\n';
  const check = (after: string): number => codes([modified('setup.cfg', base, after)]).length;
  assert.equal(check(base.replace('a==1', 'a==2')), 0, 'dependency change');
  assert.equal(check(base.replace('-q', '-q -k nothing')), 1, 'addopts');
  assert.equal(check(base + 'python_files = nothing.py\n'), 1, 'key added');
  assert.equal(check(base + '\n[tool:pytest]\naddopts = -x\n'), 1, 'duplicate section');
  assert.equal(
    check(base.replace('[tool:pytest]', '[TOOL:PYTEST]')),
    0,
    'section names compare case-insensitively (same section)',
  );
  assert.equal(check(base.replace('name = x\n', 'name = x\n  [tool:pytest]\n')), 1, 'an indented header line');
  assert.equal(check('stray\n' + base), 1, 'text before the first section');
  assert.equal(check(base.replace('[options]', '[options')), 1, 'a malformed header');
  assert.deepEqual(iniTestSections('[pytest]\na = 1\n[other]\nb = 2\n[testenv:py]\nc = 3\n'), {
    pytest: 'a = 1',
    'testenv:py': 'c = 3',
  });
});

test('mixedSection ignores what is not a test section (property: metadata edits never count)', () => {
  fc.assert(
    // A "__proto__" key is refused by the strict JSON reader whatever section holds it (test/core/json.test.ts), so no dependency is named so here.
    fc.property(
      fc.string(),
      fc.string().filter((d) => d !== '__proto__'),
      (name, dep) => {
        const a = JSON.stringify({ name, dependencies: { [dep || 'x']: '1' }, scripts: { test: 't' } }) + '\n';
        const b = JSON.stringify({ name: name + 'z', dependencies: {}, scripts: { test: 't', build: dep } }) + '\n';
        assert.equal(mixedSection('package.json', enc(a), undefined), mixedSection('package.json', enc(b), undefined));
      },
    ),
  );
});

test('applyHunks: insertions, the start of the file, a missing final newline, and a hunk that does not match', () => {
  const old = 'a\nb\nc\nd\ne\n';
  const apply = (h: string, text = old): string =>
    applyHunks(text, (parsePatch(`--- a/f\n+++ b/f\n${h}`)[0] ?? { hunks: [] }).hunks);
  assert.equal(apply('@@ -2,0 +3,1 @@\n+X\n'), 'a\nb\nX\nc\nd\ne\n');
  assert.equal(apply('@@ -0,0 +1,1 @@\n+X\n'), 'X\na\nb\nc\nd\ne\n');
  assert.equal(apply('@@ -0,0 +1,2 @@\n+X\n+Y\n', ''), 'X\nY\n');
  assert.equal(apply('@@ -5 +5 @@\n-e\n+E\n\\ No newline at end of file\n'), 'a\nb\nc\nd\nE');
  assert.equal(apply('@@ -1,2 +1,1 @@\n-a\n b\n'), 'b\nc\nd\ne\n');
  assert.throws(() => apply('@@ -1,2 +1,1 @@\n-z\n b\n'), /does not match/);
  assert.throws(() => apply('@@ -9,1 +9,1 @@\n-z\n+y\n'), /outside the file|does not match/);
});

test('namesMixedFile looks only at diff --git lines', () => {
  assert.equal(namesMixedFile(enc('diff --git a/package.json b/package.json\n')), true);
  assert.equal(namesMixedFile(enc('diff --git a/x/pyproject.toml b/x/pyproject.toml\n')), true);
  assert.equal(namesMixedFile(enc('diff --git a/src/a.ts b/src/a.ts\n+ "package.json"\n')), false);
  assert.equal(namesMixedFile(enc('diff --git a/src/package.json.ts b/src/package.json.ts\n')), false);
});

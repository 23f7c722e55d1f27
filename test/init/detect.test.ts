import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  detectStack,
  findFixtureDirs,
  iniSection,
  readRepoScan,
  splitScript,
  type RepoScan,
} from '../../src/init/detect.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, tempDir, writeFiles } from '../helpers/git.js';

const scan = (over: Partial<RepoScan>): RepoScan => ({
  pkg: null,
  python: null,
  files: [],
  dirs: [],
  installed: [],
  ...over,
});
const pkg = (deps: string[], scripts: Record<string, string> = {}) => ({ name: 'x', deps, scripts });

test('detectStack: the runner from package.json dependencies and scripts, in a fixed order', () => {
  const cases: [string, RepoScan, string, RegExp][] = [
    [
      'vitest dependency',
      scan({ pkg: pkg(['vitest', 'jest']) }),
      'vitest',
      /vitest","run","--reporter=default","--reporter=junit","--outputFile\.junit=junit\.xml/,
    ],
    ['vitest in a script only', scan({ pkg: pkg([], { test: 'vitest --run' }) }), 'vitest', /vitest/],
    [
      'jest: its own JSON report',
      scan({ pkg: pkg(['jest']) }),
      'jest',
      /jest","--ci","--json","--outputFile=jest-results\.json/,
    ],
    ['mocha', scan({ pkg: pkg(['mocha']) }), 'mocha', /xunit/],
    [
      'node --test script, sealgate installed',
      scan({ pkg: pkg(['sealgate'], { test: 'node --test --test-reporter=tap test/' }) }),
      'node-test',
      /^\["node","--test","--test-reporter=spec","--test-reporter-destination=stdout","--test-reporter=\.\/\.sealgate\/node-test-reporter\.mjs","--test-reporter-destination=junit\.xml","test\/"\]$/,
    ],
    [
      'node:test TypeScript tests with tsx',
      scan({ pkg: pkg(['tsx', 'sealgate']), files: ['src/a.ts', 'test/a.test.ts'] }),
      'node-test',
      /"--import","tsx","--test",.*"test\/a\.test\.ts"\]$/,
    ],
    // nanoid: test/benchmark.js, test/prebuild.js and a demo beside test/*.test.js; Node 20's --test alone runs them all as tests.
    [
      'node:test beside scripts under test/: the named test files are listed',
      scan({
        pkg: pkg([]),
        files: [
          'index.js',
          'test/benchmark.js',
          'test/demo/index.js',
          'test/index.test.js',
          'test/pool-test.mjs',
          'test/test-bin.cjs',
          'test/util_test.js',
        ],
      }),
      'node-test',
      /junit\.xml","test\/index\.test\.js","test\/pool-test\.mjs","test\/test-bin\.cjs","test\/util_test\.js"\]$/,
    ],
    [
      'node:test with only named test files: node finds them itself',
      scan({ pkg: pkg([]), files: ['index.js', 'test/index.test.js', 'lib/a.test.js'] }),
      'node-test',
      /junit\.xml"\]$/,
    ],
    [
      'node:test with only unnamed files under test/: node finds them itself',
      scan({ pkg: pkg([]), files: ['index.js', 'test/index.js', 'test/util.js'] }),
      'node-test',
      /junit\.xml"\]$/,
    ],
    [
      'pytest src layout',
      scan({
        python: { pytest: true, pythonpath: null, testpaths: null, sources: ['pytest.ini [pytest]'] },
        files: ['src/pkg/__init__.py', 'tests/test_a.py'],
      }),
      'pytest',
      /"junit_family=xunit1"\]$/,
    ],
    [
      'pytest src layout already on pythonpath',
      scan({
        python: { pytest: true, pythonpath: ['src'], testpaths: null, sources: [] },
        files: ['src/pkg/__init__.py'],
      }),
      'pytest',
      /"junit_family=xunit1"\]$/,
    ],
    ['pytest flat layout', scan({ files: ['pkg/__init__.py', 'test_pkg.py'] }), 'pytest', /"junit_family=xunit1"\]$/],
    ['Go', scan({ files: ['go.mod', 'a.go'] }), 'go', /gotestsum/],
    ['Maven', scan({ files: ['pom.xml'] }), 'maven', /mvn/],
    ['Gradle', scan({ files: ['build.gradle.kts'] }), 'gradle', /gradlew/],
    ['Rust', scan({ files: ['Cargo.toml'] }), 'rust', /nextest/],
  ];
  for (const [what, s, stack, command] of cases) {
    const d = detectStack(s);
    assert.equal(d.stack, stack, what);
    assert.match(JSON.stringify(d.command), command, what);
  }
  // A src layout gets PYTHONPATH=src from the start (pytest's own pythonpath option is applied after pytest imports its dependencies, and would replace the project's setting); a flat layout gets nothing.
  for (const pythonpath of [null, ['src'], ['tests']]) {
    const d = detectStack(
      scan({
        python: { pytest: true, pythonpath, testpaths: null, sources: [] },
        files: ['src/pkg/__init__.py', 'src/mod.py'],
      }),
    );
    assert.deepEqual([d.env, d.srcPackages], [{ PYTHONPATH: 'src' }, ['mod', 'pkg']], JSON.stringify(pythonpath));
    assert.ok(!d.command?.some((w) => w.startsWith('pythonpath=')), "the project's pytest pythonpath is left as it is");
  }
  assert.deepEqual(detectStack(scan({ files: ['pkg/__init__.py', 'test_pkg.py'] })).env, {});
  assert.deepEqual(detectStack(scan({ pkg: pkg(['vitest']) })).env, {});
  const unknown = detectStack(scan({ files: ['README.md'] }));
  assert.deepEqual([unknown.stack, unknown.command], ['unknown', null]);
  // sealgate puts its reporter into every run's copy, so the command names a file on every case whether or not the project installs sealgate.
  const noSealgate = detectStack(scan({ pkg: pkg([], { test: 'node --test' }) }));
  assert.match(JSON.stringify(noSealgate.command), /--test-reporter=\.\/\.sealgate\/node-test-reporter\.mjs/);
  for (const stack of ['go', 'maven', 'gradle', 'rust']) {
    const d = detectStack(
      scan({
        files: [{ go: 'go.mod', maven: 'pom.xml', gradle: 'build.gradle', rust: 'Cargo.toml' }[stack] as string],
      }),
    );
    assert.match(d.notes.join('\n'), /supported today: changed symbols .*not supported: the mutation oracle/, stack);
  }
});

test('findFixtureDirs: fixture folders at any depth, data/ only under a test folder, nested ones covered by the outer', () => {
  assert.deepEqual(
    findFixtureDirs([
      'src',
      'test',
      'test/fixture',
      'test/fixture/deep',
      'tests/fixtures',
      'a/__fixtures__',
      'testdata',
      'test/data',
      'data',
      'src/data',
    ]).sort(),
    ['a/__fixtures__', 'test/data', 'test/fixture', 'testdata', 'tests/fixtures'],
  );
  assert.deepEqual(findFixtureDirs(['fixtures', 'fixtures/x/fixtures']), ['fixtures']);
});

test('splitScript: only shell-free scripts are reused', () => {
  assert.deepEqual(splitScript('node --test test/'), ['node', '--test', 'test/']);
  for (const s of [
    'node --test && echo',
    'node --test "a b"',
    'FOO=$BAR node --test',
    'node --test test/*.js',
    'node --test | tee x',
  ])
    assert.equal(splitScript(s), null, s);
});

test('iniSection: sections, continuation lines, comments', () => {
  const text =
    '[metadata]\nname = x\n\n[tool:pytest]\ntestpaths =\n    tests\n    more  # a comment\npythonpath = src\n[other]\npythonpath = no\n';
  assert.deepEqual(iniSection(text, 'tool:pytest'), { testpaths: 'tests more', pythonpath: 'src' });
  assert.equal(iniSection(text, 'pytest'), null);
});

test('readRepoScan: package.json and pyproject.toml are read strictly; node_modules and .git are not walked', () => {
  const t = tempDir('sealgate-scan-');
  try {
    writeFiles(t.dir, {
      'package.json': '{"name": "a", "devDependencies": {"vitest": "4"}}',
      'node_modules/x/test/fixtures/a.json': '{}',
      'test/fixtures/a.json': '{}',
      'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    });
    const s = readRepoScan(t.dir);
    assert.deepEqual(s.pkg?.deps, ['vitest']);
    assert.deepEqual(s.python?.pythonpath, ['src']);
    assert.deepEqual(findFixtureDirs(s.dirs), ['test/fixtures']);
    writeFiles(t.dir, { 'package.json': '{"name": "a", "name": "b"}' });
    assert.throws(() => readRepoScan(t.dir), /package\.json: not valid JSON: duplicate key/);
    writeFiles(t.dir, { 'package.json': '{}', 'pyproject.toml': '[tool\n' });
    assert.throws(() => readRepoScan(t.dir), /pyproject\.toml: not valid TOML/);
  } finally {
    t.dispose();
  }
});

test("readRepoScan: pytest 9's pytest.toml and .pytest.toml, and .pytest.ini, configure pytest; a broken pytest.toml is refused", () => {
  const t = tempDir('sealgate-scan-');
  try {
    writeFiles(t.dir, { 'pytest.toml': '[pytest]\ntestpaths = ["t"]\npythonpath = ["src"]\n' });
    let s = readRepoScan(t.dir);
    assert.deepEqual(
      [s.python?.pytest, s.python?.testpaths, s.python?.pythonpath, s.python?.sources],
      [true, ['t'], ['src'], ['pytest.toml [pytest]']],
    );
    rmSync(join(t.dir, 'pytest.toml'));
    writeFiles(t.dir, { '.pytest.toml': '[pytest]\naddopts = ["-q"]\n', '.pytest.ini': '[pytest]\ntestpaths = u\n' });
    s = readRepoScan(t.dir);
    assert.deepEqual(
      [s.python?.pytest, s.python?.testpaths, s.python?.sources],
      [true, ['u'], ['.pytest.toml [pytest]', '.pytest.ini [pytest]']],
    );
    writeFiles(t.dir, { 'pytest.toml': '[pytest\n' });
    assert.throws(() => readRepoScan(t.dir), /pytest\.toml: not valid TOML/);
  } finally {
    t.dispose();
  }
});

test('init: a suite that reports zero tests is a refusal naming the report it read, not a success', async () => {
  const r = makeRepo({
    'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    'src/pkg/__init__.py': 'X = 1\n',
    'tests/test_nothing.py': '# no tests yet\n',
  });
  try {
    const out = await runCli(['init', '--repo', r.dir], {
      cwd: r.dir,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp' },
    });
    assert.deepEqual([out.stdout.trim().split('\n').pop(), out.exit], ['E_INPUT_INVALID', 1], out.stderr);
    assert.match(out.stderr, /the suite ran no test \(the command exited 5; report: junit\.xml ok\)/);
    assert.equal(out.stderr.split('E_INPUT_INVALID').length, 2, 'the code is stated once');
  } finally {
    r.dispose();
  }
});

test('init: Go says what is supported today and does not pretend to prove the suite', async () => {
  const r = makeRepo({ 'go.mod': 'module example.com/x\n\ngo 1.22\n', 'x.go': 'package x\n' });
  try {
    const out = await runCli(['init', '--repo', r.dir], { cwd: r.dir });
    assert.equal(out.exit, 0, out.stderr);
    assert.match(out.stderr, /init: stack: go/);
    assert.match(out.stderr, /not supported: the mutation oracle, so `credit` cannot credit Go symbols/);
    assert.match(out.stderr, /the suite was not run/);
  } finally {
    r.dispose();
  }
});

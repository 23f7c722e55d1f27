import { NODE_TEST_REPORTER } from '../sandbox/run.js';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toml } from '../core/builtins.js';
import { inputInvalid } from '../core/errors.js';
import { JsonSyntaxError, parseStrictJson, type JsonValue } from '../core/json.js';

/**
 * What `sealgate init` learns from a repository: the test runner (package.json scripts and
 * devDependencies; pyproject.toml, setup.cfg, pytest.ini, tox.ini), the command that runs it
 * with a report sealgate can read and ids that name their file, and the fixture folders.
 * `readRepoScan` does the I/O; `detectStack` is pure.
 */

export type Stack =
  'vitest' | 'jest' | 'node-test' | 'mocha' | 'pytest' | 'go' | 'maven' | 'gradle' | 'rust' | 'unknown';

export interface PackageFacts {
  readonly name: string | null;
  readonly scripts: Readonly<Record<string, string>>;
  /** dependencies, devDependencies and optionalDependencies together. */
  readonly deps: readonly string[];
}

export interface PythonFacts {
  /** pytest named as a dependency or configured ([tool.pytest.ini_options], [pytest], [tool:pytest]). */
  readonly pytest: boolean;
  /** The pytest `pythonpath` ini setting where the project sets one. */
  readonly pythonpath: readonly string[] | null;
  /** The pytest `testpaths` setting where the project sets one. */
  readonly testpaths: readonly string[] | null;
  /** Which files said so, for the summary. */
  readonly sources: readonly string[];
}

export interface RepoScan {
  readonly pkg: PackageFacts | null;
  readonly python: PythonFacts | null;
  /** Repository-relative POSIX paths of the files found (node_modules, .git, virtualenvs and build output skipped). */
  readonly files: readonly string[];
  /** Folders found, same rules. */
  readonly dirs: readonly string[];
  /** node_modules entries present (package names), to tell which runner is installed. */
  readonly installed: readonly string[];
}

export interface Detection {
  readonly stack: Stack;
  /** How it was told (e.g. "package.json devDependencies: vitest"). */
  readonly evidence: string;
  readonly command: readonly string[] | null;
  /** Variables the command needs (the policy's `test.env`): PYTHONPATH=src for a Python src layout. */
  readonly env: Readonly<Record<string, string>>;
  readonly junit: readonly string[];
  readonly fixtures: readonly string[];
  /** Python src layout: the top-level packages under src/ (the production code the tests should import). */
  readonly srcPackages: readonly string[];
  readonly notes: readonly string[];
  readonly warnings: readonly string[];
}

const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  'review',
  'dist',
  'build',
  'coverage',
  '.venv',
  'venv',
  '.tox',
  '.nox',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  'target',
  '.next',
  '.cache',
  'site-packages',
]);
const MAX_DEPTH = 6;
const MAX_ENTRIES = 20_000;

/** Fixture folder names, at any depth the scan reaches. */
const FIXTURE_NAMES = new Set(['fixture', 'fixtures', '__fixtures__', 'testdata', 'test-data']);
/** Data folders that count as fixtures only right under a test folder (test/data, tests/data). */
const TEST_DIRS = new Set(['test', 'tests', '__tests__', 'spec']);

const JUNIT = 'junit.xml';
const JEST_REPORT = 'jest-results.json';

// ---------------------------------------------------------------------------------------
// I/O

function readText(path: string): string | null {
  try {
    if (!lstatSync(path).isFile()) return null;
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function walk(root: string): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const visit = (rel: string, depth: number): void => {
    if (files.length + dirs.length > MAX_ENTRIES) return;
    let entries;
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (SKIP_DIRS.has(e.name) || e.name.endsWith('.egg-info')) continue;
        dirs.push(p);
        if (depth < MAX_DEPTH) visit(p, depth + 1);
      } else if (e.isFile()) files.push(p);
    }
  };
  visit('', 0);
  return { files, dirs };
}

function asStringRecord(v: JsonValue | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (v !== null && typeof v === 'object' && !Array.isArray(v))
    for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

function readPackage(repo: string): PackageFacts | null {
  const text = readText(join(repo, 'package.json'));
  if (text === null) return null;
  let v: JsonValue;
  try {
    v = parseStrictJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError || err instanceof RangeError)
      throw inputInvalid('package.json', `not valid JSON: ${err.message}`);
    throw err;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw inputInvalid('package.json', 'not a JSON object');
  const deps = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].flatMap((k) =>
    Object.keys(asStringRecord(v[k])),
  );
  return {
    name: typeof v['name'] === 'string' ? v['name'] : null,
    scripts: asStringRecord(v['scripts']),
    deps: [...new Set(deps)].sort(),
  };
}

type Toml = Record<string, unknown>;
const tomlTable = (t: unknown, ...keys: string[]): Toml | null => {
  let cur: unknown = t;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return null;
    cur = (cur as Toml)[k];
  }
  return cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Toml) : null;
};
const stringList = (v: unknown): string[] | null =>
  Array.isArray(v)
    ? v.filter((x): x is string => typeof x === 'string')
    : typeof v === 'string'
      ? v.split(/\s+/).filter(Boolean)
      : null;

/** An INI section's `key = value` lines (pytest.ini, tox.ini, setup.cfg), continuation lines joined. */
export function iniSection(text: string, section: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  let inside = false;
  let found = false;
  let last: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+[#;].*$/, '');
    const head = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (head) {
      inside = head[1]?.trim() === section;
      found ||= inside;
      last = null;
      continue;
    }
    if (!inside || /^\s*([#;]|$)/.test(line)) continue;
    if (/^\s/.test(line) && last !== null) {
      out[last] = `${out[last] ?? ''} ${line.trim()}`.trim();
      continue;
    }
    const kv = /^([A-Za-z0-9_.-]+)\s*[=:]\s*(.*)$/.exec(line);
    if (kv) {
      last = kv[1] as string;
      out[last] = (kv[2] ?? '').trim();
    }
  }
  return found ? out : null;
}

/** Dependency strings ("pytest>=7", "pytest[testing]") name pytest? */
const namesPytest = (xs: readonly string[]): boolean => xs.some((x) => /^\s*pytest(\s|$|[<>=!~;[(])/i.test(x));

function readPython(repo: string): PythonFacts | null {
  const sources: string[] = [];
  let pytest = false;
  let pythonpath: string[] | null = null;
  let testpaths: string[] | null = null;
  let any = false;
  const pyproject = readText(join(repo, 'pyproject.toml'));
  if (pyproject !== null) {
    any = true;
    let t: Toml;
    try {
      t = toml().parse(pyproject);
    } catch (err) {
      throw inputInvalid('pyproject.toml', `not valid TOML: ${(err as Error).message.split('\n')[0] ?? ''}`);
    }
    const ini = tomlTable(t, 'tool', 'pytest', 'ini_options');
    if (ini !== null) {
      pytest = true;
      sources.push('pyproject.toml [tool.pytest.ini_options]');
      pythonpath = stringList(ini['pythonpath']);
      testpaths = stringList(ini['testpaths']);
    }
    const groups = [
      ...Object.values(tomlTable(t, 'project', 'optional-dependencies') ?? {}),
      ...Object.values(tomlTable(t, 'dependency-groups') ?? {}),
      ...Object.values(tomlTable(t, 'tool', 'poetry', 'group') ?? {}).map((g) =>
        Object.keys(tomlTable(g, 'dependencies') ?? {}),
      ),
      Object.keys(tomlTable(t, 'tool', 'poetry', 'dev-dependencies') ?? {}),
    ].map((g) => stringList(g) ?? []);
    if (groups.some(namesPytest)) {
      pytest = true;
      sources.push('pyproject.toml dependencies: pytest');
    }
  }
  // pytest 9's own TOML files: a [pytest] table.
  for (const file of ['pytest.toml', '.pytest.toml']) {
    const text = readText(join(repo, file));
    if (text === null) continue;
    any = true;
    let t: Toml;
    try {
      t = toml().parse(text);
    } catch (err) {
      throw inputInvalid(file, `not valid TOML: ${(err as Error).message.split('\n')[0] ?? ''}`);
    }
    const table = tomlTable(t, 'pytest');
    if (table === null) continue;
    pytest = true;
    sources.push(`${file} [pytest]`);
    pythonpath = stringList(table['pythonpath']) ?? pythonpath;
    testpaths = stringList(table['testpaths']) ?? testpaths;
  }
  for (const [file, section] of [
    ['pytest.ini', 'pytest'],
    ['.pytest.ini', 'pytest'],
    ['tox.ini', 'pytest'],
    ['setup.cfg', 'tool:pytest'],
  ] as const) {
    const text = readText(join(repo, file));
    if (text === null) continue;
    any = true;
    const s = iniSection(text, section);
    if (s === null) continue;
    pytest = true;
    sources.push(`${file} [${section}]`);
    if (s['pythonpath'] !== undefined) pythonpath = s['pythonpath'].split(/\s+/).filter(Boolean);
    if (s['testpaths'] !== undefined) testpaths = s['testpaths'].split(/\s+/).filter(Boolean);
  }
  if (existsSync(join(repo, 'setup.py'))) any = true;
  for (const req of ['requirements-dev.txt', 'requirements-test.txt', 'test-requirements.txt', 'requirements.txt']) {
    const text = readText(join(repo, req));
    if (text !== null && namesPytest(text.split('\n'))) {
      any = true;
      pytest = true;
      sources.push(`${req}: pytest`);
    }
  }
  return any ? { pytest, pythonpath, testpaths, sources } : null;
}

function installedPackages(repo: string): string[] {
  const out: string[] = [];
  try {
    for (const e of readdirSync(join(repo, 'node_modules'))) {
      if (e.startsWith('@')) {
        try {
          for (const s of readdirSync(join(repo, 'node_modules', e))) out.push(`${e}/${s}`);
        } catch {
          /* not a folder */
        }
      } else if (!e.startsWith('.')) out.push(e);
    }
  } catch {
    /* no node_modules */
  }
  return out.sort();
}

export function readRepoScan(repo: string): RepoScan {
  const { files, dirs } = walk(repo);
  return { pkg: readPackage(repo), python: readPython(repo), files, dirs, installed: installedPackages(repo) };
}

// ---------------------------------------------------------------------------------------
// Pure detection

/** Fixture folders: named fixture(s), __fixtures__, testdata, test-data anywhere; data/ right under a test folder. Nested ones are covered by the outer. */
export function findFixtureDirs(dirs: readonly string[]): string[] {
  const hits = dirs.filter((d) => {
    const parts = d.split('/');
    const last = parts[parts.length - 1] as string;
    if (FIXTURE_NAMES.has(last)) return true;
    return last === 'data' && parts.length >= 2 && TEST_DIRS.has(parts[parts.length - 2] as string);
  });
  return hits.filter((d) => !hits.some((o) => o !== d && d.startsWith(`${o}/`)));
}

/** A shell-free script (`node --test test/`), split into words; null when it uses the shell (pipes, &&, quotes, variables). */
export function splitScript(script: string): string[] | null {
  if (/[|&;<>()$`'"\\*?[\]{}~]/.test(script) || script.includes('\n')) return null;
  const words = script.trim().split(/\s+/).filter(Boolean);
  return words.length > 0 ? words : null;
}

const has = (scan: RepoScan, dep: string): boolean =>
  (scan.pkg?.deps.includes(dep) ?? false) || scan.installed.includes(dep);
const scriptUses = (scan: RepoScan, word: RegExp): string | null => {
  for (const name of ['test', 'test:unit', 'unit', 'tests']) {
    const s = scan.pkg?.scripts[name];
    if (s !== undefined && word.test(s)) return name;
  }
  return null;
};

const JS_TEST = /(^|\/)([^/]+\.(test|spec)\.[cm]?[jt]sx?|test\/.+\.[cm]?[jt]s|tests\/.+\.[cm]?[jt]s)$/;

function nodeTestCommand(scan: RepoScan, notes: string[]): string[] {
  // The reporter that names files ships with sealgate, which puts it into every run's copy at this path.
  const reporter = `./${NODE_TEST_REPORTER}`;
  const reporters = [
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${reporter}`,
    `--test-reporter-destination=${JUNIT}`,
  ];
  const name = scriptUses(scan, /\bnode\b.*--test\b/);
  const words = name !== null ? splitScript(scan.pkg?.scripts[name] ?? '') : null;
  if (words !== null && words[0] === 'node' && words.includes('--test')) {
    const kept = words.filter(
      (w, i) =>
        !/^--test-reporter(-destination)?(=|$)/.test(w) && !/^--test-reporter(-destination)?$/.test(words[i - 1] ?? ''),
    );
    const at = kept.indexOf('--test') + 1;
    notes.push(`the command is package.json's "${name}" script with sealgate's reporters added`);
    return [...kept.slice(0, at), ...reporters, ...kept.slice(at)];
  }
  // Node 20's --test finds only .js/.cjs/.mjs files by itself: TypeScript tests are listed, with tsx to load them.
  const tsTests = scan.files.filter((f) => JS_TEST.test(f) && /\.[cm]?tsx?$/.test(f) && !f.includes('/fixture'));
  if (tsTests.length > 0 && has(scan, 'tsx')) {
    notes.push(
      `node:test on Node 20 does not find .ts files: the ${tsTests.length} TypeScript test file(s) found are listed; add new ones to test.command`,
    );
    return ['node', '--import', 'tsx', '--test', ...reporters, ...tsTests];
  }
  // Node 20's --test alone runs every .js file under a test/ folder too (benchmarks, build
  // scripts, a demo's bundle), which fail or hang as tests: where files named as tests exist
  // beside such files, only the named ones are listed.
  const stray = scan.files.filter((f) => NODE_IN_TEST.test(f) && !NODE_NAMED.test(f));
  const named = scan.files.filter((f) => NODE_NAMED.test(f));
  if (stray.length > 0 && named.length > 0) {
    notes.push(
      `node --test alone would also run ${stray.length} file(s) under test/ not named as tests (${stray.slice(0, 3).join(', ')}${stray.length > 3 ? ', ...' : ''}): the ${named.length} file(s) named as tests (*.test.js, *-test.js, *_test.js, test-*.js) are listed; add new ones to test.command`,
    );
    return ['node', '--test', ...reporters, ...named];
  }
  return ['node', '--test', ...reporters];
}

/** What Node 20's --test runs by its file name (`*.test.js`, `*-test.js`, `*_test.js`, `test-*.js`, `test.js`; .cjs and .mjs too). */
const NODE_NAMED = /(^|\/)([^/]*[._-]test|test-[^/]*|test)\.[cm]?js$/;
/** What it runs for being under a test/ folder, whatever its name. */
const NODE_IN_TEST = /(^|\/)test\/(?:[^/]+\/)*[^/]+\.[cm]?js$/;

/** Pick the stack and its command. Pure. */
export function detectStack(scan: RepoScan): Detection {
  const notes: string[] = [];
  const warnings: string[] = [];
  const fixtures = findFixtureDirs(scan.dirs).map((d) => `${d}/**`);
  const base = { fixtures, srcPackages: [] as string[], env: {} as Record<string, string>, notes, warnings };
  const bin = (name: string): string => `node_modules/.bin/${name}`;
  const dep = (name: string): string | null =>
    scan.pkg?.deps.includes(name) ? `package.json dependencies: ${name}` : null;
  if (scan.pkg !== null) {
    const vitest = dep('vitest') ?? (scriptUses(scan, /\bvitest\b/) !== null ? 'package.json scripts: vitest' : null);
    if (vitest !== null) {
      return {
        ...base,
        stack: 'vitest',
        evidence: vitest,
        command: [bin('vitest'), 'run', '--reporter=default', '--reporter=junit', `--outputFile.junit=${JUNIT}`],
        junit: [JUNIT],
      };
    }
    const jest = dep('jest') ?? (scriptUses(scan, /\bjest\b/) !== null ? 'package.json scripts: jest' : null);
    if (jest !== null) {
      notes.push(
        `jest writes its own JSON report (${JEST_REPORT}); sealgate reads it directly, so no jest-junit is needed`,
      );
      return {
        ...base,
        stack: 'jest',
        evidence: jest,
        command: [bin('jest'), '--ci', '--json', `--outputFile=${JEST_REPORT}`],
        junit: [JEST_REPORT],
      };
    }
    const mocha = dep('mocha') ?? (scriptUses(scan, /\bmocha\b/) !== null ? 'package.json scripts: mocha' : null);
    if (mocha !== null) {
      warnings.push(
        "mocha's xunit reporter names no test file: ids are suite::name, and two tests with one name in two files fold into one",
      );
      return {
        ...base,
        stack: 'mocha',
        evidence: mocha,
        command: [bin('mocha'), '--reporter', 'xunit', '--reporter-option', `output=${JUNIT}`],
        junit: [JUNIT],
      };
    }
    const nodeScript = scriptUses(scan, /\bnode\b.*--test\b/);
    const jsTests = scan.files.some((f) => JS_TEST.test(f));
    if (nodeScript !== null || jsTests) {
      const command = nodeTestCommand(scan, notes);
      return {
        ...base,
        stack: 'node-test',
        evidence:
          nodeScript !== null
            ? `package.json scripts.${nodeScript}: node --test`
            : 'test files and no other runner: node:test',
        command,
        junit: [JUNIT],
      };
    }
  }
  if (scan.python !== null || scan.files.some((f) => /(^|\/)(test_[^/]+|[^/]+_test)\.py$/.test(f))) {
    const py = scan.python;
    const srcPackages = [
      ...new Set(
        scan.files
          .filter((f) => /^src\/[^/]+\/__init__\.py$/.test(f) || /^src\/[^/]+\.py$/.test(f))
          .map((f) => (f.split('/')[1] as string).replace(/\.py$/, '')),
      ),
    ].sort();
    const command = [
      'python3',
      '-m',
      'pytest',
      '-p',
      'no:cacheprovider',
      `--junitxml=${JUNIT}`,
      '-o',
      'junit_family=xunit1',
    ];
    notes.push('JUnit family xunit1: its cases carry the test file (xunit2 drops it), so every id names its file');
    const env: Record<string, string> = {};
    if (srcPackages.length > 0) {
      // PYTHONPATH, not pytest's pythonpath option: the option takes effect after pytest has
      // imported its own dependencies and plugins, so a package one of them imports (iniconfig,
      // pluggy, a plugin's subject) would come from site-packages, not from src/.
      env['PYTHONPATH'] = 'src';
      notes.push(
        `src layout: test.env PYTHONPATH=src puts src/ on sys.path before site-packages when Python starts, so the tests (and pytest itself) import ${srcPackages.join(', ')} from src/, not an installed copy`,
      );
    }
    if (py?.pytest !== true)
      notes.push('no pytest configuration or dependency found; assuming pytest (it also runs unittest tests)');
    return {
      ...base,
      srcPackages,
      env,
      stack: 'pytest',
      evidence: py?.sources.join(', ') || 'Python test files',
      command,
      junit: [JUNIT],
    };
  }
  const unsupported = (stack: Stack, evidence: string, command: string[], junit: string[], how: string): Detection => {
    notes.push(
      `${evidence}: supported today: changed symbols (sealgate symbols), the seal, the sealed run and the gate with any command that writes JUnit XML (${how}); not supported: the mutation oracle, so \`credit\` cannot credit ${STACKS[stack].uncredited ?? ''} symbols and the gate ends in E_CREDIT_MISSING for them`,
    );
    return { ...base, stack, evidence, command, junit };
  };
  if (scan.files.includes('go.mod'))
    return unsupported(
      'go',
      'go.mod',
      ['gotestsum', `--junitfile=${JUNIT}`, '--', './...'],
      [JUNIT],
      'gotestsum --junitfile',
    );
  if (scan.files.includes('pom.xml'))
    return unsupported(
      'maven',
      'pom.xml',
      ['mvn', '-q', 'test'],
      [],
      'Surefire reports: list each target/surefire-reports/TEST-*.xml file in test.junit',
    );
  if (scan.files.includes('build.gradle') || scan.files.includes('build.gradle.kts'))
    return unsupported(
      'gradle',
      'build.gradle',
      ['./gradlew', 'test'],
      [],
      "Gradle's reports: list each build/test-results/test/TEST-*.xml file in test.junit",
    );
  if (scan.files.includes('Cargo.toml'))
    return unsupported(
      'rust',
      'Cargo.toml',
      ['cargo', 'nextest', 'run', '--profile', 'ci'],
      ['target/nextest/ci/junit.xml'],
      'cargo-nextest with a JUnit profile',
    );
  warnings.push('no test runner recognised: set test.command and test.junit by hand');
  return { ...base, stack: 'unknown', evidence: 'nothing recognised', command: null, junit: [] };
}

/** The starting sealgate.config.json for a detection. */
export function toDetectedConfig(d: Detection): Record<string, unknown> {
  return {
    fixtures: [...d.fixtures],
    clock: 'frozen',
    locale: 'C.UTF-8',
    test: {
      ...(d.command !== null ? { command: [...d.command] } : {}),
      junit: [...d.junit],
      timeoutSeconds: 600,
      ...(Object.keys(d.env).length > 0 ? { env: { ...d.env } } : {}),
    },
    credit: { mutantBudget: 8 },
  };
}

/** What `init` knows of a stack besides its command. */
export interface StackInfo {
  /** `init` can run its suite to prove the config (the others have no mutation oracle yet). */
  readonly provable: boolean;
  /** Its proof run tells where the src layout's packages were imported from (pytest's origin plugin). */
  readonly importOrigins: boolean;
  /** The name of its language, where the mutation oracle cannot credit its symbols. */
  readonly uncredited: string | null;
}

/** One entry per stack: a stack without one does not compile. */
export const STACKS = {
  vitest: { provable: true, importOrigins: false, uncredited: null },
  jest: { provable: true, importOrigins: false, uncredited: null },
  'node-test': { provable: true, importOrigins: false, uncredited: null },
  mocha: { provable: true, importOrigins: false, uncredited: null },
  pytest: { provable: true, importOrigins: true, uncredited: null },
  go: { provable: false, importOrigins: false, uncredited: 'Go' },
  maven: { provable: false, importOrigins: false, uncredited: 'Java' },
  gradle: { provable: false, importOrigins: false, uncredited: 'Java' },
  rust: { provable: false, importOrigins: false, uncredited: 'Rust' },
  unknown: { provable: false, importOrigins: false, uncredited: null },
} as const satisfies Record<Stack, StackInfo>;

/** Stacks whose suite `init` can run to prove the config. */
export const PROVABLE: ReadonlySet<Stack> = new Set((Object.keys(STACKS) as Stack[]).filter((k) => STACKS[k].provable));

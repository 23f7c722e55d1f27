import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { configuresRewriting, precompilePython } from '../../src/credit/lang/python/pycache.js';

const info = JSON.parse(
  spawnSync(
    'python3',
    [
      '-I',
      '-c',
      'import sys, json, _pytest.assertion.rewrite as r; print(json.dumps([sys.implementation.cache_tag, r.PYC_TAIL]))',
    ],
    { encoding: 'utf8' },
  ).stdout,
) as [string, string];
const [tag, pytestTail] = info;

/** Every path under `dir` (links not followed), relative. */
function listAll(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const r = rel === '' ? e.name : `${rel}/${e.name}`;
    out.push(r);
    if (e.isDirectory()) out.push(...listAll(dir, r));
  }
  return out.sort();
}

test('byte code: hash-checked, for regular files only, never through a link, none for the skipped files', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sealgate-pyc-'));
  const outside = mkdtempSync(join(tmpdir(), 'sealgate-pyc-out-'));
  try {
    writeFileSync(join(outside, 'secret.py'), 'TOKEN = "s3cret"\n');
    mkdirSync(join(outside, 'pkg'));
    writeFileSync(join(outside, 'pkg', 'mod.py'), 'X = 1\n');
    writeFileSync(join(root, 'calc.py'), 'def add(a, b):\n    return a + b\n');
    writeFileSync(join(root, 'helper.py'), 'def two():\n    return 2\n');
    writeFileSync(join(root, 'broken.py'), 'def (:\n');
    symlinkSync(join(outside, 'secret.py'), join(root, 'link.py'));
    symlinkSync(join(outside, 'pkg'), join(root, 'pkg'));
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'inner.py'), 'Y = 2\n');
    // A __pycache__ that is a link out of the tree: never written through.
    mkdirSync(join(root, 'deep'));
    writeFileSync(join(root, 'deep', 'd.py'), 'Z = 3\n');
    symlinkSync(outside, join(root, 'deep', '__pycache__'));
    const before = listAll(outside);

    const r = await precompilePython(root, new Set(['calc.py']), { cwd: null });
    assert.deepEqual(r, { files: 2, rewritten: 0, skipped: null });
    assert.deepEqual(listAll(outside), before, 'nothing was written outside the tree');
    assert.deepEqual(readdirSync(join(root, '__pycache__')).sort(), [`helper.${tag}.pyc`]);
    assert.deepEqual(readdirSync(join(root, 'sub', '__pycache__')), [`inner.${tag}.pyc`]);
    // Flags word (bytes 4-7): 0b11, hash-based and checked against the source at every import.
    assert.equal(readFileSync(join(root, '__pycache__', `helper.${tag}.pyc`)).readUInt32LE(4), 3);
    // The interpreter takes it, and a changed source is compiled again rather than the stale code run.
    const run = (code: string): string =>
      spawnSync(
        'python3',
        [
          '-I',
          '-S',
          '-c',
          `import sys; sys.path.insert(0, ${JSON.stringify(root)}); sys.dont_write_bytecode = True; ${code}`,
        ],
        { encoding: 'utf8' },
      ).stdout.trim();
    assert.equal(run('import helper; print(helper.two())'), '2');
    writeFileSync(join(root, 'helper.py'), 'def two():\n    return 22\n');
    assert.equal(run('import helper; print(helper.two())'), '22');
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test("byte code: pytest's rewritten test modules, which pytest then loads instead of rewriting them again", async () => {
  const src = mkdtempSync(join(tmpdir(), 'sealgate-pyc-'));
  try {
    writeFileSync(join(src, 'calc.py'), 'def add(a, b):\n    return a + b\n');
    mkdirSync(join(src, 'tests'));
    writeFileSync(
      join(src, 'tests', 'test_calc.py'),
      'from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n',
    );
    writeFileSync(
      join(src, 'tests', 'conftest.py'),
      'import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n',
    );
    // pytest's debug log says, per test module, whether it found rewritten byte code or rewrote the source.
    const pytest = (dir: string): string => {
      const log = join(dir, 'debug.log');
      const r = spawnSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--debug=${log}`, 'tests'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      return readFileSync(log, 'utf8');
    };
    const cold = join(src, '..', `${src.split('/').pop()}-cold`);
    cpSync(src, cold, { recursive: true });
    const warm = join(src, '..', `${src.split('/').pop()}-warm`);
    cpSync(src, warm, { recursive: true });
    try {
      // The control: without byte code pytest rewrites the test module.
      assert.match(pytest(cold), /rewriting .*test_calc\.py/);
      const r = await precompilePython(warm, new Set(['calc.py']), { cwd: warm });
      assert.equal(r.skipped, null);
      assert.equal(r.rewritten, 2, JSON.stringify(r));
      assert.ok(existsSync(join(warm, 'tests', '__pycache__', `test_calc${pytestTail}`)));
      const log = pytest(warm);
      assert.match(log, /found cached rewritten pyc for .*test_calc\.py/);
      assert.doesNotMatch(log, /rewriting .*test_calc\.py/);
      // noRewrite (the tree configures pytest's rewriting): only plain byte code.
      rmSync(join(cold, 'tests', '__pycache__'), { recursive: true, force: true });
      rmSync(join(cold, '__pycache__'), { recursive: true, force: true });
      const plain = await precompilePython(cold, new Set(['calc.py']), { cwd: cold, noRewrite: true });
      assert.deepEqual(plain, { files: 2, rewritten: 0, skipped: null });
    } finally {
      rmSync(cold, { recursive: true, force: true });
      rmSync(warm, { recursive: true, force: true });
    }
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
});

test('byte code: with no interpreter (or one that fails) the copy is left as it was', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sealgate-pyc-'));
  try {
    writeFileSync(join(root, 'helper.py'), 'X = 1\n');
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'b.py'), 'Y = 1\n');
    const before = listAll(root);
    const none = await precompilePython(root, new Set(), { cwd: null, python: '/nonexistent/python3' });
    assert.equal(none.files, 0);
    assert.match(none.skipped ?? '', /could not compile/);
    assert.deepEqual(listAll(root), before);
    const failing = await precompilePython(root, new Set(), { cwd: null, python: '/bin/false' });
    assert.ok(failing.skipped !== null);
    assert.deepEqual(listAll(root), before);
    // More Python than is worth compiling before the first run: nothing is made.
    writeFileSync(join(root, 'big.py'), `X = 1\n${'#'.repeat(9 * 1024 * 1024)}\n`);
    const big = await precompilePython(root, new Set(), { cwd: null });
    assert.match(big.skipped ?? '', /^more than \d+ bytes of Python$/);
    assert.deepEqual(listAll(root), [...before, 'big.py'].sort());
    rmSync(join(root, 'big.py'));
    // No Python file at all: nothing to do.
    rmSync(join(root, 'helper.py'));
    rmSync(join(root, 'a'), { recursive: true });
    assert.deepEqual(await precompilePython(root, new Set(), { cwd: null }), {
      files: 0,
      rewritten: 0,
      skipped: 'no Python file',
    });
    assert.equal(existsSync(join(root, '__pycache__')), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('configuresRewriting: the pass hook named in an ini file, a conftest, the command or its environment', () => {
  const root = mkdtempSync(join(tmpdir(), 'sealgate-pyc-'));
  try {
    writeFileSync(join(root, 'pyproject.toml'), '[tool.pytest.ini_options]\naddopts = "-q"\n');
    writeFileSync(join(root, 'notes.py'), '# enable_assertion_pass_hook is only a word here\n');
    assert.equal(configuresRewriting(root, ['python3', '-m', 'pytest']), false);
    assert.equal(configuresRewriting(root, ['python3', '-m', 'pytest', '-o', 'enable_assertion_pass_hook=true']), true);
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'pytest.ini'), '[pytest]\nenable_assertion_pass_hook = true\n');
    assert.equal(configuresRewriting(root, []), true);
    rmSync(join(root, 'sub'), { recursive: true });
    mkdirSync(join(root, 't'));
    writeFileSync(
      join(root, 't', 'conftest.py'),
      'def pytest_configure(config):\n    config._inicache["enable_assertion_pass_hook"] = True\n',
    );
    assert.equal(configuresRewriting(root, []), true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('byte code: a file name that is not UTF-8 (a patch can make one) is left out, the rest compiled; rewriting is then not assumed unconfigured', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sealgate-pyc-'));
  try {
    writeFileSync(join(root, 'ok.py'), 'X = 1\n');
    const odd = Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0xff, 0x2e]), Buffer.from('py')]);
    writeFileSync(odd, 'Y = 2\n');
    mkdirSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0xfe])]));
    const r = await precompilePython(root, new Set(), { cwd: null });
    assert.deepEqual(r, { files: 1, rewritten: 0, skipped: null });
    assert.deepEqual(readdirSync(join(root, '__pycache__')), [`ok.${tag}.pyc`]);
    assert.equal(configuresRewriting(root, []), true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('configuresRewriting: a conftest.py or ini file that is a link counts as naming the hook (pytest reads what it points to)', () => {
  const root = mkdtempSync(join(tmpdir(), 'sealgate-pyc-'));
  try {
    writeFileSync(
      join(root, 'real_conf.py'),
      'def pytest_configure(config):\n    config._inicache["enable_" + "assertion_pass_hook"] = True\n',
    );
    assert.equal(configuresRewriting(root, []), false);
    mkdirSync(join(root, 'tests'));
    symlinkSync('../real_conf.py', join(root, 'tests', 'conftest.py'));
    assert.equal(configuresRewriting(root, []), true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

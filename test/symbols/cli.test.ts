import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSchema } from '../../src/core/document.js';
import { parseStrictJson } from '../../src/core/json.js';
import { ChangedSchema } from '../../src/symbols/schema.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';

function fixture() {
  const repo = makeRepo({
    'src/a.ts': 'export function f(): number {\n  return 1;\n}\n',
    'src/b.py': 'def g():\n    return 1\n',
  });
  writeFiles(repo.dir, {
    'src/a.ts': 'export function f(): number {\n  return 2;\n}\n',
    'src/b.py': 'def g():\n    return 1  # same\n',
  });
  const patch = git(repo.dir, 'diff');
  git(repo.dir, 'checkout', '-q', '--', '.');
  const patchPath = join(repo.dir, 'change.diff');
  writeFileSync(patchPath, patch);
  return { ...repo, patch, patchPath };
}

test('symbols writes a schema-valid changed.json to review/runner by default and leaves the tree alone', async () => {
  const r = fixture();
  try {
    const status = git(r.dir, 'status', '--porcelain');
    const run = await runCli(['symbols', '--patch', 'change.diff'], { cwd: r.dir });
    assert.equal(run.exit, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /2 files, 1 changed/);
    const out = join(r.dir, 'review/runner/changed.json');
    const text = readFileSync(out, 'utf8');
    const checked = checkSchema(ChangedSchema, parseStrictJson(text), 'changed.json');
    assert.ok(checked.ok);
    assert.deepEqual(checked.value.changed, ['src/a.ts::f']);
    assert.equal(checked.value.base, git(r.dir, 'rev-parse', 'HEAD').trim());
    assert.ok(text.endsWith('}\n'));
    assert.equal(readFileSync(join(r.dir, 'src/a.ts'), 'utf8'), 'export function f(): number {\n  return 1;\n}\n');
    assert.equal(git(r.dir, 'status', '--porcelain'), status + '?? review/\n');
  } finally {
    r.dispose();
  }
});

test('symbols --out - prints the JSON; --base picks the commit', async () => {
  const r = fixture();
  try {
    const head = git(r.dir, 'rev-parse', 'HEAD').trim();
    writeFiles(r.dir, { 'other.txt': 'x\n' });
    git(r.dir, 'add', 'other.txt');
    git(r.dir, 'commit', '-qm', 'later');
    const run = await runCli(['symbols', '--patch', r.patchPath, '--repo', r.dir, '--base', head, '--out', '-']);
    assert.equal(run.exit, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { base: string }).base, head);
    assert.equal(existsSync(join(r.dir, 'review')), false);
  } finally {
    r.dispose();
  }
});

test('symbols refuses bad arguments and bad patches with stable codes', async () => {
  const r = fixture();
  try {
    const cases: [string[], number, string][] = [
      [['symbols'], 1, 'E_INPUT_INVALID'], // the runner's step: no record here
      [['symbols', '--base', 'HEAD'], 2, 'E_INPUT_INVALID'],
      [['symbols', '--patch', 'change.diff', '--bogus'], 2, 'E_INPUT_INVALID'],
      [['symbols', '--patch', 'missing.diff'], 1, 'E_INPUT_INVALID'],
      [['symbols', '--patch', 'change.diff', '--base', 'no-such-rev'], 1, 'E_INPUT_INVALID'],
    ];
    for (const [argv, exit, code] of cases) {
      const run = await runCli(argv, { cwd: r.dir });
      assert.equal(run.exit, exit, argv.join(' '));
      assert.equal(run.stdout, `${code}\n`, argv.join(' '));
    }
    const help = await runCli(['symbols', '--help']);
    assert.equal(help.exit, 0);
    assert.match(help.stdout, /--patch P/);
  } finally {
    r.dispose();
  }
});

test('hostile patches: truncation, CRLF conversion, duplicate entries, non-applying hunks are E_INPUT_INVALID', async () => {
  const r = fixture();
  try {
    const p = r.patch;
    const second = p.indexOf('diff --git', 5);
    const hostile: Record<string, string> = {
      truncated: p.slice(0, p.length - 7),
      'cut at a line': p.slice(0, p.lastIndexOf('\n', p.length - 2) + 1),
      crlf: p.replace(/\n/g, '\r\n'),
      duplicate: p + p.slice(second),
      'wrong context': p.replace(' return 1;', ' return 7;').replace('-  return 1;', '-  return 9;'),
      'counts disagree': p.replace('@@ -1,3 +1,3 @@', '@@ -1,3 +1,4 @@'),
      'not a patch': 'hello\n',
      'nul byte': p.replace('return 2', 'return\u00002'),
      'combined diff': 'diff --cc src/a.ts\n@@@ -1,1 -1,1 +1,1 @@@\n',
    };
    for (const [name, text] of Object.entries(hostile)) {
      writeFileSync(join(r.dir, 'bad.diff'), text);
      const run = await runCli(['symbols', '--patch', 'bad.diff', '--out', '-'], { cwd: r.dir });
      assert.equal(run.stdout, 'E_INPUT_INVALID\n', `${name}: ${run.stderr}`);
      assert.equal(run.exit, 1, name);
    }
    // A BOM or trailing text after the last hunk is ignored alike by jsdiff and git: same result as the clean patch.
    const clean = await runCli(['symbols', '--patch', 'change.diff', '--out', '-'], { cwd: r.dir });
    for (const text of ['\uFEFF' + p, p + 'trailing words\n']) {
      writeFileSync(join(r.dir, 'odd.diff'), text);
      const run = await runCli(['symbols', '--patch', 'odd.diff', '--out', '-'], { cwd: r.dir });
      assert.equal(run.exit, 0, run.stderr);
      const a = JSON.parse(run.stdout) as Record<string, unknown>;
      const b = JSON.parse(clean.stdout) as Record<string, unknown>;
      assert.deepEqual({ ...a, patch_sha256: '' }, { ...b, patch_sha256: '' });
    }
  } finally {
    r.dispose();
  }
});

test('an empty patch lists nothing', async () => {
  const r = fixture();
  try {
    writeFileSync(join(r.dir, 'empty.diff'), '');
    const run = await runCli(['symbols', '--patch', 'empty.diff', '--out', '-'], { cwd: r.dir });
    assert.equal(run.exit, 0, run.stderr);
    const c = JSON.parse(run.stdout) as { files: unknown[]; changed: unknown[] };
    assert.deepEqual([c.files, c.changed], [[], []]);
  } finally {
    r.dispose();
  }
});

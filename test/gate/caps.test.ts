import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, openSync, ftruncateSync, closeSync, writeFileSync, symlinkSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/git.js';

const allow = fileURLToPath(new URL('../../acceptance/trace-3-freeze-other-test-allows', import.meta.url));
const ACCEPTANCE_POLICY = fileURLToPath(new URL('../../acceptance/policy.json', import.meta.url));

async function gateIn(dir: string): Promise<{ code: string; stderr: string }> {
  const r = await runCli([
    'gate',
    '--repo',
    dir,
    '--record',
    join(dir, 'record.json'),
    '--credit',
    join(dir, 'credit.json'),
    '--freeze',
    join(dir, 'freeze.json'),
    '--policy',
    ACCEPTANCE_POLICY,
    '--now',
    '2026-10-12T12:00:00Z',
  ]);
  return { code: r.stdout.trim(), stderr: r.stderr };
}

function copyCase(): { dir: string; dispose: () => void } {
  const t = tempDir();
  cpSync(allow, t.dir, { recursive: true });
  return t;
}

test('the copied case is allowed (control)', async () => {
  const t = copyCase();
  try {
    assert.equal((await gateIn(t.dir)).code, 'ALLOW');
  } finally {
    t.dispose();
  }
});

test('a file over the 16 MiB cap is refused from its size, without reading it (sparse 8 GiB file)', async () => {
  const t = copyCase();
  try {
    const fd = openSync(join(t.dir, 'credit.json'), 'w');
    ftruncateSync(fd, 8 * 1024 * 1024 * 1024);
    closeSync(fd);
    const r = await gateIn(t.dir);
    assert.equal(r.code, 'E_INPUT_INVALID');
    assert.match(r.stderr, /credit: larger than the 16777216-byte cap/);
  } finally {
    t.dispose();
  }
});

test('a real 17 MiB document is refused; one just under the cap is parsed', async () => {
  const t = copyCase();
  try {
    const pad = ' '.repeat(17 * 1024 * 1024);
    writeFileSync(join(t.dir, 'freeze.json'), `{${pad}}\n`);
    assert.match((await gateIn(t.dir)).stderr, /freeze: larger than/);
    writeFileSync(join(t.dir, 'freeze.json'), `{${' '.repeat(15 * 1024 * 1024)}}\n`);
    const r = await gateIn(t.dir);
    assert.equal(r.code, 'E_INPUT_INVALID');
    assert.match(r.stderr, /freeze#freeze_id: required field is missing/);
  } finally {
    t.dispose();
  }
});

test('non-regular files are refused: a FIFO, a directory, /dev/zero through a link', async () => {
  const t = copyCase();
  try {
    execFileSync('mkfifo', [join(t.dir, 'fifo.json')]);
    const r1 = await runCli([
      'gate',
      '--repo',
      t.dir,
      '--record',
      join(t.dir, 'fifo.json'),
      '--credit',
      join(t.dir, 'credit.json'),
      '--policy',
      ACCEPTANCE_POLICY,
      '--now',
      '2026-10-12T12:00:00Z',
    ]);
    assert.equal(r1.stdout, 'E_INPUT_INVALID\n');
    assert.match(r1.stderr, /record: not a regular file/);
    mkdirSync(join(t.dir, 'dir.json'));
    const r2 = await runCli([
      'gate',
      '--repo',
      t.dir,
      '--record',
      join(t.dir, 'record.json'),
      '--credit',
      join(t.dir, 'credit.json'),
      '--freeze',
      join(t.dir, 'dir.json'),
      '--policy',
      ACCEPTANCE_POLICY,
      '--now',
      '2026-10-12T12:00:00Z',
    ]);
    assert.match(r2.stderr, /freeze: not a regular file/);
    symlinkSync('/dev/zero', join(t.dir, 'zero.json'));
    const r3 = await runCli([
      'gate',
      '--repo',
      t.dir,
      '--record',
      join(t.dir, 'record.json'),
      '--credit',
      join(t.dir, 'zero.json'),
      '--policy',
      ACCEPTANCE_POLICY,
      '--now',
      '2026-10-12T12:00:00Z',
    ]);
    assert.equal(r3.stdout, 'E_INPUT_INVALID\n');
    assert.match(r3.stderr, /credit: not a regular file/);
  } finally {
    t.dispose();
  }
});

test('a patch path that leaves the repository through a symlink is refused', async () => {
  const t = copyCase();
  const outside = tempDir();
  try {
    cpSync(join(t.dir, 'patches', '014.diff'), join(outside.dir, '014.diff'));
    symlinkSync(outside.dir, join(t.dir, 'elsewhere'));
    const rec = JSON.parse(execFileSync('cat', [join(t.dir, 'record.json')], { encoding: 'utf8' })) as Record<
      string,
      unknown
    >;
    writeFileSync(
      join(t.dir, 'record.json'),
      JSON.stringify({ ...rec, patch_path: 'elsewhere/014.diff' }, null, 2) + '\n',
    );
    const r = await gateIn(t.dir);
    assert.equal(r.code, 'E_INPUT_INVALID');
    assert.match(r.stderr, /outside the repository/);
  } finally {
    t.dispose();
    outside.dispose();
  }
});

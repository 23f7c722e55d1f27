import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECORD, has, runSeal, sealRepo } from './setup.js';
import { computeInputs } from '../../src/seal/seal.js';
import { SealgateError } from '../../src/core/errors.js';
import { tempDir, writeFiles } from '../helpers/git.js';

const INPUTS = { seed: '42', clock: 'frozen', locale: 'C.UTF-8' };
const BOUND = { tree: 'a'.repeat(40), policy: 'default' };

/** Every refusal: E_INPUT_INVALID on stdout, exit 1, a reason naming the file, and nothing sealed. */
async function refused(dir: string, args: readonly string[], names: RegExp): Promise<string> {
  const r = await runSeal([
    'seal',
    '--repo',
    dir,
    '--runner-job',
    'server-job-88',
    '--seed',
    '42',
    '--clock',
    'frozen',
    '--locale',
    'C.UTF-8',
    ...args,
  ]);
  assert.equal(r.stdout, 'E_INPUT_INVALID\n', r.stderr);
  assert.equal(r.exit, 1);
  assert.match(r.stderr, names);
  assert.equal(has(dir, 'review/runner/digest.status'), false, 'nothing may be sealed');
  assert.equal((JSON.parse(readRecord(dir)) as Record<string, unknown>).digest_status, 'open');
  return r.stderr;
}

function readRecord(dir: string): string {
  return execFileSync('cat', [join(dir, 'review/proposal.json')], { encoding: 'utf8' });
}

test('a fixture glob that matches nothing is refused, naming the glob', async () => {
  const t = sealRepo();
  try {
    await refused(
      t.dir,
      ['--fixtures', 'fixtures/**', '--fixtures', 'fixturez/*.json'],
      /fixture glob "fixturez\/\*\.json": matches no file/,
    );
    await refused(t.dir, ['--fixtures', 'fixtures/*.yaml'], /fixture glob "fixtures\/\*\.yaml": matches no file/);
  } finally {
    t.dispose();
  }
});

test('a symlink matched by a glob is refused, even one pointing inside the repository', async () => {
  const t = sealRepo();
  try {
    symlinkSync('orders.json', join(t.dir, 'fixtures/alias.json'));
    await refused(t.dir, ['--fixtures', 'fixtures/**'], /fixtures\/alias\.json: is a symbolic link/);
    await refused(t.dir, ['--fixtures', 'fixtures/alias.json'], /fixtures\/alias\.json: is a symbolic link/);
  } finally {
    t.dispose();
  }
});

test('a linked folder on the way to, or inside, the fixtures is refused (it could lead outside the repository)', async () => {
  const t = sealRepo();
  const outside = sealRepo({ 'secret/passwd': 'root:x:0:0\n' }, RECORD);
  try {
    symlinkSync(join(outside.dir, 'secret'), join(t.dir, 'linked'));
    await refused(t.dir, ['--fixtures', 'linked/*'], /linked: is a symbolic link on the way/);
    symlinkSync(join(outside.dir, 'secret'), join(t.dir, 'fixtures/nested/deeper'));
    await refused(
      t.dir,
      ['--fixtures', 'fixtures/**/*.csv'],
      /fixtures\/nested\/deeper: is a symbolic link to a folder/,
    );
  } finally {
    t.dispose();
    outside.dispose();
  }
});

test('a path outside the repository is refused', async () => {
  const t = sealRepo();
  try {
    await refused(
      t.dir,
      ['--fixtures', '../outside/*.json'],
      /fixture glob "\.\.\/outside\/\*\.json": is outside the repository/,
    );
    await refused(t.dir, ['--fixtures', '/etc/passwd'], /fixture glob "\/etc\/passwd": is outside the repository/);
    await refused(t.dir, ['--fixtures', 'fixtures/../../x'], /is outside the repository/);
    await refused(t.dir, ['--fixtures', 'review/**'], /"review\/" holds repository or workflow state/);
    await refused(t.dir, ['--fixtures', '.git/config'], /"\.git\/" holds repository or workflow state/);
  } finally {
    t.dispose();
  }
});

// A FIFO cannot come through git into the runner's tree; the hashing still refuses one.
test('a non-regular file (a FIFO) matched by a glob is refused by the hashing', async () => {
  const t = tempDir();
  try {
    mkdirSync(join(t.dir, 'fixtures'));
    execFileSync('mkfifo', [join(t.dir, 'fixtures/pipe.json')]);
    await assert.rejects(
      computeInputs(t.dir, ['fixtures/*.json'], INPUTS, BOUND),
      (e: unknown) => e instanceof SealgateError && e.message.includes('fixtures/pipe.json: is not a regular file'),
    );
  } finally {
    t.dispose();
  }
});

test('a file name with a newline, a backslash or a control character is refused', async () => {
  for (const name of ['a\nb.json', 'a\\b.json', 'a\rb.json', 'a\tb.json']) {
    const t = sealRepo();
    try {
      writeFileSync(join(t.dir, 'fixtures', name), '{}\n');
      await refused(
        t.dir,
        ['--fixtures', 'fixtures/*.json'],
        /fixtures\/a.*b\.json.*: the file name contains a (newline|backslash|control character)/,
      );
    } finally {
      t.dispose();
    }
  }
});

test('a file name that is not valid UTF-8 is refused', async () => {
  const t = sealRepo();
  try {
    writeFileSync(Buffer.from(`${t.dir}/fixtures/bad-\xff.json`, 'latin1'), '{}\n');
    await refused(t.dir, ['--fixtures', 'fixtures/**'], /fixtures\/bad-.*\.json.*: the file name is not valid UTF-8/);
  } finally {
    t.dispose();
  }
});

test('the proposal record cannot be a fixture: the seal writes it', async () => {
  const t = sealRepo();
  try {
    mkdirSync(join(t.dir, 'records'));
    writeFileSync(join(t.dir, 'records/p.json'), JSON.stringify(RECORD, null, 2) + '\n');
    const r = await runSeal([
      'seal',
      '--repo',
      t.dir,
      '--runner-job',
      'server-job-88',
      '--fixtures',
      'fixtures/**',
      '--fixtures',
      'records/*',
      '--seed',
      '1',
      '--clock',
      'frozen',
      '--locale',
      'C',
      '--record',
      join(t.dir, 'records/p.json'),
    ]);
    assert.equal(r.stdout, 'E_INPUT_INVALID\n');
    assert.match(r.stderr, /records\/p\.json: the proposal record matches a fixture glob/);
  } finally {
    t.dispose();
  }
});

for (const [how, extra] of [
  ['with another fixture (the parallel path)', { 'fixtures/small.json': '{}\n' }],
  ['alone (the main-thread path)', {}],
] as const) {
  test(`a fixture that changes while it is hashed is refused, ${how}`, async () => {
    // A real race: a writer appends to a 48 MiB fixture without pause while it is hashed
    // (the runner's tree is sealgate's own; the hashing still refuses a changing file).
    const t = tempDir();
    writeFiles(t.dir, { 'fixtures/big.bin': Buffer.alloc(48 * 1024 * 1024, 7), ...extra });
    const writer = spawn('sh', ['-c', 'while :; do printf x >> fixtures/big.bin; done'], {
      cwd: t.dir,
      stdio: 'ignore',
    });
    try {
      const start = statSync(join(t.dir, 'fixtures/big.bin')).size;
      while (statSync(join(t.dir, 'fixtures/big.bin')).size === start) await new Promise((r) => setTimeout(r, 5));
      let caught = '';
      for (let attempt = 0; attempt < 5 && !caught; attempt++) {
        try {
          await computeInputs(t.dir, ['fixtures/**'], INPUTS, BOUND);
        } catch (e) {
          assert.ok(e instanceof SealgateError && e.code === 'E_INPUT_INVALID', String(e));
          caught = e.message;
        }
      }
      assert.match(caught, /fixtures\/big\.bin: changed while it was being hashed/);
    } finally {
      writer.kill('SIGKILL');
      await new Promise((r) => writer.once('exit', r));
      t.dispose();
    }
  });
}

test('globs skip .git, node_modules and review/ when walking from above, and never hash the seal files', async () => {
  const t = sealRepo({
    'a.json': '{}\n',
    '.git/x.json': '{}\n',
    'node_modules/m/p.json': '{}\n',
    'src/b.json': '{}\n',
  });
  try {
    // (A pre-created review/runner is refused: test/adversarial/runner-dir.test.ts.)
    mkdirSync(join(t.dir, 'review/old'), { recursive: true });
    writeFileSync(join(t.dir, 'review/old/old.json'), '{}\n');
    const r = await runSeal([
      'seal',
      '--repo',
      t.dir,
      '--runner-job',
      'server-job-88',
      '--fixtures',
      '*.json',
      '--seed',
      '1',
      '--clock',
      'frozen',
      '--locale',
      'C',
    ]);
    assert.equal(r.exit, 0, r.stderr);
    const lines = execFileSync('cat', [join(t.dir, 'review/runner/inputs.sha256')], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('  '))
      .map((l) => l.slice(66));
    assert.deepEqual(lines, ['a.json', 'src/b.json']);
  } finally {
    t.dispose();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { SealgateError } from '../../src/core/errors.js';
import { isDecisionCode } from '../../src/core/codes.js';
import { runCli } from '../helpers/cli.js';

const acceptance = fileURLToPath(new URL('../../acceptance/', import.meta.url));
const allowCase = `${acceptance}trace-3-freeze-other-test-allows`;
const gateArgs = (dir: string, now = '2026-10-12T12:00:00Z'): string[] => [
  'gate',
  '--repo',
  dir,
  '--record',
  `${dir}/record.json`,
  '--credit',
  `${dir}/credit.json`,
  '--freeze',
  `${dir}/freeze.json`,
  '--policy',
  `${acceptance}policy.json`,
  '--now',
  now,
];

const oneCode = (stdout: string): string => {
  const lines = stdout.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `exactly one stdout line, got ${JSON.stringify(stdout)}`);
  assert.ok(isDecisionCode(lines[0]), `a known code: ${lines[0]}`);
  return lines[0];
};

test('ALLOW: one line, exit 0, nothing on stderr', async () => {
  const r = await runCli(gateArgs(allowCase));
  assert.equal(oneCode(r.stdout), 'ALLOW');
  assert.equal(r.exit, 0);
  assert.equal(r.stderr, '');
});

test('usage errors print E_INPUT_INVALID and exit 2', async () => {
  for (const argv of [
    ['gate'],
    ['gate', '--record', 'r', '--credit', 'c'],
    ['gate', '--record', 'r', '--credit', 'c', '--now', '2026-10-12T12:00:00'],
    ['gate', '--record', 'r', '--credit', 'c', '--now', '2026-10-12T12:00:00Z', '--bogus'],
    ['gate', '--record', 'r', '--credit', 'c', '--now', '2026-10-12T12:00:00Z', 'extra'],
    ['gate', '--record=', '--credit', 'c', '--now', '2026-10-12T12:00:00Z'],
    ['no-such-command'],
    [],
  ]) {
    const r = await runCli(argv);
    if (argv.length === 0) {
      assert.equal(r.exit, 2);
      continue;
    }
    assert.equal(oneCode(r.stdout), 'E_INPUT_INVALID', argv.join(' '));
    assert.equal(r.exit, 2, argv.join(' '));
    assert.match(r.stderr, /E_INPUT_INVALID/);
  }
});

test('a file problem is E_INPUT_INVALID with exit 1 and names the file', async () => {
  const r = await runCli([
    'gate',
    '--repo',
    allowCase,
    '--record',
    `${allowCase}/nope.json`,
    '--credit',
    `${allowCase}/credit.json`,
    '--now',
    '2026-10-12T12:00:00Z',
  ]);
  assert.equal(oneCode(r.stdout), 'E_INPUT_INVALID');
  assert.equal(r.exit, 1);
  assert.match(r.stderr, /record: file not found/);
});

test('an unexpected exception is E_INTERNAL, exit 3, never ALLOW', async () => {
  let out = '';
  let err = '';
  const exit = await main(
    {
      argv: ['boom'],
      cwd: '/',
      env: {},
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      clock: () => new Date(0),
      isTTY: false,
    },
    {
      boom: {
        summary: 'x',
        load: async () => ({
          usage: '',
          run: async () => {
            throw new TypeError('kaboom');
          },
        }),
      },
    },
  );
  assert.equal(oneCode(out), 'E_INTERNAL');
  assert.equal(exit, 3);
  assert.match(err, /kaboom/);
});

test('a command that throws an expected error prints its code once', async () => {
  let out = '';
  const exit = await main(
    {
      argv: ['x'],
      cwd: '/',
      env: {},
      stdout: (t) => (out += t),
      stderr: () => undefined,
      clock: () => new Date(0),
      isTTY: false,
    },
    {
      x: {
        summary: 'x',
        load: async () => ({
          usage: '',
          run: async () => {
            throw new SealgateError('E_DIGEST_OPEN', 'status is open');
          },
        }),
      },
    },
  );
  assert.equal(oneCode(out), 'E_DIGEST_OPEN');
  assert.equal(exit, 1);
});

test('--json puts a machine-readable account on stderr; --explain a human one', async () => {
  const dir = `${acceptance}trace-2-freeze-covers-credit`;
  const j = await runCli([...gateArgs(dir), '--json']);
  assert.equal(oneCode(j.stdout), 'E_FREEZE_COVERS_CREDIT');
  const parsed = JSON.parse(j.stderr) as { code: string; exit: number; findings: { code: string; path: string }[] };
  assert.equal(parsed.code, 'E_FREEZE_COVERS_CREDIT');
  assert.equal(parsed.exit, 1);
  assert.ok(parsed.findings.some((f) => f.path === 'freeze#test_id'));
  const e = await runCli([...gateArgs(dir), '--explain']);
  assert.match(e.stderr, /^decision: E_FREEZE_COVERS_CREDIT/);
  assert.match(e.stderr, /1\. patch written by: +model-session-17/);
  assert.match(e.stderr, /names another test: +NO/);
});

test('--json on a usage error still gives JSON on stderr and one code on stdout', async () => {
  const r = await runCli(['gate', '--json']);
  assert.equal(oneCode(r.stdout), 'E_INPUT_INVALID');
  assert.equal((JSON.parse(r.stderr) as { code: string }).code, 'E_INPUT_INVALID');
});

test('the installed bin prints one code and exits with its status (real process)', () => {
  const bin = fileURLToPath(new URL('../../bin/sealgate.js', import.meta.url));
  const ok = spawnSync(process.execPath, [bin, ...gateArgs(allowCase)], { encoding: 'utf8' });
  assert.equal(ok.stdout, 'ALLOW\n');
  assert.equal(ok.status, 0);
  const late = spawnSync(process.execPath, [bin, ...gateArgs(allowCase, '2026-10-19T00:00:00Z')], { encoding: 'utf8' });
  assert.equal(late.stdout, 'E_FREEZE_EXPIRED\n');
  assert.equal(late.status, 1);
});

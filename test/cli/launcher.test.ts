import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type StdioOptions } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ONE_CASE, RUNNER, makeSealedRepo } from '../runner/helpers.js';

// bin/sealgate.js is a shell script and a CommonJS file at once. Run as a program, its first
// line starts Node without NODE_EXTRA_CA_CERTS (which Node would parse before any of our code
// runs) and sets the value aside; the JavaScript restores it, so child processes see the
// environment exactly as it was. These run the built CLI (npm test builds first).
const root = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(root, 'bin', 'sealgate.js');
const skip = existsSync(join(root, 'dist', 'bundle', 'all.cjs'))
  ? false
  : 'no build in dist/ (run npm run build first)';
const VERSION = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const BASE = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', SEED: '1234' };
// Node warns on stderr when it cannot load the file NODE_EXTRA_CA_CERTS names: the sign that it tried.
const CA_WARNING = /Ignoring extra certs/;
const MISSING_CA = '/nonexistent/sealgate-test-ca.pem';

const asProgram = (args: string[], env: Record<string, string>, cwd = root) =>
  spawnSync(BIN, args, { cwd, env, encoding: 'utf8' });

test('bin/sealgate.js runs as a program, under sh, and under node, with the same result', { skip }, () => {
  for (const [label, r] of [
    ['program', asProgram(['--version'], BASE)],
    ['sh', spawnSync('sh', [BIN, '--version'], { env: BASE, encoding: 'utf8' })],
    ['node', spawnSync(process.execPath, [BIN, '--version'], { env: BASE, encoding: 'utf8' })],
  ] as const) {
    assert.equal(r.stdout, `${VERSION}\n`, `${label}: ${r.stderr}`);
    assert.equal(r.status, 0, label);
    assert.equal(r.stderr, '', label);
  }
});

test(
  'run as a program, Node starts without NODE_EXTRA_CA_CERTS; under node it does not (the control)',
  { skip },
  () => {
    const env = { ...BASE, NODE_EXTRA_CA_CERTS: MISSING_CA };
    const launched = asProgram(['codes'], env);
    assert.equal(launched.status, 0, launched.stderr);
    assert.doesNotMatch(launched.stderr, CA_WARNING);
    const direct = spawnSync(process.execPath, [BIN, 'codes'], { env, encoding: 'utf8' });
    assert.equal(direct.status, 0, direct.stderr);
    assert.match(direct.stderr, CA_WARNING, 'node bin/sealgate.js skips the launcher, so Node reads the variable');
    assert.equal(launched.stdout, direct.stdout);
  },
);

test(
  "the test command of `sealgate run` sees neither NODE_EXTRA_CA_CERTS nor the launcher's slot: its environment is an allowlist",
  { skip },
  async () => {
    const cases: [string, string | undefined][] = [
      ['set', MISSING_CA],
      ['set to a value with spaces and quotes', `/tmp/a b/"c'.pem`],
      ['empty', ''],
      ['unset', undefined],
    ];
    for (const [label, value] of cases) {
      const repo = await makeSealedRepo();
      try {
        const env: Record<string, string> = { ...BASE };
        if (value !== undefined) env.NODE_EXTRA_CA_CERTS = value;
        const probe =
          'if [ -n "${NODE_EXTRA_CA_CERTS+x}" ]; then printf "set:%s" "$NODE_EXTRA_CA_CERTS"; else printf unset; fi; printf "|%s" "${SEALGATE_NODE_EXTRA_CA_CERTS-none}"';
        const r = asProgram(['run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'sh', '-c', probe], env, repo.dir);
        assert.equal(r.status, 0, `${label}: ${r.stdout}${r.stderr}`);
        assert.equal(repo.read('review/runner/logs/stdout.log'), 'unset|none', label);
      } finally {
        repo.dispose();
      }
    }
  },
);

test(
  'a value set aside by hand is restored only where the real variable is unset, and never passed on as such',
  { skip },
  () => {
    // What sealgate's own process (and so git and every other child it starts) sees after the launcher and the restore.
    const show = `require(${JSON.stringify(BIN)}); process.stdout.write((process.env.NODE_EXTRA_CA_CERTS ?? 'unset') + '|' + (process.env.SEALGATE_NODE_EXTRA_CA_CERTS ?? 'none'))`;
    const cases: [string, Record<string, string>, string][] = [
      // Under node (no launcher): the real variable wins over a stray slot ...
      [
        'under node, both set',
        { NODE_EXTRA_CA_CERTS: '/real.pem', SEALGATE_NODE_EXTRA_CA_CERTS: '/stray.pem' },
        '/real.pem|none',
      ],
      // ... and only where the real one is unset does the slot fill it.
      ['under node, only the slot', { SEALGATE_NODE_EXTRA_CA_CERTS: '/stray.pem' }, '/stray.pem|none'],
      ['under node, neither', {}, 'unset|none'],
    ];
    for (const [label, extra, expected] of cases) {
      const r = spawnSync(process.execPath, ['-e', show], { cwd: root, env: { ...BASE, ...extra }, encoding: 'utf8' });
      assert.equal(r.stdout, expected, `${label}: ${r.stderr}`);
    }
    // As a program, the launcher (the shell line) clears a stray slot when the real variable is unset:
    // a stand-in \`node\` first on PATH shows what the launcher hands to Node.
    const dir = mkdtempSync(join(tmpdir(), 'sealgate-launcher-'));
    try {
      writeFileSync(
        join(dir, 'node'),
        '#!/bin/sh\nprintf "%s|%s" "${NODE_EXTRA_CA_CERTS-unset}" "${SEALGATE_NODE_EXTRA_CA_CERTS-none}"\n',
        { mode: 0o755 },
      );
      const r = asProgram(['--version'], {
        ...BASE,
        PATH: `${dir}:${BASE.PATH}`,
        SEALGATE_NODE_EXTRA_CA_CERTS: '/stray.pem',
      });
      assert.equal(r.stdout, 'unset|none');
      const set = asProgram(['--version'], { ...BASE, PATH: `${dir}:${BASE.PATH}`, NODE_EXTRA_CA_CERTS: '/real.pem' });
      assert.equal(set.stdout, 'unset|/real.pem');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/** Run the built CLI as a program with stdout (or stderr) opened on `target`. */
function withOutput(args: string[], which: 'stdout' | 'stderr', target: string) {
  const fd = openSync(target, 'w');
  try {
    const stdio: StdioOptions = which === 'stdout' ? ['ignore', fd, 'pipe'] : ['ignore', 'pipe', fd];
    return spawnSync(BIN, args, { env: BASE, encoding: 'utf8', stdio });
  } finally {
    closeSync(fd);
  }
}

test(
  'a reader that goes away (EPIPE) ends the output quietly: the exit status is kept, no stack trace',
  { skip },
  async () => {
    for (const [args, status] of [
      [['codes'], 0],
      [['gate', '--no-such-option'], 2],
    ] as const) {
      const child = spawn(BIN, [...args], { env: BASE, stdio: ['ignore', 'pipe', 'pipe'] });
      // Closed before the child has started: every write it makes to stdout meets EPIPE.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, status, `${args.join(' ')}: ${stderr}`);
      assert.doesNotMatch(stderr, /EPIPE|Unhandled|\n\s+at /, args.join(' '));
    }
  },
);

test(
  'stdout on a full disk: exit 3 with the reason on stderr, never a success that lost its output',
  { skip: skip || (existsSync('/dev/full') ? false : 'no /dev/full') },
  () => {
    for (const args of [['codes'], ['--version']]) {
      const r = withOutput(args, 'stdout', '/dev/full');
      assert.equal(r.status, 3, args.join(' '));
      assert.match(r.stderr, /E_INTERNAL: cannot write to stdout \(ENOSPC\)/);
      assert.doesNotMatch(r.stderr, /Unhandled|\n\s+at /);
    }
    // A reject keeps its own status when only stderr fails.
    const reject = withOutput(['gate', '--no-such-option'], 'stderr', '/dev/full');
    assert.equal(reject.status, 2);
    assert.equal(reject.stdout, 'E_INPUT_INVALID\n');
  },
);

test('output to a non-blocking pipe that fills up (EAGAIN) loses and reorders nothing', { skip }, () => {
  // The CLI writes to the descriptor itself; on EAGAIN the rest goes through the stream, which
  // queues it. A reader that starts late makes the pipe fill while 2 MB are written.
  const script = [
    'import fcntl, os, subprocess, sys, time',
    'r, w = os.pipe()',
    'fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)',
    'p = subprocess.Popen(sys.argv[1:], stdout=w)',
    'os.close(w)',
    'time.sleep(0.5)',
    'data = b""',
    'while True:',
    '    chunk = os.read(r, 65536)',
    '    if not chunk: break',
    '    data += chunk',
    'sys.stdout.write(str(p.wait()) + " " + str(len(data)) + " " + str(data.count(b"\\n")) + "\\n")',
    'sys.stdout.flush()',
    'open(os.environ["OUT"], "wb").write(data)',
  ].join('\n');
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-eagain-'));
  try {
    const out = join(dir, 'out.txt');
    const writer = `import(${JSON.stringify(join(root, 'dist', 'cli', 'run.js'))}).then((m) => { const w = m.guardedWriter('stdout'); for (let i = 0; i < 20000; i++) w(String(i).padStart(8, '0') + ' ' + 'x'.repeat(91) + '\\n'); })`;
    const r = spawnSync('python3', ['-c', script, process.execPath, '--input-type=module', '-e', writer], {
      env: { ...BASE, OUT: out },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), '0 2020000 20000');
    const lines = readFileSync(out, 'utf8').split('\n').slice(0, -1);
    lines.forEach((line, i) => assert.equal(line.slice(0, 8), String(i).padStart(8, '0')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

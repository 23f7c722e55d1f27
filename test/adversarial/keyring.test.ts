import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { RUNNER, makeSealedRepo } from '../runner/helpers.js';

// The kernel keyring is not namespaced: every process keeps its parent's session keyring, and
// the sandbox's uid maps to the runner's own. So a test could read what the runner's session
// keyring holds (here a secret a CI step stored), and leave a key there that outlives its run.

const SYSCALLS: Record<string, { add: number; keyctl: number }> = {
  x86_64: { add: 248, keyctl: 250 },
  aarch64: { add: 217, keyctl: 219 },
};
const machine = spawnSync('python3', ['-c', 'import platform; print(platform.machine())'], { encoding: 'utf8' });
const nr = machine.status === 0 ? SYSCALLS[machine.stdout.trim()] : undefined;
const skip = nr === undefined ? 'needs python3 on x86_64 or aarch64 (keyring calls through ctypes)' : false;

/** Python that talks to the session keyring: `add NAME VALUE`, or `read NAME` (prints READ value, or why not). */
const KEYS = (n: { add: number; keyctl: number }): string => `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if sys.argv[1] == 'join':
    libc.syscall(${n.keyctl}, 1, b'sealgate-test-session')
    libc.syscall(${n.add}, b'user', b'runner-secret', b'TOPSECRET-4f1c', 14, -3)
    os.execv(sys.argv[2], sys.argv[2:])
elif sys.argv[1] == 'add':
    r = libc.syscall(${n.add}, b'user', sys.argv[2].encode(), b'x', 1, -3)
    print('added' if r > 0 else 'add refused: ' + os.strerror(ctypes.get_errno()))
else:
    kid = libc.syscall(${n.keyctl}, 10, -3, b'user', sys.argv[2].encode(), 0)
    if kid < 0:
        print('not found: ' + os.strerror(ctypes.get_errno()))
    else:
        buf = ctypes.create_string_buffer(64)
        n = libc.syscall(${n.keyctl}, 11, kid, buf, 64)
        print('READ ' + buf.raw[:max(n, 0)].decode() if n >= 0 else 'read refused: ' + os.strerror(ctypes.get_errno()))
`;

test(
  "a test can neither read the runner's session keyring nor leave a key in it for a later run",
  { skip, timeout: 120_000 },
  async () => {
    const n = nr as { add: number; keyctl: number };
    const script = `cat > /tmp/keys.py <<'PY'\n${KEYS(n)}PY\npython3 /tmp/keys.py read runner-secret\npython3 /tmp/keys.py add left-behind\ncat /proc/keys /proc/key-users 2>&1\nprintf '<testsuite name="s"><testcase classname="s" name="t"/></testsuite>\\n' > junit.xml\n`;
    const repo = await makeSealedRepo({
      files: { 'attack.sh': script },
      config: { test: { command: ['sh', 'attack.sh'], junit: ['junit.xml'] } },
    });
    try {
      // The runner as a CI job runs it: in a session keyring of its own that holds a secret.
      const child = `import { runCli } from ${JSON.stringify(resolve('test/helpers/cli.ts'))};
import { spawnSync } from 'node:child_process';
const r = await runCli(['run', '--runner-job', ${JSON.stringify(RUNNER)}], { cwd: process.argv[1], env: { PATH: process.env.PATH, SEED: '1234' } });
process.stdout.write(JSON.stringify({ exit: r.exit, stdout: r.stdout, stderr: r.stderr, after: spawnSync('python3', ['-c', process.argv[2], 'read', 'left-behind'], { encoding: 'utf8' }).stdout.trim() }));
`;
      const run = spawnSync(
        'python3',
        [
          '-c',
          KEYS(n),
          'join',
          process.execPath,
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          child,
          repo.dir,
          KEYS(n),
        ],
        { encoding: 'utf8', cwd: resolve('.') },
      );
      assert.equal(run.status, 0, run.stderr);
      const out = JSON.parse(run.stdout) as { exit: number; stdout: string; stderr: string; after: string };
      assert.equal(out.exit, 0, out.stdout + out.stderr);
      const log = repo.read('review/runner/logs/stdout.log');
      assert.doesNotMatch(log, /TOPSECRET/, "the test read the runner's keyring");
      assert.doesNotMatch(
        log,
        /runner-secret|sealgate-test-session/,
        "the test listed the runner's keys in /proc/keys",
      );
      assert.match(log, /not found: Operation not permitted/, log);
      assert.match(log, /add refused: Operation not permitted/, log);
      assert.match(out.after, /^not found/, 'a key the test added outlived its run');
    } finally {
      repo.dispose();
    }
  },
);

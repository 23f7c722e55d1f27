import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { execInGroup, type ExecOptions } from '../../src/sandbox/exec.js';
import { findLibfaketime, pinnedEnv, planClock, pythonHashSeed } from '../../src/runner/env.js';
import { tempDir } from '../helpers/git.js';

function opts(dir: string, command: string[], extra: Partial<ExecOptions> = {}): ExecOptions {
  return {
    command,
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: 10_000,
    stdoutPath: join(dir, 'out.log'),
    stderrPath: join(dir, 'err.log'),
    capBytes: 1024,
    ...extra,
  };
}

test('exit status, both streams to files with mode 0600, and only the given environment', async () => {
  const t = tempDir();
  try {
    const r = await execInGroup(
      opts(t.dir, ['sh', '-c', 'echo "out $SEALGATE_X ${HOME:-nohome}"; echo err >&2; exit 7'], {
        env: { PATH: process.env.PATH ?? '', SEALGATE_X: 'x1' },
      }),
    );
    assert.equal(r.exit_code, 7);
    assert.equal(r.signal, null);
    assert.equal(r.timed_out, false);
    assert.equal(r.spawn_error, null);
    assert.equal(readFileSync(join(t.dir, 'out.log'), 'utf8'), 'out x1 nohome\n');
    assert.equal(readFileSync(join(t.dir, 'err.log'), 'utf8'), 'err\n');
    assert.equal(statSync(join(t.dir, 'out.log')).mode & 0o777, 0o600);
    assert.equal(statSync(join(t.dir, 'err.log')).mode & 0o777, 0o600);
  } finally {
    t.dispose();
  }
});

test('output beyond the cap is counted, cut, and noted; the process is not stopped by it', async () => {
  const t = tempDir();
  try {
    const r = await execInGroup(
      opts(t.dir, ['sh', '-c', 'head -c 200000 /dev/zero | tr "\\0" a; echo tail-marker >&2'], { capBytes: 1000 }),
    );
    assert.equal(r.exit_code, 0);
    assert.deepEqual(r.stdout, { bytes: 200000, truncated: true });
    const out = readFileSync(join(t.dir, 'out.log'), 'utf8');
    assert.equal(out.slice(0, 1000), 'a'.repeat(1000));
    assert.match(out.slice(1000), /^\n\[sealgate: output cut at 1000 bytes\]\n$/);
    assert.equal(readFileSync(join(t.dir, 'err.log'), 'utf8'), 'tail-marker\n');
  } finally {
    t.dispose();
  }
});

test(
  'a log that cannot be written (disk full) fails the run after the command ends; the command is not blocked',
  { skip: existsSync('/dev/full') ? false : 'no /dev/full here to simulate a full disk' },
  async () => {
    const t = tempDir();
    try {
      // 300 kB exceeds any pipe buffer: were the output no longer read after the failed write,
      // the command would block and this test would time out; were the pipe closed instead,
      // `head` would die of SIGPIPE (status 141). It must finish normally.
      const run = execInGroup(
        opts(t.dir, ['sh', '-c', 'head -c 300000 /dev/zero; echo $? > marker'], {
          stdoutPath: '/dev/full',
          capBytes: 1_000_000,
        }),
      );
      await assert.rejects(run, (e: NodeJS.ErrnoException) => e.code === 'ENOSPC');
      assert.equal(readFileSync(join(t.dir, 'marker'), 'utf8'), '0\n');
    } finally {
      t.dispose();
    }
  },
);

test('a timeout kills the whole process group, grandchildren included', async () => {
  const t = tempDir();
  try {
    // The background grandchild would write the marker after 1.5 s if it survived.
    const script = '(sleep 1.5; echo alive > marker) & sleep 30';
    const r = await execInGroup(opts(t.dir, ['sh', '-c', script], { timeoutMs: 300, killGraceMs: 200 }));
    assert.equal(r.timed_out, true);
    assert.equal(r.exit_code, null);
    assert.ok(r.signal === 'SIGTERM' || r.signal === 'SIGKILL');
    assert.ok(r.duration_ms < 5000, `took ${r.duration_ms} ms`);
    await new Promise((res) => setTimeout(res, 1800));
    assert.equal(existsSync(join(t.dir, 'marker')), false, 'a grandchild survived the timeout');
  } finally {
    t.dispose();
  }
});

test('a command that ignores SIGTERM is killed after the grace period', async () => {
  const t = tempDir();
  try {
    const r = await execInGroup(
      opts(t.dir, ['sh', '-c', 'trap "" TERM; sleep 30'], { timeoutMs: 200, killGraceMs: 200 }),
    );
    assert.equal(r.timed_out, true);
    assert.equal(r.signal, 'SIGKILL');
  } finally {
    t.dispose();
  }
});

test('files the command creates are private (umask 077); a missing program is reported, not thrown', async () => {
  const t = tempDir();
  try {
    const r = await execInGroup(opts(t.dir, ['sh', '-c', 'echo x > created.xml']));
    assert.equal(r.exit_code, 0);
    assert.equal(statSync(join(t.dir, 'created.xml')).mode & 0o777, 0o600);
    const missing = await execInGroup(opts(t.dir, ['sealgate-no-such-program']));
    assert.equal(missing.exit_code, null);
    assert.match(missing.spawn_error ?? '', /ENOENT/);
  } finally {
    t.dispose();
  }
});

// --- The pinned environment ---

const INPUTS = { seed: '42', clock: 'live', locale: 'C.UTF-8', digest: 'ab'.repeat(32) };

test('pinnedEnv: an allowlist: PATH and CI from the caller, test.env, the sealed values; nothing else (tokens, agents, HOME, NODE_OPTIONS ...)', () => {
  const caller = {
    PATH: '/bin',
    CI: 'true',
    HOME: '/root',
    LC_CTYPE: 'de_DE',
    LANGUAGE: 'de',
    TZ: 'Europe/Berlin',
    SEED: '9',
    FAKETIME: '+1d',
    LD_PRELOAD: '/x.so',
    SEALGATE_DIGEST: 'forged',
    NODE_TEST_CONTEXT: 'child-v8',
    GITHUB_TOKEN: 'ghs_x',
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'y',
    NPM_TOKEN: 'z',
    SSH_AUTH_SOCK: '/tmp/ssh/agent',
    NODE_OPTIONS: '--require=/x.js',
    UNSET: undefined,
  };
  const env = pinnedEnv(caller, INPUTS, { kind: 'live' }, { FEATURE_FLAG: 'on', SEED_DIR: 'fixtures' });
  assert.deepEqual(env, {
    PATH: '/bin',
    CI: 'true',
    FEATURE_FLAG: 'on',
    SEED_DIR: 'fixtures',
    SEED: '42',
    PYTHONHASHSEED: pythonHashSeed('42'),
    TZ: 'UTC',
    LC_ALL: 'C.UTF-8',
    LANG: 'C.UTF-8',
    SEALGATE_DIGEST: INPUTS.digest,
    SEALGATE_CLOCK: 'live',
  });
  assert.equal(pinnedEnv({}, INPUTS, { kind: 'live' }).PATH, '/usr/local/bin:/usr/bin:/bin');
  // test.env cannot override a sealed value (the config schema also refuses such names).
  assert.equal(pinnedEnv({}, INPUTS, { kind: 'live' }, { SEED: '7' }).SEED, '42');
  const frozen = pinnedEnv(
    {},
    { ...INPUTS, clock: 'frozen:2001-02-03T04:05:06Z' },
    { kind: 'faketime', faketime: '2001-02-03 04:05:06', library: '/lib/libfaketime.so.1' },
  );
  assert.equal(frozen.LD_PRELOAD, '/lib/libfaketime.so.1');
  assert.equal(frozen.FAKETIME, '2001-02-03 04:05:06');
  assert.equal(frozen.DONT_FAKE_MONOTONIC, '1');
});

test('property: PYTHONHASHSEED is a deterministic decimal in [0, 4294967295]', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 64 }), (seed) => {
      const h = pythonHashSeed(seed);
      assert.match(h, /^(0|[1-9][0-9]*)$/);
      assert.ok(Number(h) <= 4294967295);
      assert.equal(pythonHashSeed(seed), h);
    }),
  );
  assert.notEqual(pythonHashSeed('1'), pythonHashSeed('2'));
});

test('planClock: live and frozen need nothing; frozen:<instant> needs libfaketime and is refused without it', () => {
  assert.deepEqual(planClock('live', null), { kind: 'live' });
  assert.deepEqual(planClock('frozen', null), { kind: 'fixture' });
  assert.deepEqual(planClock('frozen:2001-02-03T05:05:06+01:00', '/lib/f.so'), {
    kind: 'faketime',
    faketime: '2001-02-03 04:05:06',
    library: '/lib/f.so',
  });
  const refused = planClock('frozen:2001-02-03T04:05:06Z', null);
  assert.ok('problem' in refused);
  assert.match(refused.problem, /libfaketime.*not installed.*faketime/);
  for (const bad of ['frozen:2001-02-03T04:05:06.5Z', 'frozen:yesterday', 'frozen:1960-01-01T00:00:00Z', 'sometimes']) {
    assert.ok('problem' in planClock(bad, '/lib/f.so'), bad);
  }
});

test('findLibfaketime finds the first existing candidate, or null', () => {
  const t = tempDir();
  try {
    assert.equal(findLibfaketime([join(t.dir, 'nope.so')]), null);
    assert.equal(findLibfaketime([join(t.dir, 'nope.so'), t.dir]), t.dir);
  } finally {
    t.dispose();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PASS_FAIL_XML, RUNNER, makeSealedRepo, shWritingJunit } from './helpers.js';

/**
 * The barrier at the storage boundary, with real operating-system users: the runner (root
 * here, as in CI) writes the logs; a process under another uid (nobody, 65534) stands in for
 * the author job. It must not read them before `publish`, and must read the copy after.
 */

const OTHER = 65534;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function asOther(cwd: string, argv: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(argv[0] as string, argv.slice(1), {
    cwd,
    uid: OTHER,
    gid: OTHER,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' },
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A copy of the built CLI (the launcher and its bundles) that the other user can load: the
 * checkout itself may sit in a folder only root can enter (a home folder, a 0700 temporary
 * folder), which the other user cannot read, so running it from there would test the path,
 * not the barrier.
 */
function installForOther(): { bin: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-other-'));
  chmodSync(dir, 0o755);
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist', 'bundle'), join(dir, 'dist', 'bundle'), {
    recursive: true,
    filter: (src) => !src.endsWith('.map'),
  });
  for (const d of [join(dir, 'bin'), join(dir, 'dist'), join(dir, 'dist', 'bundle')]) chmodSync(d, 0o755);
  return { bin: join(dir, 'bin', 'sealgate.js'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The built sealgate CLI, as the other user. */
function sealgateAsOther(bin: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: '/',
    uid: OTHER,
    gid: OTHER,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' },
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('another uid cannot read the logs before publish, and can read the published copy after', async (t) => {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    t.skip('needs root to start a process under another uid (65534); the CI runs as root');
    return;
  }
  const cli = installForOther();
  t.after(cli.dispose);
  const repo = await makeSealedRepo({
    config: {
      test: {
        command: shWritingJunit(PASS_FAIL_XML, 1, 'echo SECRET-STACK-TRACE; echo SECRET-STDERR >&2'),
        junit: ['junit.xml'],
      },
    },
  });
  try {
    assert.equal((await repo.cli('run', '--runner-job', RUNNER)).exit, 0);
    // The other user can reach the repository: what stops it below is the barrier, not the path.
    const control = asOther(repo.dir, ['cat', 'review/proposal.json']);
    assert.equal(control.status, 0, `uid ${OTHER} cannot even read the record: ${control.stderr}`);

    for (const file of [
      'review/runner/logs/stdout.log',
      'review/runner/logs/stderr.log',
      'review/runner/logs/junit-1.xml',
      'review/runner/results.json',
      'review/runner/journal.jsonl',
    ]) {
      const r = asOther(repo.dir, ['cat', file]);
      assert.notEqual(r.status, 0, `uid ${OTHER} read ${file} before publish`);
      assert.doesNotMatch(r.stdout, /SECRET/);
      assert.match(r.stderr, /Permission denied/);
    }
    assert.notEqual(asOther(repo.dir, ['ls', 'review/runner/logs']).status, 0, 'the store can be listed');
    const early = sealgateAsOther(cli.bin, ['logs', '--repo', repo.dir, 'stdout.log']);
    assert.equal(early.stdout, 'E_LOGS_EARLY\n', early.stderr);

    assert.equal((await repo.cli('publish', '--runner-job', RUNNER)).exit, 0);
    const after = asOther(repo.dir, ['cat', 'review/logs/stdout.log']);
    assert.equal(after.status, 0, after.stderr);
    assert.equal(after.stdout, 'SECRET-STACK-TRACE\n');
    assert.equal(asOther(repo.dir, ['cat', 'review/runner/results.json']).status, 0, 'results readable after publish');
    assert.notEqual(
      asOther(repo.dir, ['cat', 'review/runner/logs/stdout.log']).status,
      0,
      'the hidden store itself stays private',
    );
    const reader = sealgateAsOther(cli.bin, ['logs', '--repo', repo.dir, 'stdout.log']);
    assert.equal(reader.status, 0, reader.stdout + reader.stderr);
    assert.equal(reader.stdout, 'SECRET-STACK-TRACE\n');
  } finally {
    repo.dispose();
  }
});

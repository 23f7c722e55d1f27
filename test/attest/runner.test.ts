import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { toJsonText } from '../../src/core/json.js';
import { LAYOUT } from '../../src/core/layout.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, tempDir } from '../helpers/git.js';
import { AUTHOR, EXAMPLE_DIR, FOLLOW_UP_PATCH, NOW, RUNNER, exampleFiles } from '../workflow/review.js';
import { keygen } from './helpers.js';

test('runner --signing-key: the job signs its evidence, verify checks it, and no test run sees the key or its variable', async () => {
  const r = makeRepo(exampleFiles());
  const t = tempDir();
  try {
    symlinkSync(resolve('node_modules'), join(r.dir, 'node_modules'), 'dir');
    const k = await keygen(join(t.dir, 'runner'));
    const configPath = join(r.dir, 'sealgate.config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as { test: { command: string[] } };
    // Every test execution (the sealed run and the oracle's) prints its whole environment first.
    const [program, ...args] = config.test.command;
    config.test.command = ['sh', '-c', 'env | sort; exec "$0" "$@"', program as string, ...args];
    writeFileSync(configPath, toJsonText({ ...config, trust: { runnerKeys: [k.pem] } }));
    git(r.dir, 'commit', '-qam', 'trust the runner key');
    writeFileSync(join(r.dir, 'p.diff'), readFileSync(join(EXAMPLE_DIR, FOLLOW_UP_PATCH)));
    const p = await runCli(
      ['propose', '--repo', r.dir, '--author-job', AUTHOR, '--runner-job', RUNNER, '--patch', 'p.diff'],
      { cwd: r.dir },
    );
    assert.equal(p.exit, 0, p.stderr);
    git(r.dir, 'apply', 'p.diff');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: t.dir, SEALGATE_SIGNING_KEY: k.priv };
    const unsigned = await runCli(['runner', '--repo', r.dir, '--runner-job', RUNNER, '--seed', '42', '--now', NOW], {
      cwd: r.dir,
      env: { PATH: env.PATH },
    });
    assert.equal(unsigned.exit, 2, 'a trust policy with no key to sign with is refused before anything runs');
    const out = await runCli(['runner', '--repo', r.dir, '--runner-job', RUNNER, '--seed', '42', '--now', NOW], {
      cwd: r.dir,
      env,
    });
    assert.equal(out.stdout, 'ALLOW\n', out.stderr);
    assert.match(out.stderr, /^runner: attest +ok +\d+ evidence file\(s\) signed by sha256:/m);
    const logs = readdirSync(join(r.dir, LAYOUT.publishedLogs));
    assert.ok(logs.length > 0);
    const text = logs.map((f) => readFileSync(join(r.dir, LAYOUT.publishedLogs, f), 'utf8')).join('\n');
    assert.match(text, /^PATH=/m, 'the logs do hold the environment the tests saw');
    assert.doesNotMatch(text, /SEALGATE_SIGNING_KEY/);
    assert.ok(!text.includes(k.priv), 'the key path is not in any log');
    assert.ok(!text.includes('PRIVATE KEY'), 'the key is not in any log');
    assert.ok(!out.stderr.includes(k.priv) && !out.stderr.includes('PRIVATE KEY'));
    const v = await runCli(['verify', '--repo', r.dir, '--now', NOW], { cwd: r.dir });
    assert.equal(v.stdout, 'ALLOW\n', v.stderr);
    // The published log is a subject: editing it after the seal breaks the signature.
    writeFileSync(join(r.dir, LAYOUT.publishedLogs, logs[0] as string), 'edited\n');
    const edited = await runCli(['verify', '--repo', r.dir, '--now', NOW], { cwd: r.dir });
    assert.equal(edited.stdout, 'E_SIGNATURE_INVALID\n');
  } finally {
    r.dispose();
    t.dispose();
  }
});

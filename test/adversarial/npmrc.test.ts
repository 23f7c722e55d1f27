// The patch adds an .npmrc with `script-shell=./ci/sh`: any npm or npx run in a tree holding
// it runs the agent's shell instead, which can print ALLOW for any evidence. The workflow
// never materialises the patch in the gate's checkout; this test puts the files there anyway
// (the worst case) and runs the gate job's own verify line from the template, by absolute
// path: the agent's shell never runs, and the forged evidence ends in a reject.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { LAYOUT } from '../../src/core/layout.js';
import { toJsonText } from '../../src/core/json.js';
import { tempDir } from '../helpers/git.js';
import { allowed, attest, keygen } from '../attest/helpers.js';

interface Step {
  run?: string;
}
const workflow = parse(readFileSync('examples/github-actions/sealgate.yml', 'utf8')) as {
  jobs: { gate: { steps: Step[] } };
};
const verifyLine = workflow.jobs.gate.steps.map((s) => s.run ?? '').find((r) => r.includes('verify')) ?? '';

test('adversarial: an .npmrc with script-shell in the patch never runs in the gate job; forged evidence is still a reject', async () => {
  const t = tempDir();
  const k = await keygen(join(t.dir, 'runner'));
  const r = await allowed({ runnerKeys: [k.pem] });
  try {
    assert.equal((await attest(r.dir, k.priv)).exit, 0);
    // The agent's files, on disk in the gate's checkout (the workflow never puts them there).
    const marker = join(t.dir, 'agent-shell-ran');
    writeFileSync(join(r.dir, '.npmrc'), 'script-shell=./ci/sh\n');
    mkdirSync(join(r.dir, 'ci'));
    writeFileSync(join(r.dir, 'ci/sh'), `#!/bin/sh\ntouch ${JSON.stringify(marker)}\necho ALLOW\nexit 0\n`);
    chmodSync(join(r.dir, 'ci/sh'), 0o755);
    const pkg = JSON.parse(readFileSync(join(r.dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(
      join(r.dir, 'package.json'),
      toJsonText({ ...pkg, scripts: { verify: 'sealgate verify --review review --now 2026-10-12T12:00:00Z' } }),
    );
    // And forged evidence the agent wants through.
    const credit = JSON.parse(readFileSync(join(r.dir, LAYOUT.credit), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(r.dir, LAYOUT.credit), toJsonText({ ...credit, credit_id: 'credit-forged' }));

    // BASE_SHA as the workflow sets it: the pull request's base, here the commit the evidence was made on.
    const baseSha = (JSON.parse(readFileSync(join(r.dir, LAYOUT.record), 'utf8')) as { base_commit: string })
      .base_commit;
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: t.dir,
      npm_config_update_notifier: 'false',
      SEALGATE: resolve('bin/sealgate.js'),
      GITHUB_STEP_SUMMARY: join(t.dir, 'summary'),
      BASE_SHA: baseSha,
    };
    // Control: in this tree, npm does run the agent's shell (the hijack is live).
    const npm = spawnSync('npm', ['run', '--silent', 'verify'], { cwd: r.dir, env, encoding: 'utf8' });
    assert.equal(existsSync(marker), true, `npm run used the patch's script-shell: ${npm.stdout}${npm.stderr}`);
    assert.match(npm.stdout, /ALLOW/);
    spawnSync('rm', ['-f', marker]);

    // The gate job's own line, as the template has it.
    assert.match(verifyLine, /^node "\$SEALGATE" verify /);
    const gate = spawnSync('bash', ['-c', verifyLine], { cwd: r.dir, env, encoding: 'utf8' });
    assert.equal(existsSync(marker), false, "the agent's shell never ran");
    assert.equal(gate.stdout, 'E_SIGNATURE_INVALID\n', gate.stderr);
    assert.equal(gate.status, 1);
  } finally {
    r.dispose();
    t.dispose();
  }
});

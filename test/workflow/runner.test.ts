import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo } from '../helpers/git.js';
import { AGENT_PATCH, AUTHOR, EXAMPLE_DIR, NOW, RUNNER, exampleFiles } from './review.js';

function proposed() {
  const r = makeRepo(exampleFiles());
  writeFileSync(join(r.dir, 'p.diff'), readFileSync(join(EXAMPLE_DIR, AGENT_PATCH)));
  return r;
}

test('runner: the author id as runner stops at the seal with E_SHARED_JOB; nothing is sealed or run', async () => {
  const r = proposed();
  try {
    const p = await runCli(['propose', '--repo', r.dir, '--author-job', AUTHOR, '--runner-job', RUNNER, '--patch', 'p.diff'], { cwd: r.dir });
    assert.equal(p.exit, 0, p.stderr);
    const out = await runCli(['runner', '--repo', r.dir, '--runner-job', AUTHOR, '--seed', '42', '--now', NOW], { cwd: r.dir });
    assert.deepEqual([out.stdout, out.exit], ['E_SHARED_JOB\n', 1]);
    assert.match(out.stderr, /^runner: seal +E_SHARED_JOB/m);
    assert.doesNotMatch(out.stderr, /runner: run /);
    assert.equal(existsSync(join(r.dir, LAYOUT.status)), false);
    assert.equal(existsSync(join(r.dir, LAYOUT.results)), false);
  } finally {
    r.dispose();
  }
});

test('runner: without a seed the seal is a usage error and the job stops there', async () => {
  const r = proposed();
  try {
    await runCli(['propose', '--repo', r.dir, '--author-job', AUTHOR, '--runner-job', RUNNER, '--patch', 'p.diff'], { cwd: r.dir });
    const out = await runCli(['runner', '--repo', r.dir, '--runner-job', RUNNER, '--now', NOW], { cwd: r.dir, env: {} });
    assert.equal(out.stdout, 'E_INPUT_INVALID\n');
    assert.match(out.stderr, /^runner: seal +E_INPUT_INVALID/m);
  } finally {
    r.dispose();
  }
});

test('runner: no record is E_INPUT_INVALID; bad arguments are usage errors', async () => {
  const r = proposed();
  try {
    assert.equal((await runCli(['runner', '--repo', r.dir, '--runner-job', RUNNER], { cwd: r.dir })).stdout, 'E_INPUT_INVALID\n');
    const bad = await runCli(['runner', '--repo', r.dir, '--runner-job', 'a b'], { cwd: r.dir });
    assert.deepEqual([bad.stdout, bad.exit], ['E_INPUT_INVALID\n', 2]);
  } finally {
    r.dispose();
  }
});

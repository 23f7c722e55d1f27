import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_PATCH, agentPatch, assertHonest, exampleRepo, propose, runAndVerify, writePatch } from './helpers.js';

/**
 * The patch rewrites its own grading through sealgate.config.json. The policy is read at
 * the base commit (the sealed policy is the base's bytes), and the patch touches the policy
 * surface, so each attack ends in E_POLICY_CHANGED before any test runs, never ALLOW.
 */
const editConfig =
  (f: (c: Record<string, unknown>) => void) =>
  (old: string): string => {
    const c = JSON.parse(old) as Record<string, unknown>;
    f(c);
    return JSON.stringify(c, null, 2) + '\n';
  };

const ATTACKS: [string, Record<string, string | ((old: string) => string)>][] = [
  [
    'config self-ignore: the patch ignores the config and src/',
    {
      'sealgate.config.json': editConfig(
        (c) => void (c['ignorePatterns'] = ['sealgate.config.json', 'src/**', '*.md']),
      ),
    },
  ],
  [
    'test command replaced by a script that writes a passing JUnit file',
    {
      'fake.sh':
        '#!/bin/sh\ncat > junit.xml <<\'EOF\'\n<testsuites><testsuite name="pricing" tests="1"><testcase classname="pricing" name="tax is bounded by the rate"/></testsuite></testsuites>\nEOF\n',
      'sealgate.config.json': editConfig(
        (c) => void ((c['test'] as Record<string, unknown>)['command'] = ['sh', 'fake.sh']),
      ),
    },
  ],
  [
    'mutant budget lowered to one',
    { 'sealgate.config.json': editConfig((c) => void (c['credit'] = { mutantBudget: 1 })) },
  ],
];

for (const [name, edit] of ATTACKS) {
  test(`adversarial: ${name} -> the base's policy is sealed, and the change is E_POLICY_CHANGED`, async () => {
    const r = exampleRepo();
    try {
      const patch = writePatch(r.dir, 'attack.diff', agentPatch(r.dir, AGENT_PATCH, edit));
      assert.equal((await propose(r.dir, patch)).exit, 0);
      const out = await runAndVerify(r.dir);
      assertHonest(out.runner, 'E_POLICY_CHANGED', /sealgate\.config\.json, a policy file/);
      assertHonest(out.verify, 'E_POLICY_CHANGED', /sealgate\.config\.json/);
      // The sealed policy is the base's bytes, not the patched config.
      const inputs = readFileSync(join(r.dir, 'review/runner/inputs.sha256'), 'utf8');
      const { createHash } = await import('node:crypto');
      const baseConfig = readFileSync(join(r.dir, 'sealgate.config.json'));
      assert.match(inputs, new RegExp(`^policy=${createHash('sha256').update(baseConfig).digest('hex')}$`, 'm'));
      assert.match(out.runner.stderr, /runner: policy +ok +[0-9a-f]{64} \([0-9a-f]{40}:sealgate\.config\.json\)/);
    } finally {
      r.dispose();
    }
  });
}

test('adversarial: a --policy file inside the repository is refused (E_INPUT_INVALID) before anything runs', async () => {
  const r = exampleRepo();
  try {
    const patch = writePatch(r.dir, 'p.diff', agentPatch(r.dir, AGENT_PATCH));
    assert.equal((await propose(r.dir, patch)).exit, 0);
    const { runCli } = await import('../helpers/cli.js');
    const inside = await runCli(
      ['runner', '--runner-job', 'server-job-88', '--seed', '42', '--policy', 'sealgate.config.json'],
      { cwd: r.dir },
    );
    assertHonest(inside, 'E_INPUT_INVALID', /--policy: .*inside the repository/);
  } finally {
    r.dispose();
  }
});

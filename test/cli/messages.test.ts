import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { DECISION_CODES } from '../../src/core/codes.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/git.js';

// Every refusal states its code once per line: "sealgate: E_X: path: detail", never "E_X: E_X: ...".

/** Each command's refusal paths: bad arguments, then the files it needs missing or broken. */
function refusals(dir: string): [string, string[]][] {
  const common: [string, string[]][] = Object.keys(COMMANDS).map((name) => [name, [name, '--no-such-option']]);
  const job = ['--runner-job', 'runner-job-1', '--repo', dir];
  return [
    ...common,
    [
      'gate',
      [
        'gate',
        '--record',
        join(dir, 'review/proposal.json'),
        '--credit',
        join(dir, 'credit.json'),
        '--now',
        '2026-10-12T12:00:00Z',
        '--repo',
        dir,
      ],
    ],
    ['gate', ['gate', '--record', 'x', '--credit', 'y', '--now', 'yesterday']],
    [
      'propose',
      ['propose', '--author-job', 'a', '--runner-job', 'b', '--patch', join(dir, 'missing.diff'), '--repo', dir],
    ],
    ['seal', ['seal', ...job, '--seed', '1']],
    ['seal', ['seal', '--verify', '--repo', dir]],
    ['run', ['run', ...job, '--', 'true']],
    ['publish', ['publish', ...job]],
    ['discard-logs', ['discard-logs', ...job]],
    ['logs', ['logs', '--repo', dir]],
    ['symbols', ['symbols', '--patch', join(dir, 'missing.diff'), '--repo', dir]],
    ['credit', ['credit', ...job]],
    ['credit', ['credit', '--cases', join(dir, 'bad.json'), '--digest', 'abc123']],
    ['runner', ['runner', ...job, '--seed', '1']],
    // A valid record, no config: the seal step refuses inside the runner job.
    ['runner', ['runner', '--runner-job', 'runner-job-1', '--repo', join(dir, 'ok'), '--seed', '1']],
    ['verify', ['verify', '--repo', dir]],
    ['explain', ['explain', '--repo', dir]],
    [
      'freeze',
      ['freeze', '--repo', dir, '--author-job', 'x', '--test-id', 't', '--expires-at', '2026-10-19T00:00:00Z'],
    ],
    ['init', ['init', '--repo', join(dir, 'nope')]],
    ['selftest', ['selftest', '--cases', join(dir, 'nope')]],
  ];
}

test("every command's refusal path states its code once per line", async () => {
  const t = tempDir('sealgate-messages-');
  try {
    mkdirSync(join(t.dir, 'review'), { recursive: true });
    // A broken record and case file, so the commands get past argument parsing to a file refusal.
    writeFileSync(join(t.dir, 'review/proposal.json'), '{"proposal_id": "p-1", "proposal_id": "p-2"}');
    writeFileSync(join(t.dir, 'bad.json'), '{"changed": [');
    mkdirSync(join(t.dir, 'ok/review'), { recursive: true });
    const record = {
      proposal_id: 'p-1',
      author_job: 'author-job-1',
      runner_job: 'runner-job-1',
      patch_path: 'p.diff',
      digest_status: 'open',
      logs_present: false,
      logs_after_seal: true,
      log_visibility: 'hidden',
    };
    writeFileSync(join(t.dir, 'ok/review/proposal.json'), JSON.stringify(record));
    const seen = new Set<string>();
    for (const [name, argv] of refusals(t.dir)) {
      const r = await runCli(argv, { cwd: t.dir });
      assert.notEqual(r.exit, 0, `${argv.join(' ')} should refuse`);
      seen.add(name);
      for (const line of `${r.stdout}${r.stderr}`.split('\n')) {
        for (const code of DECISION_CODES) {
          assert.ok(line.split(code).length <= 2, `${argv.join(' ')}: "${line}" states ${code} more than once`);
        }
      }
    }
    assert.deepEqual([...seen].sort(), Object.keys(COMMANDS).sort(), 'every command is covered');
  } finally {
    t.dispose();
  }
});

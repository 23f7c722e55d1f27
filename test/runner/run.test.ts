import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRecordTree } from '../../src/tree/build.js';
import { readPolicy } from '../../src/policy/read.js';
import { bindRecord } from '../helpers/git.js';
import { SealgateError } from '../../src/core/errors.js';
import { findLibfaketime } from '../../src/runner/env.js';
import { readJournal } from '../../src/store/journal.js';
import { readResults } from '../../src/runner/results.js';
import { runSealedTests } from '../../src/runner/run.js';
import { AUTHOR, ENV, ONE_CASE, PASS_FAIL_XML, RUNNER, makeSealedRepo, shWritingJunit } from './helpers.js';

const mode = (p: string): number => statSync(p).mode & 0o777;

test('a failing test command is a result: exit 0, results and journal recorded, logs private, record derived', async () => {
  const repo = await makeSealedRepo({
    config: {
      test: { command: shWritingJunit(PASS_FAIL_XML, 1, 'echo to-stdout; echo to-stderr >&2'), junit: ['junit.xml'] },
    },
  });
  try {
    const r = await repo.cli('run', '--runner-job', RUNNER);
    assert.equal(r.exit, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /exited 1 .*\ncases: 2 \(1 passed, 1 failed, 0 error, 0 skipped\); JUnit: junit\.xml ok/);
    const results = readResults(repo.dir);
    assert.equal(results.exit_code, 1);
    assert.equal(results.runner_job, RUNNER);
    assert.equal(results.digest, repo.read('review/runner/digest.txt').trim());
    assert.deepEqual(
      results.cases.map((c) => [c.id, c.status]),
      [
        ['demo.Spec::passes', 'passed'],
        ['demo.Spec::fails', 'failed'],
      ],
    );
    assert.equal(results.junit[0]?.status, 'ok');
    // Everything the run produced is in the store, private; nothing is left in the working tree.
    const store = join(repo.dir, 'review/runner/logs');
    assert.equal(mode(store), 0o700);
    assert.deepEqual(readdirSync(store).sort(), ['junit-1.xml', 'stderr.log', 'stdout.log']);
    for (const f of readdirSync(store)) assert.equal(mode(join(store, f)), 0o600, f);
    assert.equal(existsSync(join(repo.dir, 'junit.xml')), false);
    assert.equal(repo.read('review/runner/logs/stdout.log'), 'to-stdout\n');
    assert.equal(mode(join(repo.dir, 'review/runner/results.json')), 0o600);
    assert.equal(existsSync(join(repo.dir, 'review/logs')), false);
    assert.deepEqual(
      readJournal(repo.dir).map((e) => e.type),
      ['seal', 'run-start', 'log', 'log', 'log', 'run-end'],
    );
    const rec = repo.record();
    assert.deepEqual([rec.logs_present, rec.logs_after_seal, rec.log_visibility], [true, true, 'hidden']);
  } finally {
    repo.dispose();
  }
});

test('the sealed inputs are pinned in the environment of the test command', async () => {
  const repo = await makeSealedRepo();
  try {
    const r = await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'sh', '-c', 'env | sort');
    assert.equal(r.exit, 0, r.stderr);
    const env = Object.fromEntries(
      repo
        .read('review/runner/logs/stdout.log')
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    assert.equal(env.SEED, '1234');
    assert.equal(env.TZ, 'UTC');
    assert.equal(env.LC_ALL, 'C.UTF-8');
    assert.equal(env.LANG, 'C.UTF-8');
    assert.equal(env.SEALGATE_CLOCK, 'live');
    assert.equal(env.SEALGATE_DIGEST, repo.read('review/runner/digest.txt').trim());
    assert.match(env.PYTHONHASHSEED ?? '', /^[0-9]+$/);
    assert.equal(env.LD_PRELOAD, undefined);
  } finally {
    repo.dispose();
  }
});

test('refusals: unsealed, another runner job, the author job', async () => {
  const repo = await makeSealedRepo({ seal: false });
  try {
    let r = await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'true');
    assert.equal(r.stdout, 'E_DIGEST_OPEN\n');
    assert.equal(r.exit, 1);
    assert.equal((await repo.cli('seal', '--runner-job', RUNNER)).exit, 0);
    r = await repo.cli('run', '--runner-job', 'someone-else', '--', 'true');
    assert.equal(r.stdout, 'E_INPUT_INVALID\n');
    assert.match(r.stderr, /names runner job "runner-job-1", not "someone-else"/);
    r = await repo.cli('run', '--runner-job', AUTHOR, '--', 'true');
    assert.equal(r.stdout, 'E_SHARED_JOB\n');
    assert.equal(existsSync(join(repo.dir, 'review/runner/logs')), false, 'a refused run writes no logs');
    r = await repo.cli('run', '--runner-job', RUNNER);
    assert.equal(r.exit, 2, 'no command anywhere is a usage error');
  } finally {
    repo.dispose();
  }
});

test('drift after the seal: the run reopens the seal (logs and credit gone) and refuses with E_DIGEST_OPEN', async () => {
  const repo = await makeSealedRepo();
  try {
    assert.equal((await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'echo', 'first')).exit, 0);
    repo.write('fixtures/orders.json', '{"orders":[1,2,3,4]}\n');
    const r = await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'echo', 'second');
    assert.equal(r.stdout, 'E_DIGEST_OPEN\n');
    assert.match(r.stderr, /fixtures\/orders\.json/);
    assert.equal(repo.read('review/runner/digest.status'), 'open\n');
    assert.equal(repo.record().digest_status, 'open');
    assert.equal(existsSync(join(repo.dir, 'review/runner/logs')), false);
    assert.equal(readJournal(repo.dir).at(-1)?.type, 'reopen');
  } finally {
    repo.dispose();
  }
});

test('logs not written by a run after the seal: E_LOGS_EARLY for run and publish, recorded; discard-logs clears it', async () => {
  const repo = await makeSealedRepo();
  try {
    mkdirSync(join(repo.dir, 'review/runner/logs'), { recursive: true });
    writeFileSync(join(repo.dir, 'review/runner/logs/stdout.log'), 'a stack trace from before the seal\n');
    let r = await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'true');
    assert.equal(r.stdout, 'E_LOGS_EARLY\n');
    let rec = repo.record();
    assert.deepEqual([rec.logs_present, rec.logs_after_seal, rec.log_visibility], [true, false, 'hidden']);
    r = await repo.cli('publish', '--runner-job', RUNNER);
    assert.equal(r.stdout, 'E_LOGS_EARLY\n');
    assert.equal(existsSync(join(repo.dir, 'review/logs')), false);
    r = await repo.cli('discard-logs', '--runner-job', AUTHOR);
    assert.equal(r.stdout, 'E_SHARED_JOB\n');
    r = await repo.cli('discard-logs', '--runner-job', RUNNER);
    assert.equal(r.exit, 0, r.stderr);
    rec = repo.record();
    assert.deepEqual([rec.logs_present, rec.logs_after_seal, rec.log_visibility], [false, true, 'hidden']);
    assert.equal(existsSync(join(repo.dir, 'review/runner/logs')), false);
    r = await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'true');
    assert.equal(r.exit, 0, r.stderr);
    assert.ok(readJournal(repo.dir).some((e) => e.type === 'discard'));
  } finally {
    repo.dispose();
  }
});

test('a log file replaced after the run is not one the journal accounts for: publish refuses', async () => {
  const repo = await makeSealedRepo();
  try {
    assert.equal((await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'echo', 'real')).exit, 0);
    writeFileSync(join(repo.dir, 'review/runner/logs/stdout.log'), 'forged\n');
    const r = await repo.cli('publish', '--runner-job', RUNNER);
    assert.equal(r.stdout, 'E_LOGS_EARLY\n');
    assert.equal(repo.record().logs_after_seal, false);
  } finally {
    repo.dispose();
  }
});

test('a readable copy that no publish made is E_LOGS_EARLY', async () => {
  const repo = await makeSealedRepo();
  try {
    mkdirSync(join(repo.dir, 'review/logs'), { recursive: true });
    writeFileSync(join(repo.dir, 'review/logs/stdout.log'), 'leaked\n');
    const r = await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'true');
    assert.equal(r.stdout, 'E_LOGS_EARLY\n');
  } finally {
    repo.dispose();
  }
});

test('publish, then the author reader: refused before, readable after', async () => {
  const repo = await makeSealedRepo({
    seal: false,
    config: { test: { command: shWritingJunit(PASS_FAIL_XML, 1, 'echo hello-log'), junit: ['junit.xml'] } },
  });
  try {
    let r = await repo.cli('logs');
    assert.equal(r.stdout, 'E_DIGEST_OPEN\n');
    assert.equal((await repo.cli('seal', '--runner-job', RUNNER)).exit, 0);
    r = await repo.cli('publish', '--runner-job', RUNNER);
    assert.equal(r.stdout, 'E_INPUT_INVALID\n', 'nothing to publish before a run');
    assert.equal((await repo.cli('run', '--runner-job', RUNNER)).exit, 0);
    r = await repo.cli('logs');
    assert.equal(r.stdout, 'E_LOGS_EARLY\n');
    assert.equal(r.exit, 1);
    r = await repo.cli('publish', '--runner-job', AUTHOR);
    assert.equal(r.stdout, 'E_SHARED_JOB\n');
    r = await repo.cli('publish', '--runner-job', RUNNER);
    assert.equal(r.exit, 0, r.stderr);
    const pub = join(repo.dir, 'review/logs');
    assert.equal(mode(pub), 0o755);
    for (const f of readdirSync(pub)) assert.equal(mode(join(pub, f)), 0o644, f);
    assert.equal(mode(join(repo.dir, 'review/runner/results.json')), 0o644);
    assert.equal(repo.record().log_visibility, 'published');
    assert.equal(readJournal(repo.dir).at(-1)?.type, 'publish');
    r = await repo.cli('logs');
    assert.equal(r.exit, 0);
    assert.match(r.stdout, /^junit-1\.xml\t\d+\nstderr\.log\t0\nstdout\.log\t10\n$/);
    r = await repo.cli('logs', 'stdout.log');
    assert.equal(r.stdout, 'hello-log\n');
    r = await repo.cli('logs', '../runner/journal.jsonl');
    assert.equal(r.stdout, 'E_INPUT_INVALID\n');
    // A published file edited afterwards no longer matches the journal.
    writeFileSync(join(pub, 'stdout.log'), 'edited\n');
    r = await repo.cli('logs', 'stdout.log');
    assert.equal(r.stdout, 'E_LOGS_EARLY\n');
  } finally {
    repo.dispose();
  }
});

test("a stale JUnit file in the tree is never read (the run's copy drops it) nor touched; missing and malformed files give no cases, and a run with no case is refused naming them", async () => {
  const repo = await makeSealedRepo({
    files: { 'junit.xml': PASS_FAIL_XML.replace('<failure message="boom">stack</failure>', '') },
    config: { test: { junit: ['junit.xml', 'out/bad.xml'] } },
  });
  try {
    const r = await repo.cli(
      'run',
      '--runner-job',
      RUNNER,
      '--',
      'sh',
      '-c',
      'mkdir -p out; printf "<testsuite><testcase name=\\"x\\">" > out/bad.xml',
    );
    assert.equal(r.stdout, 'E_INPUT_INVALID\n');
    assert.equal(r.exit, 1);
    assert.match(
      r.stderr,
      /the run reported no test case; JUnit read: junit\.xml \(missing: the test command did not write it\), out\/bad\.xml \(malformed: /,
    );
    assert.equal(r.stderr.split('E_INPUT_INVALID').length, 2, 'the code is stated once');
    const results = readResults(repo.dir);
    assert.deepEqual(
      results.junit.map((j) => j.status),
      ['missing', 'malformed'],
    );
    assert.deepEqual(results.cases, []);
    // The user's tree is never written: the stale file is still there, and out/ was made only in the run's copy.
    assert.equal(existsSync(join(repo.dir, 'junit.xml')), true);
    assert.equal(existsSync(join(repo.dir, 'out')), false);
  } finally {
    repo.dispose();
  }
});

test('zero test cases: a JUnit file with no <testcase>, or no JUnit path configured, is refused (results still recorded)', async () => {
  for (const [config, argv, why] of [
    [
      { test: { junit: ['junit.xml'] } },
      shWritingJunit('<testsuites name="vitest tests" tests="0"></testsuites>', 0),
      /JUnit read: junit\.xml \(ok, no <testcase>\); the command exited 0/,
    ],
    [{ test: { junit: [] } }, ['true'], /no JUnit path is configured/],
  ] as const) {
    const repo = await makeSealedRepo({ config });
    try {
      const r = await repo.cli('run', '--runner-job', RUNNER, '--', ...argv);
      assert.deepEqual([r.stdout, r.exit], ['E_INPUT_INVALID\n', 1], r.stderr);
      assert.match(r.stderr, why);
      assert.deepEqual(readResults(repo.dir).cases, []);
      assert.equal(readJournal(repo.dir).at(-1)?.type, 'run-end');
    } finally {
      repo.dispose();
    }
  }
});

test('a JUnit path outside the repository or inside review/ is refused', async () => {
  for (const junit of ['../x.xml', '/tmp/x.xml', 'review/logs/j.xml']) {
    const repo = await makeSealedRepo({ config: { test: { junit: [junit] } } });
    try {
      const r = await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'true');
      assert.equal(r.stdout, 'E_INPUT_INVALID\n', junit);
    } finally {
      repo.dispose();
    }
  }
});

test('the timeout kills the command; the run is still recorded and exits 0', async () => {
  const repo = await makeSealedRepo();
  try {
    const t0 = Date.now();
    const r = await repo.cli(
      'run',
      '--runner-job',
      RUNNER,
      '--timeout',
      '1',
      '--',
      ...ONE_CASE,
      'sh',
      '-c',
      'echo started; sleep 30',
    );
    assert.equal(r.exit, 0, r.stderr);
    assert.ok(Date.now() - t0 < 10_000);
    assert.match(r.stdout, /timed out \(process group killed\)/);
    const results = readResults(repo.dir);
    assert.equal(results.timed_out, true);
    assert.equal(results.exit_code, null);
    assert.equal(readJournal(repo.dir).at(-1)?.type, 'run-end');
  } finally {
    repo.dispose();
  }
});

test('a command that cannot start is an error (exit 1) but the run is still closed in the journal', async () => {
  const repo = await makeSealedRepo();
  try {
    const r = await repo.cli('run', '--runner-job', RUNNER, '--', 'sealgate-no-such-program');
    assert.equal(r.stdout, 'E_INPUT_INVALID\n');
    assert.equal(r.exit, 1);
    assert.match(r.stderr, /could not start/);
    assert.equal(readJournal(repo.dir).at(-1)?.type, 'run-end');
    assert.equal(readResults(repo.dir).exit_code, null);
  } finally {
    repo.dispose();
  }
});

test('clock frozen:<instant> is refused, not run live, where libfaketime is missing', async () => {
  const repo = await makeSealedRepo({ clock: 'frozen:2001-02-03T04:05:06Z' });
  try {
    await assert.rejects(
      (async () => {
        const tree = buildRecordTree(repo.dir);
        const policy = readPolicy({ repo: repo.dir, baseCommit: tree.baseCommit });
        try {
          return await runSealedTests({
            repo: repo.dir,
            runnerJob: RUNNER,
            command: ['true'],
            config: policy.config,
            policy,
            tree,
            baseEnv: ENV,
            clock: () => new Date(),
            libfaketime: null,
          });
        } finally {
          tree.dispose();
        }
      })(),
      (err: unknown) =>
        err instanceof SealgateError &&
        err.code === 'E_INPUT_INVALID' &&
        /libfaketime.*not installed/.test(err.message),
    );
    assert.equal(existsSync(join(repo.dir, 'review/runner/logs')), false);
  } finally {
    repo.dispose();
  }
});

test('clock frozen:<instant> holds the wall clock of the test process (libfaketime)', async (t) => {
  if (findLibfaketime() === null) {
    t.skip('libfaketime is not installed (apt-get install faketime); the frozen clock cannot be shown here');
    return;
  }
  const repo = await makeSealedRepo({ clock: 'frozen:2001-02-03T04:05:06Z' });
  try {
    const script =
      'console.log(new Date().toISOString()); setTimeout(() => console.log(new Date().toISOString(), "timers run"), 50);';
    const r = await repo.cli(
      'run',
      '--runner-job',
      RUNNER,
      '--',
      ...ONE_CASE,
      'sh',
      '-c',
      `date -u +%Y-%m-%dT%H:%M:%SZ; sleep 1; date -u +%Y-%m-%dT%H:%M:%SZ; ${JSON.stringify(process.execPath)} -e '${script}'`,
    );
    assert.equal(r.exit, 0, r.stderr);
    assert.match(r.stdout, /wall clock frozen at 2001-02-03 04:05:06 UTC/);
    assert.equal(
      repo.read('review/runner/logs/stdout.log'),
      '2001-02-03T04:05:06Z\n2001-02-03T04:05:06Z\n2001-02-03T04:05:06.000Z\n2001-02-03T04:05:06.000Z timers run\n',
    );
  } finally {
    repo.dispose();
  }
});

test('a YAML record keeps its comments; only the log fields change', async () => {
  const repo = await makeSealedRepo({ seal: false });
  try {
    repo.write(
      'review/proposal.yaml',
      `# proposal under review\nproposal_id: p-1\nauthor_job: ${AUTHOR} # the model\nrunner_job: ${RUNNER}\npatch_path: patches/1.diff\ndigest_status: open\nlogs_present: false\nlogs_after_seal: true\nlog_visibility: hidden\n`,
    );
    bindRecord(repo.dir, 'review/proposal.yaml', 'patches/1.diff');
    assert.equal((await repo.cli('seal', '--runner-job', RUNNER, '--record', 'review/proposal.yaml')).exit, 0);
    assert.equal((await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'echo', 'x')).exit, 0);
    const yaml = repo.read('review/proposal.yaml');
    assert.match(yaml, /^# proposal under review\n/);
    assert.match(yaml, /author_job: author-job-1 # the model\n/);
    assert.match(yaml, /\nlogs_present: true\nlogs_after_seal: true\nlog_visibility: hidden\n/);
    assert.equal(repo.record().logs_present, false, 'the JSON record beside it is not the sealed one and is untouched');
  } finally {
    repo.dispose();
  }
});

test('options end at --: a --help after it belongs to the test command', async () => {
  const repo = await makeSealedRepo();
  try {
    const r = await repo.cli('run', '--runner-job', RUNNER, '--', ...ONE_CASE, 'echo', '--help', '-h', '--json');
    assert.equal(r.exit, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^run: /);
    assert.equal(repo.read('review/runner/logs/stdout.log'), '--help -h --json\n');
    assert.match((await repo.cli('run', '--help')).stdout, /^Usage: sealgate run/);
  } finally {
    repo.dispose();
  }
});

test('a JUnit file over the size limit (here a sparse one claiming 8 GiB) is not taken into the store, hashed or journaled: the run refused', async () => {
  const repo = await makeSealedRepo({
    config: { test: { command: ['sh', '-c', 'truncate -s 8G junit.xml'], junit: ['junit.xml'] } },
  });
  try {
    const r = await repo.cli('run', '--runner-job', RUNNER);
    assert.equal(r.stdout.trim(), 'E_INPUT_INVALID', r.stderr);
    const results = readResults(repo.dir);
    assert.equal(results.junit[0]?.status, 'missing');
    assert.equal(results.junit[0]?.sha256, null);
    assert.match(
      results.junit[0]?.detail ?? '',
      /8589934592 bytes, over the 67108864-byte limit of a report: not taken/,
    );
    assert.match(r.stderr, /the run reported no test case; JUnit read: junit\.xml \(missing: 8589934592 bytes/);
    assert.deepEqual(readdirSync(join(repo.dir, 'review/runner/logs')).sort(), ['stderr.log', 'stdout.log']);
    assert.ok(
      !readJournal(repo.dir).some((e) => e.type === 'log' && e.file.startsWith('junit')),
      'no journaled hash of it',
    );
  } finally {
    repo.dispose();
  }
});

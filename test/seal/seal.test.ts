import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../src/core/ids.js';
import { readJournal } from '../../src/store/journal.js';
import { runCli } from '../helpers/cli.js';
import { bindRecord, git, writeFiles } from '../helpers/git.js';
import { ARGS, RECORD, has, read, runSeal, seal, sealRepo, snapshot, verifySealCli } from './setup.js';

const FIXTURES_PLUS = {
  'fixtures/orders.json': '{"orders":[1,2,3]}\n',
  'fixtures/clock.json': '{"now":"2026-10-12T12:00:00Z"}\n',
  'fixtures/nested/prices.csv': 'sku,cents\nA,100\n',
  'fixtures/Zebra.json': '{}\n',
};

const SORTED = ['fixtures/clock.json', 'fixtures/nested/prices.csv', 'fixtures/orders.json'];

test('seal writes inputs.sha256, digest.txt, seal.json and digest.status, binds the record and journals the seal', async () => {
  const t = sealRepo();
  try {
    const r = await seal(t.dir);
    assert.equal(r.exit, 0, r.stderr);
    const inputs = read(t.dir, 'review/runner/inputs.sha256');
    const digest = sha256Hex(inputs);
    assert.equal(r.stdout, `${digest}\n`);
    assert.equal(read(t.dir, 'review/runner/digest.txt'), `${digest}\n`);
    assert.equal(read(t.dir, 'review/runner/digest.status'), 'sealed\n');
    const lines = inputs.split('\n');
    assert.deepEqual(
      lines.slice(0, 3).map((l) => l.slice(66)),
      SORTED,
    );
    for (const l of lines.slice(0, 3)) assert.match(l, /^[0-9a-f]{64} {2}fixtures\//);
    const tree = git(t.dir, 'rev-parse', 'HEAD^{tree}').trim();
    assert.equal(lines.length, 9);
    assert.deepEqual(lines.slice(3, 6), ['seed=42', 'clock=frozen', 'locale=C.UTF-8']);
    assert.match(lines[6] ?? '', /^tree=[0-9a-f]{40}$/);
    assert.notEqual(lines[6], `tree=${tree}`, 'the tree is base + patch, not the base');
    assert.deepEqual(lines.slice(7), ['policy=default', '']);
    // The record: three fields written, every other field and the key order unchanged.
    const rec = JSON.parse(read(t.dir, 'review/proposal.json')) as Record<string, unknown>;
    const bound = { patch_sha256: rec['patch_sha256'], base_commit: git(t.dir, 'rev-parse', 'HEAD').trim() };
    assert.deepEqual(Object.keys(rec), [...Object.keys(RECORD), 'patch_sha256', 'base_commit', 'digest']);
    assert.deepEqual(rec, { ...RECORD, ...bound, digest_status: 'sealed', digest, runner_job: 'server-job-88' });
    const events = readJournal(t.dir);
    assert.deepEqual(
      events.map((e) => [e.type, e.runner_job, e.digest]),
      [['seal', 'server-job-88', digest]],
    );
    const params = JSON.parse(read(t.dir, 'review/runner/seal.json')) as Record<string, unknown>;
    assert.deepEqual(params, {
      version: 2,
      runner_job: 'server-job-88',
      record: 'review/proposal.json',
      fixtures: ['fixtures/**'],
      seed: '42',
      clock: 'frozen',
      locale: 'C.UTF-8',
      files: 3,
      base_commit: bound.base_commit,
      tree: (lines[6] ?? '').slice(5),
      policy: 'default',
      policy_source: `default (no sealgate.config.* at ${bound.base_commit.slice(0, 12)})`,
      digest,
    });
  } finally {
    t.dispose();
  }
});

test("a reviewer reproduces the digest with coreutils alone: the spec's shell recipe over the same files", async () => {
  const t = sealRepo({ ...FIXTURES_PLUS, 'fixtures/sp ace/ünï.txt': 'ü\n', 'fixtures/empty.bin': '' });
  try {
    const r = await seal(t.dir, [], 'server-job-88', {});
    assert.equal(r.exit, 0, r.stderr);
    const files = read(t.dir, 'review/runner/inputs.sha256')
      .split('\n')
      .filter((l) => /^[0-9a-f]{64} {2}/.test(l))
      .map((l) => l.slice(66));
    assert.equal(files.length, 6);
    // The reviewer's recipe (docs/seal.md): git rebuilds the runner's tree from the record's
    // base and patch in a throwaway index, coreutils hash it.
    const recipe = [
      'set -eu',
      'out=$(mktemp -d)',
      'BASE=$(sed -n \'s/.*"base_commit": "\\([0-9a-f]*\\)".*/\\1/p\' review/proposal.json)',
      'export GIT_INDEX_FILE="$out/index"',
      'git read-tree "$BASE" && git apply --cached patches/014.diff',
      'TREE=$(git write-tree)',
      'mkdir "$out/tree" && git checkout-index -a --prefix="$out/tree/"',
      'if git cat-file -e "$BASE:sealgate.config.json" 2>/dev/null; then POLICY=$(git show "$BASE:sealgate.config.json" | sha256sum | awk \'{print $1}\'); else POLICY=default; fi',
      '(cd "$out/tree" && sha256sum "$@") > "$out/inputs.sha256"',
      `printf 'seed=%s\\nclock=%s\\nlocale=%s\\ntree=%s\\npolicy=%s\\n' "$SEED" frozen C.UTF-8 "$TREE" "$POLICY" >> "$out/inputs.sha256"`,
      `sha256sum "$out/inputs.sha256" | awk '{print $1}' > "$out/digest.txt"`,
      'cat "$out/digest.txt"; cmp "$out/inputs.sha256" review/runner/inputs.sha256; rm -r "$out"',
    ].join('\n');
    const out = execFileSync('sh', ['-c', recipe, 'sh', ...files], {
      cwd: t.dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        SEED: '42',
        LC_ALL: 'C',
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: t.dir,
      },
      encoding: 'utf8',
    });
    assert.equal(out, read(t.dir, 'review/runner/digest.txt'));
    // And the order is what `LC_ALL=C sort` gives for the matched files.
    const sorted = execFileSync('sh', ['-c', 'find fixtures -type f | LC_ALL=C sort'], { cwd: t.dir, encoding: 'utf8' })
      .trim()
      .split('\n');
    assert.deepEqual(files, sorted);
  } finally {
    t.dispose();
  }
});

test('a YAML record keeps its comments, order and styles; only the seal fields change', async () => {
  const yaml = [
    '# proposal record, written by the author job',
    'proposal_id: p-2026-10-12-014',
    'author_job: model-session-17 # the model',
    "runner_job: ''",
    'patch_path: "patches/014.diff"',
    'digest_status: open',
    'logs_present: false',
    'logs_after_seal: true',
    'log_visibility: hidden',
    '',
  ].join('\n');
  const t = sealRepo(undefined, {});
  try {
    writeFileSync(join(t.dir, 'review/proposal.yaml'), yaml);
    bindRecord(t.dir, 'review/proposal.yaml');
    const bound = read(t.dir, 'review/proposal.yaml');
    assert.match(bound, /\npatch_sha256: [0-9a-f]{64}\nbase_commit: [0-9a-f]{40}\n$/);
    const r = await seal(t.dir, ['--record', join(t.dir, 'review/proposal.yaml')]);
    assert.equal(r.exit, 0, r.stderr);
    const digest = r.stdout.trim();
    const after = read(t.dir, 'review/proposal.yaml');
    assert.equal(
      after,
      bound
        .replace("runner_job: ''", "runner_job: 'server-job-88'")
        .replace('digest_status: open', 'digest_status: sealed')
        .concat(`digest: ${digest}\n`),
    );
    assert.equal(
      (JSON.parse(read(t.dir, 'review/runner/seal.json')) as Record<string, unknown>).record,
      'review/proposal.yaml',
    );
  } finally {
    t.dispose();
  }
});

test('nothing is defaulted silently: a missing fixture glob, seed, clock or locale is a usage error', async () => {
  const t = sealRepo();
  try {
    const base = ['seal', '--repo', t.dir, '--runner-job', 'server-job-88'];
    const cases: [string[], RegExp][] = [
      [['--seed', '1', '--clock', 'frozen', '--locale', 'C'], /no fixtures/],
      [['--fixtures', 'fixtures/**', '--clock', 'frozen', '--locale', 'C'], /no seed/],
      [['--fixtures', 'fixtures/**', '--seed', '1', '--locale', 'C'], /no clock/],
      [['--fixtures', 'fixtures/**', '--seed', '1', '--clock', 'frozen'], /no locale/],
      [['--fixtures', 'fixtures/**', '--seed', '1', '--clock', 'sometimes', '--locale', 'C'], /--clock/],
      [['--fixtures', 'fixtures/**', '--seed', '1\n2', '--clock', 'frozen', '--locale', 'C'], /--seed/],
      [['--fixtures', 'fixtures/**', '--seed', '1', '--clock', 'frozen', '--locale', 'C UTF'], /--locale/],
      [['--fixtures', 'fixtures/**', '--clock', 'frozen', '--locale', 'C', '--seed', '1', '--bogus'], /bogus/],
    ];
    for (const [args, reason] of cases) {
      const r = await runCli([...base, ...args]);
      assert.equal(r.exit, 2, args.join(' '));
      assert.equal(r.stdout, 'E_INPUT_INVALID\n');
      assert.match(r.stderr, reason);
    }
    const noJob = await runSeal(['seal', '--repo', t.dir, ...ARGS]);
    assert.equal(noJob.exit, 2);
    assert.match(noJob.stderr, /--runner-job is required/);
    assert.equal(has(t.dir, 'review/runner'), false, 'a refused seal writes nothing');
  } finally {
    t.dispose();
  }
});

test('fixtures, clock and locale come from sealgate.config.json and the seed from $SEED; --seed and $SEED must agree', async () => {
  const t = sealRepo();
  try {
    // The policy is read at the base commit: commit it there.
    writeFileSync(
      join(t.dir, 'sealgate.config.json'),
      JSON.stringify({ fixtures: ['fixtures/*.json'], clock: 'frozen', locale: 'C.UTF-8' }) + '\n',
    );
    git(t.dir, 'add', 'sealgate.config.json');
    git(t.dir, 'commit', '-q', '-m', 'policy');
    const disagree = await runSeal(['seal', '--repo', t.dir, '--runner-job', 'server-job-88', '--seed', '1'], {
      env: { SEED: '2' },
    });
    assert.equal(disagree.exit, 2);
    assert.match(disagree.stderr, /disagree/);
    const r = await runSeal(['seal', '--repo', t.dir, '--runner-job', 'server-job-88'], { env: { SEED: '7' } });
    assert.equal(r.exit, 0, r.stderr);
    const inputs = read(t.dir, 'review/runner/inputs.sha256');
    assert.match(inputs, /seed=7\nclock=frozen\nlocale=C\.UTF-8\ntree=[0-9a-f]{40}\npolicy=[0-9a-f]{64}\n$/);
    assert.deepEqual(
      inputs
        .split('\n')
        .filter((l) => l.includes('  '))
        .map((l) => l.slice(66)),
      ['fixtures/clock.json', 'fixtures/orders.json'],
    );
  } finally {
    t.dispose();
  }
});

test('job rules: runner equal to author is E_SHARED_JOB; a record naming another runner job is refused; no author is E_JOB_MISSING', async () => {
  const t = sealRepo();
  try {
    const shared = await seal(t.dir, [], 'MODEL-SESSION-17');
    assert.equal(shared.stdout, 'E_SHARED_JOB\n');
    assert.equal(shared.exit, 1);
    const other = await seal(t.dir, [], 'server-job-99');
    assert.equal(other.stdout, 'E_INPUT_INVALID\n');
    assert.match(other.stderr, /server-job-88.*server-job-99/);
    writeFileSync(join(t.dir, 'review/proposal.json'), JSON.stringify({ ...RECORD, author_job: '' }, null, 2) + '\n');
    const missing = await seal(t.dir);
    assert.equal(missing.stdout, 'E_JOB_MISSING\n');
    assert.equal(has(t.dir, 'review/runner/digest.status'), false);
    // A record that names no runner job yet gets this one.
    writeFileSync(join(t.dir, 'review/proposal.json'), JSON.stringify({ ...RECORD, runner_job: null }, null, 2) + '\n');
    const ok = await seal(t.dir, [], 'server-job-99');
    assert.equal(ok.exit, 0, ok.stderr);
    assert.equal(
      (JSON.parse(read(t.dir, 'review/proposal.json')) as Record<string, unknown>).runner_job,
      'server-job-99',
    );
    // An invalid record is refused before anything is hashed.
    writeFileSync(join(t.dir, 'review/proposal.json'), '{"proposal_id": "p", "proposal_id": "q"}\n');
    const bad = await seal(t.dir, [], 'server-job-99');
    assert.equal(bad.stdout, 'E_INPUT_INVALID\n');
    assert.match(bad.stderr, /duplicate key/);
  } finally {
    t.dispose();
  }
});

test('resealing identical bytes is idempotent; a second seal by the same job over other bytes is refused', async () => {
  const t = sealRepo();
  try {
    const first = await seal(t.dir);
    assert.equal(first.exit, 0, first.stderr);
    const before = snapshot(t.dir);
    const runnerBefore = snapshot(t.dir, 'review/runner');
    const again = await seal(t.dir);
    assert.equal(again.exit, 0, again.stderr);
    assert.equal(again.stdout, first.stdout);
    assert.match(again.stderr, /already sealed/);
    assert.deepEqual(snapshot(t.dir), before, 'an identical reseal writes nothing');

    const reseed = await seal(t.dir, ['--seed', '43']);
    assert.equal(reseed.stdout, 'E_DIGEST_OPEN\n');
    assert.equal(reseed.exit, 1);
    assert.match(reseed.stderr, /allocate a new runner job/);
    appendFileSync(join(t.dir, 'fixtures/orders.json'), ' ');
    const rebytes = await seal(t.dir);
    assert.equal(rebytes.stdout, 'E_DIGEST_OPEN\n');
    assert.match(rebytes.stderr, /allocate a new runner job/);
    // (The record was re-proposed for the new patch bytes; the seal's files are untouched.)
    assert.deepEqual(snapshot(t.dir, 'review/runner'), runnerBefore, 'a refused reseal changes nothing');
  } finally {
    t.dispose();
  }
});

test('a seal under a new runner job replaces the old one: its credit and logs are deleted first', async () => {
  const t = sealRepo();
  try {
    assert.equal((await seal(t.dir)).exit, 0);
    writeFiles(t.dir, {
      'review/runner/credit.json': '{}\n',
      'review/runner/logs/junit.xml': '<x/>\n',
      'review/logs/junit.xml': '<x/>\n',
    });
    appendFileSync(join(t.dir, 'fixtures/orders.json'), ' ');
    writeFileSync(
      join(t.dir, 'review/proposal.json'),
      JSON.stringify({ ...RECORD, runner_job: 'server-job-89' }, null, 2) + '\n',
    );
    const r = await seal(t.dir, [], 'server-job-89');
    assert.equal(r.exit, 0, r.stderr);
    assert.match(r.stderr, /earlier seal by server-job-88 was reopened/);
    assert.equal(has(t.dir, 'review/runner/credit.json'), false);
    assert.equal(has(t.dir, 'review/runner/logs'), false);
    assert.equal(has(t.dir, 'review/logs'), false);
    assert.deepEqual(
      readJournal(t.dir).map((e) => [e.type, e.runner_job]),
      [
        ['seal', 'server-job-88'],
        ['reopen', 'server-job-88'],
        ['seal', 'server-job-89'],
      ],
    );
  } finally {
    t.dispose();
  }
});

test('seal --verify: a match prints the digest and writes nothing', async () => {
  const t = sealRepo();
  try {
    const s = await seal(t.dir);
    const before = snapshot(t.dir);
    // Timestamps are not verdict inputs.
    utimesSync(join(t.dir, 'fixtures/orders.json'), new Date('2001-01-01T00:00:00Z'), new Date('2001-01-01T00:00:00Z'));
    const r = await verifySealCli(t.dir);
    assert.equal(r.exit, 0, r.stderr);
    assert.equal(r.stdout, s.stdout);
    assert.deepEqual(snapshot(t.dir), before);
  } finally {
    t.dispose();
  }
});

for (const [what, change, expect] of [
  [
    'a changed byte',
    (dir: string) => writeFileSync(join(dir, 'fixtures/orders.json'), '{"orders":[1,2,4]}\n'),
    [/^ {2}- [0-9a-f]{64} {2}fixtures\/orders\.json$/m, /^ {2}\+ [0-9a-f]{64} {2}fixtures\/orders\.json$/m],
  ],
  [
    'a new file matching the glob',
    (dir: string) => writeFileSync(join(dir, 'fixtures/nested/new.csv'), 'x\n'),
    [/^ {2}\+ [0-9a-f]{64} {2}fixtures\/nested\/new\.csv$/m],
  ],
  [
    'a deleted file',
    (dir: string) => rmSync(join(dir, 'fixtures/clock.json')),
    [/^ {2}- [0-9a-f]{64} {2}fixtures\/clock\.json$/m],
  ],
  [
    'every file deleted',
    (dir: string) => rmSync(join(dir, 'fixtures'), { recursive: true }),
    [/- [0-9a-f]{64} {2}fixtures\/orders\.json/],
  ],
] as const) {
  test(`seal --verify on drift (${what}): reopen, delete credit and logs, name the changed lines, E_DIGEST_OPEN`, async () => {
    const t = sealRepo();
    try {
      const s = await seal(t.dir);
      assert.equal(s.exit, 0, s.stderr);
      writeFiles(t.dir, {
        'review/runner/credit.json': '{}\n',
        'review/runner/cases.json': '{}\n',
        'review/runner/results.json': '{}\n',
        'review/runner/logs/junit.xml': '<x/>\n',
        'review/logs/junit.xml': '<x/>\n',
      });
      change(t.dir);
      const r = await verifySealCli(t.dir);
      assert.equal(r.stdout, 'E_DIGEST_OPEN\n');
      assert.equal(r.exit, 1);
      for (const re of expect) assert.match(r.stderr, re);
      for (const gone of [
        'review/runner/credit.json',
        'review/runner/cases.json',
        'review/runner/results.json',
        'review/runner/logs',
        'review/logs',
      ]) {
        assert.equal(has(t.dir, gone), false, gone);
      }
      assert.equal(read(t.dir, 'review/runner/digest.status'), 'open\n');
      const rec = JSON.parse(read(t.dir, 'review/proposal.json')) as Record<string, unknown>;
      assert.equal(rec.digest_status, 'open');
      assert.deepEqual(
        readJournal(t.dir).map((e) => e.type),
        ['seal', 'reopen'],
      );
      // After a reopen there is nothing sealed to verify.
      const again = await verifySealCli(t.dir);
      assert.equal(again.stdout, 'E_DIGEST_OPEN\n');
      assert.match(again.stderr, /not sealed/);
    } finally {
      t.dispose();
    }
  });
}

test('seal --verify refuses seal files that disagree with each other, and takes no sealing options', async () => {
  const t = sealRepo();
  try {
    assert.equal((await seal(t.dir)).exit, 0);
    const opts = await verifySealCli(t.dir, ['--seed', '1']);
    assert.equal(opts.exit, 2);
    writeFileSync(join(t.dir, 'review/runner/digest.txt'), `${'0'.repeat(64)}\n`);
    const r = await verifySealCli(t.dir);
    assert.equal(r.stdout, 'E_INPUT_INVALID\n');
    assert.match(r.stderr, /disagree/);
  } finally {
    t.dispose();
  }
});

test('the digest ignores mtimes, hostnames, time zones and the wall clock', async () => {
  const t = sealRepo();
  try {
    const a = await seal(t.dir);
    rmSync(join(t.dir, 'review/runner'), { recursive: true });
    writeFileSync(join(t.dir, 'review/proposal.json'), JSON.stringify(RECORD, null, 2) + '\n');
    for (const f of SORTED)
      utimesSync(join(t.dir, f), new Date('1999-09-09T09:09:09Z'), new Date('1999-09-09T09:09:09Z'));
    const b = await runSeal(['seal', '--repo', t.dir, '--runner-job', 'server-job-88', ...ARGS], {
      env: { HOSTNAME: 'elsewhere', TZ: 'Asia/Tokyo' },
      now: new Date('2030-01-01T00:00:00Z'),
    });
    assert.equal(b.exit, 0, b.stderr);
    assert.equal(b.stdout, a.stdout);
    // A different host, for real, where the kernel allows a private UTS namespace.
    const probe = (() => {
      try {
        return execFileSync('unshare', ['--uts', 'sh', '-c', 'hostname sealgate-elsewhere && hostname'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim();
      } catch {
        return '';
      }
    })();
    if (probe === 'sealgate-elsewhere') {
      rmSync(join(t.dir, 'review/runner'), { recursive: true });
      writeFileSync(join(t.dir, 'review/proposal.json'), JSON.stringify(RECORD, null, 2) + '\n');
      bindRecord(t.dir);
      const u = (p: string): string => JSON.stringify(new URL(`../../src/${p}`, import.meta.url).href);
      const script = `import { sealFixtures } from ${u('seal/seal.ts')};
import { buildRecordTree } from ${u('tree/build.ts')};
import { readPolicy } from ${u('policy/read.ts')};
const repo = ${JSON.stringify(t.dir)};
const tree = buildRecordTree(repo);
const policy = readPolicy({ repo, baseCommit: tree.baseCommit });
const o = await sealFixtures({ repo, tree, policy, runnerJob: 'server-job-88', fixtures: ['fixtures/**'], seed: '42', clock: 'frozen', locale: 'C.UTF-8', now: new Date() });
tree.dispose();
process.stdout.write(o.digest + '\\n');`;
      const out = execFileSync(
        'unshare',
        [
          '--uts',
          'sh',
          '-c',
          `hostname sealgate-elsewhere && "$0" --import tsx --input-type=module -e "$1"`,
          process.execPath,
          script,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(out, a.stdout);
    }
  } finally {
    t.dispose();
  }
});

test('crash safety: a failure at the first write leaves nothing sealed; a refused reseal reopens before overwriting', async () => {
  const t = sealRepo();
  try {
    mkdirSync(join(t.dir, 'review/runner/inputs.sha256/x'), { recursive: true });
    const r = await seal(t.dir);
    assert.notEqual(r.exit, 0);
    assert.equal(has(t.dir, 'review/runner/digest.status'), false);
    assert.equal(has(t.dir, 'review/runner/digest.txt'), false);
    assert.equal((JSON.parse(read(t.dir, 'review/proposal.json')) as Record<string, unknown>).digest_status, 'open');
  } finally {
    t.dispose();
  }
  const u = sealRepo();
  try {
    assert.equal((await seal(u.dir)).exit, 0);
    appendFileSync(join(u.dir, 'fixtures/orders.json'), ' ');
    writeFileSync(
      join(u.dir, 'review/proposal.json'),
      JSON.stringify({ ...RECORD, runner_job: 'server-job-89', digest_status: 'sealed' }, null, 2) + '\n',
    );
    rmSync(join(u.dir, 'review/runner/inputs.sha256'));
    mkdirSync(join(u.dir, 'review/runner/inputs.sha256/x'), { recursive: true });
    const r = await seal(u.dir, [], 'server-job-89');
    assert.notEqual(r.exit, 0);
    assert.equal(read(u.dir, 'review/runner/digest.status'), 'open\n');
    assert.equal((JSON.parse(read(u.dir, 'review/proposal.json')) as Record<string, unknown>).digest_status, 'open');
  } finally {
    u.dispose();
  }
});

test('crash safety: SIGKILL at random points of repeated seals never leaves "sealed" beside a digest that does not match', async () => {
  const src = (p: string): string => JSON.stringify(new URL(`../../src/${p}`, import.meta.url).href);
  for (let round = 0; round < 4; round++) {
    const t = sealRepo();
    try {
      const script = `import { sealFixtures } from ${src('seal/seal.ts')};
import { writeFileAtomic } from ${src('core/io.ts')};
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
const dir = ${JSON.stringify(t.dir)};
for (let k = 0; ; k++) {
  const job = 'runner-' + k;
  const rec = JSON.parse(readFileSync(dir + '/review/proposal.json', 'utf8'));
  writeFileAtomic(dir + '/review/proposal.json', JSON.stringify({ ...rec, runner_job: job }, null, 2) + '\\n');
  writeFileAtomic(dir + '/fixtures/orders.json', 'state ' + k + '\\n');
  // The work tree stands in for the runner's tree here: what is tested is the seal's write order.
  const tree = { root: dir, treeId: createHash('sha1').update(String(k)).digest('hex'), baseCommit: rec.base_commit, patchSha256: rec.patch_sha256, dispose() {} };
  const policy = { config: null, bytes: null, digest: 'default', source: 'default' };
  await sealFixtures({ repo: dir, tree, policy, runnerJob: job, fixtures: ['fixtures/**'], seed: '42', clock: 'frozen', locale: 'C.UTF-8', now: new Date() });
  if (k === 1) process.stdout.write('looping\\n');
}`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      await new Promise<void>((resolveLoop, rejectLoop) => {
        child.stdout.once('data', () => resolveLoop());
        child.once('exit', () => rejectLoop(new Error(`the sealing loop ended early: ${err}`)));
      });
      await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 150)));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const status = has(t.dir, 'review/runner/digest.status') ? read(t.dir, 'review/runner/digest.status') : '';
      const rec = JSON.parse(read(t.dir, 'review/proposal.json')) as { digest_status: string; digest?: string };
      const digest = read(t.dir, 'review/runner/digest.txt').trim();
      if (status === 'sealed\n') {
        assert.equal(
          sha256Hex(read(t.dir, 'review/runner/inputs.sha256')),
          digest,
          'sealed beside an inputs file that does not match digest.txt',
        );
        assert.equal((JSON.parse(read(t.dir, 'review/runner/seal.json')) as Record<string, unknown>).digest, digest);
        assert.equal(rec.digest_status, 'sealed');
      }
      if (rec.digest_status === 'sealed') {
        assert.equal(rec.digest, digest, 'record sealed on another digest than digest.txt');
        assert.equal(sha256Hex(read(t.dir, 'review/runner/inputs.sha256')), digest);
      }
    } finally {
      t.dispose();
    }
  }
});

test('after a drift reopen, the same runner job cannot seal the new bytes; a new runner job can', async () => {
  const t = sealRepo();
  try {
    assert.equal((await seal(t.dir)).exit, 0);
    writeFileSync(join(t.dir, 'fixtures/orders.json'), '{"orders":[]}\n');
    assert.equal((await verifySealCli(t.dir)).exit, 1);
    const same = await seal(t.dir);
    assert.equal(same.stdout, 'E_DIGEST_OPEN\n');
    assert.match(same.stderr, /allocate a new runner job/);
    writeFileSync(
      join(t.dir, 'review/proposal.json'),
      JSON.stringify({ ...RECORD, runner_job: 'server-job-90' }, null, 2) + '\n',
    );
    const fresh = await seal(t.dir, [], 'server-job-90');
    assert.equal(fresh.exit, 0, fresh.stderr);
    assert.equal(read(t.dir, 'review/runner/digest.status'), 'sealed\n');
    assert.equal((await verifySealCli(t.dir)).stdout, fresh.stdout);
  } finally {
    t.dispose();
  }
});

test('empty fixtures: "fixtures": [] seals no file, and the digest still covers seed, clock and locale', async () => {
  const t = sealRepo({ 'sealgate.config.json': '{"fixtures": [], "clock": "frozen", "locale": "C.UTF-8"}\n' });
  try {
    const sealWith = (job: string, seed: string, clock = 'frozen') =>
      runCli(['seal', '--repo', t.dir, '--runner-job', job, '--seed', seed, '--clock', clock], {});
    const a = await sealWith('server-job-88', '42');
    assert.equal(a.exit, 0, a.stderr);
    assert.match(a.stderr, /0 fixture file\(s\)/);
    // No fixture line: seed, clock, locale, and the tree and policy the runner built and read.
    const inputs = read(t.dir, 'review/runner/inputs.sha256');
    assert.match(
      inputs,
      /^seed=42\nclock=frozen\nlocale=C\.UTF-8\ntree=[0-9a-f]{40}\npolicy=(?:[0-9a-f]{64}|default)\n$/,
    );
    const digest = read(t.dir, 'review/runner/digest.txt').trim();
    assert.equal(digest, sha256Hex(Buffer.from(inputs)));
    assert.equal((await runCli(['seal', '--verify', '--repo', t.dir], {})).exit, 0, 'verify recomputes the empty set');
    // Another seed (or clock) gives another digest: the seal still binds the verdict inputs.
    const b = await sealWith('server-job-88', '43');
    assert.notEqual(b.exit, 0, 'the same runner job cannot reseal other inputs');
    writeFiles(t.dir, {
      'review/proposal.json': JSON.stringify({ ...RECORD, runner_job: 'server-job-89' }, null, 2) + '\n',
    });
    bindRecord(t.dir);
    const c = await sealWith('server-job-89', '43', 'live');
    assert.equal(c.exit, 0, c.stderr);
    assert.notEqual(read(t.dir, 'review/runner/digest.txt').trim(), digest);
    // Without a fixtures field at all it is still a usage error: nothing is defaulted silently.
    const policy = `${t.dir}-policy.json`;
    writeFileSync(policy, '{"clock": "frozen", "locale": "C.UTF-8"}\n');
    const d = await runCli(
      ['seal', '--repo', t.dir, '--runner-job', 'server-job-89', '--seed', '43', '--policy', policy],
      {},
    );
    rmSync(policy, { force: true });
    assert.equal(d.exit, 2);
    assert.match(d.stderr, /no fixtures/);
  } finally {
    t.dispose();
  }
});

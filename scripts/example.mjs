// The bundled example, for real: copies examples/pricing to a temporary folder and runs the
// whole workflow there as an author process and a runner process (two operating-system
// users when run as root), printing each step and its code, then checks the codes against
// the spec's trace. Every test run (the sealed runs and the credit runs) is sandboxed with
// bubblewrap, and the script says so from the evidence. Needs a build (`npm run build`). `--json` adds one JSON summary line.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'sealgate.js');
const EXAMPLE = join(ROOT, 'examples', 'pricing');
const JSON_OUT = process.argv.includes('--json');

const NOBODY = 65534;
/** Can uid 65534 run sealgate from where it is installed (a clone under /root cannot)? */
function nobodyCanRun() {
  const r = spawnSync(
    process.execPath,
    ['-e', `require('fs').accessSync(${JSON.stringify(BIN)}, require('fs').constants.R_OK)`],
    { uid: NOBODY, gid: NOBODY, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
  );
  return r.status === 0;
}
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const isRoot = root && nobodyCanRun();
/** The author runs as nobody when we are root: it cannot read the runner's hidden logs. */
const AUTHOR_UID = isRoot ? NOBODY : undefined;

const AUTHOR = 'model-session-17';
const RUNNER_1 = 'server-job-88';
const RUNNER_2 = 'server-job-89';
const REVIEWER = 'reviewer-job-2';
const SEED = '42';

const work = mkdtempSync(join(tmpdir(), 'sealgate-example-'));
chmodSync(work, 0o755);
const repo = join(work, 'pricing');
const inbox = join(work, 'agent'); // the author's drafts, outside the repository
const env = {
  PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  HOME: work,
  XDG_CACHE_HOME: join(work, 'cache'),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'sealgate example',
  GIT_AUTHOR_EMAIL: 'example@example.invalid',
  GIT_COMMITTER_NAME: 'sealgate example',
  GIT_COMMITTER_EMAIL: 'example@example.invalid',
};

const results = [];
const out = (line = '') => process.stdout.write(`${line}\n`);

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {
    cwd: repo,
    env: { ...env, ...(opts.env ?? {}) },
    encoding: 'utf8',
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  if (r.error) throw r.error;
  return r;
}

function must(cmd, args, opts) {
  const r = sh(cmd, args, opts);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** One sealgate invocation as `who`; records the code it printed (its last stdout line). */
function step(who, label, args, expected, opts = {}) {
  const uid = who === 'author' ? AUTHOR_UID : undefined;
  // The author (uid 65534) reads HEAD of a checkout root owns: git wants that said.
  const trust =
    uid !== undefined ? { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: repo } : {};
  const r = sh(process.execPath, [BIN, ...args], { uid, env: { ...trust, ...(opts.env ?? {}) } });
  const lines = r.stdout.trim().split('\n');
  const last = lines[lines.length - 1] ?? '';
  const code = /^(ALLOW|E_[A-Z_]+)$/.test(last) ? last : r.status === 0 ? 'ok' : `exit ${r.status}`;
  results.push({ step: label, who, expected, code, ok: expected === undefined || expected === code });
  out(`[${who.padEnd(8)}] ${label}`);
  out(`           $ sealgate ${args.map((a) => (/[\s"]/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const show = (opts.showStdout ? r.stdout : '') + r.stderr;
  for (const l of show
    .trim()
    .split('\n')
    .filter(Boolean)
    .slice(0, opts.lines ?? 12))
    out(`           ${l}`);
  out(
    `           => ${code}${expected !== undefined ? (code === expected ? '   (as the spec says)' : `   EXPECTED ${expected}`) : ''}`,
  );
  out();
  return { ...r, code, first: lines[0] ?? '' };
}

function asJson(path) {
  return JSON.parse(readFileSync(join(repo, path), 'utf8'));
}

// --- the repository: the example committed, owned by the runner; patches/ and review/ by the author
cpSync(EXAMPLE, repo, { recursive: true, filter: (src) => !src.startsWith(join(EXAMPLE, 'agent')) });
cpSync(join(EXAMPLE, 'agent'), inbox, { recursive: true });
writeFileSync(join(repo, '.gitignore'), 'node_modules\nreview/\njunit.xml\n');
symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'), 'dir');
must('git', ['init', '-q', '-b', 'main']);
must('git', ['add', '-A']);
must('git', ['commit', '-q', '-m', 'pricing: base']);
for (const d of ['patches', 'review']) {
  mkdirSync(join(repo, d));
  if (AUTHOR_UID !== undefined) chownSync(join(repo, d), AUTHOR_UID, AUTHOR_UID);
}
// --- attest (signed evidence, docs/attest.md): keys outside the repository, a trust policy
// committed on the base, the runner and the reviewer sign with their own keys. One block
// here, one at the end, and `...SIGN_*` on the runner and freeze steps.
const keys = join(work, 'keys');
const keygen = (role) => {
  const keyId = must(process.execPath, [BIN, 'keygen', '--out', join(keys, role)]).trim();
  return { keyId, priv: join(keys, role, 'key.pem'), pem: readFileSync(join(keys, role, 'key.pub.pem'), 'utf8') };
};
const RUNNER_KEY = keygen('runner');
const REVIEWER_KEY = keygen('reviewer');
const AUTHOR_KEY = keygen('author'); // trusted for nothing, and the author's own file
chmodSync(keys, 0o755);
if (AUTHOR_UID !== undefined)
  for (const p of ['', 'key.pem', 'key.pub.pem']) chownSync(join(keys, 'author', p), AUTHOR_UID, AUTHOR_UID);
const policy = JSON.parse(readFileSync(join(repo, 'sealgate.config.json'), 'utf8'));
writeFileSync(
  join(repo, 'sealgate.config.json'),
  `${JSON.stringify({ ...policy, trust: { runnerKeys: [RUNNER_KEY.pem], reviewerKeys: [REVIEWER_KEY.pem] } }, null, 2)}\n`,
);
must('git', ['commit', '-q', '-am', 'sealgate: trust the runner and reviewer keys']);
const SIGN_RUNNER = ['--signing-key', RUNNER_KEY.priv];
const SIGN_REVIEWER = ['--signing-key', REVIEWER_KEY.priv];
const SIGN_AUTHOR = ['--signing-key', AUTHOR_KEY.priv];
// --- end attest

out(`sealgate example: ${repo}`);
out(
  isRoot
    ? `author job runs as uid ${AUTHOR_UID} (nobody); runner, gate and reviewer as uid 0. The author owns only patches/ and review/.`
    : root
      ? `uid ${NOBODY} cannot read ${BIN}, so author and runner run as the same OS user (root); the job ids still differ, but the log barrier is not enforced between users.`
      : `not root: author and runner run as the same OS user (uid ${process.getuid?.() ?? '?'}); the job ids still differ, but the log barrier is not enforced between users.`,
);
out(
  `keys: runner ${RUNNER_KEY.keyId}, reviewer ${REVIEWER_KEY.keyId} (trusted by the base policy); the author's ${AUTHOR_KEY.keyId} is trusted for nothing.`,
);
out();

/** How the runner job's tests were contained, as its evidence records it (results.json, credit.json). */
const sandboxes = [];
/** What each runner job credited (the drift step at the end deletes the last credit file, as the spec says). */
const credits = [];
function sandboxNote() {
  const read = (p) => {
    try {
      return JSON.parse(readFileSync(join(repo, p), 'utf8'));
    } catch {
      return {};
    }
  };
  const run = read('review/runner/results.json');
  const credit = read('review/runner/credit.json');
  sandboxes.push({ run: run.sandbox ?? null, cwd: run.cwd ?? null, credit: credit.sandbox ?? null });
  credits.push(credit.credited ?? null);
  const say = (k) =>
    k === 'bwrap' ? 'inside the bubblewrap sandbox' : k === 'none' ? 'UNSANDBOXED' : 'with no isolation recorded';
  out(
    `[runner  ] the sealed run ran ${say(run.sandbox)}${run.cwd ? ` (working directory ${run.cwd})` : ''}; every credit run ${say(credit.sandbox)}`,
  );
  out();
}

const now = () => new Date().toISOString();
const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
const stamp = new Date().toISOString().slice(0, 10);
const P1 = `p-${stamp}-001`;
const P2 = `p-${stamp}-002`;

// --- proposal 1: the agent's patch changes applyDiscount and taxCents; taxCents has only a tautology
out('== Proposal 1: the agent patch (applyDiscount and taxCents change; taxCents is tested by a tautology)');
out();
cpSync(join(inbox, '001-clamp-discount-refund-tax.diff'), join(repo, 'patches', '001.diff'));
if (AUTHOR_UID !== undefined) chownSync(join(repo, 'patches', '001.diff'), AUTHOR_UID, AUTHOR_UID);
step(
  'author',
  'record the proposal before any test runs',
  ['propose', '--author-job', AUTHOR, '--runner-job', RUNNER_1, '--patch', 'patches/001.diff', '--proposal-id', P1],
  'ok',
);
step('author', 'try to read the logs before the seal', ['logs'], 'E_DIGEST_OPEN');
out('[runner  ] no `git apply`: the runner builds its own tree from the record (base_commit + patches/001.diff)');
out();
step(
  'runner',
  'the runner job: tree, seal, symbols, verify, run, credit, publish',
  ['runner', '--runner-job', RUNNER_1, '--seed', SEED, ...SIGN_RUNNER],
  'E_CREDIT_MISSING',
  { lines: 20 },
);
sandboxNote();
if (isRoot) {
  const peek = sh(
    process.execPath,
    ['-e', `require('fs').readdirSync(${JSON.stringify(join(repo, 'review/runner/logs'))})`],
    { uid: AUTHOR_UID },
  );
  out(
    `[author  ] read review/runner/logs/ directly: ${peek.status === 0 ? 'READABLE (barrier failed)' : "permission denied (the hidden store is 0700, the runner's)"}`,
  );
  out();
  results.push({
    step: 'author cannot read the hidden log store',
    who: 'author',
    expected: 'denied',
    code: peek.status === 0 ? 'readable' : 'denied',
    ok: peek.status !== 0,
  });
}
step('author', 'read the logs after publication', ['logs'], 'ok');
step('gate', 'verify: the full audit from the files', ['verify', '--now', now()], 'E_CREDIT_MISSING');

// --- proposal 2: a follow-up adds a real bound on taxCents; a new proposal id and a new runner job
out('== Proposal 2: the follow-up adds a real bound on taxCents (new proposal id, new runner job)');
out();
cpSync(join(inbox, '002-bound-tax.diff'), join(repo, 'patches', '002.diff'));
if (AUTHOR_UID !== undefined) chownSync(join(repo, 'patches', '002.diff'), AUTHOR_UID, AUTHOR_UID);
step(
  'author',
  'reuse the first proposal id for the follow-up bytes',
  ['propose', '--author-job', AUTHOR, '--runner-job', RUNNER_2, '--patch', 'patches/002.diff', '--proposal-id', P1],
  'E_INPUT_INVALID',
);
step(
  'author',
  'record the follow-up under a new proposal id',
  ['propose', '--author-job', AUTHOR, '--runner-job', RUNNER_2, '--patch', 'patches/002.diff', '--proposal-id', P2],
  'ok',
);
step(
  'runner',
  'the runner job on the follow-up',
  ['runner', '--runner-job', RUNNER_2, '--seed', SEED, ...SIGN_RUNNER],
  'ALLOW',
  { lines: 20 },
);
sandboxNote();
step('gate', 'verify', ['verify', '--now', now()], 'ALLOW');

// --- freezes: one naming a credit-bearing property, one naming another test
out('== Flake freezes, filed by a third job');
out();
const credit = asJson('review/runner/credit.json');
const cases = asJson('review/runner/cases.json');
const bearing = credit.test_ids.find((t) => t.includes('discount stays within bounds')) ?? credit.test_ids[0];
const other = cases.cases.map((c) => c.id).find((t) => t.includes('report timezone') && !credit.test_ids.includes(t));
step(
  'reviewer',
  `freeze naming the credit-bearing property "${bearing}"`,
  ['freeze', '--author-job', REVIEWER, '--test-id', bearing, '--expires-at', inAWeek, ...SIGN_REVIEWER],
  'E_FREEZE_COVERS_CREDIT',
);
step(
  'author',
  'the author tries to file a freeze',
  ['freeze', '--author-job', AUTHOR, '--test-id', other ?? 'report timezone', '--expires-at', inAWeek, ...SIGN_AUTHOR],
  'E_SHARED_JOB',
);
step(
  'reviewer',
  `freeze naming another test, "${other}"`,
  [
    'freeze',
    '--author-job',
    REVIEWER,
    '--test-id',
    other ?? 'report timezone',
    '--expires-at',
    inAWeek,
    ...SIGN_REVIEWER,
  ],
  'ok',
);
step('gate', 'verify with the freeze', ['verify', '--now', now()], 'ALLOW');
step(
  'gate',
  "the reviewer's report (HTML) while the gate allows",
  ['explain', '--format', 'html', '--out', join(work, 'report-allow.html'), '--now', now()],
  'ALLOW',
);

/** The runner's credit.json, put back after the forgery is shown. */
let honestCredit;
// --- attest: verify shows what it checked; then forged evidence meets the signature
out('== Signed evidence: what verify checked, then a forged credit.json');
out();
{
  const r = sh(process.execPath, [BIN, 'verify', '--now', now(), '--explain']);
  const line = r.stderr.split('\n').find((l) => /\battest\b/.test(l)) ?? '(no attest line)';
  results.push({
    step: 'verify checks the signatures',
    who: 'gate',
    expected: 'ALLOW',
    code: r.stdout.trim(),
    ok: r.stdout.trim() === 'ALLOW' && line.includes(RUNNER_KEY.keyId) && line.includes(REVIEWER_KEY.keyId),
  });
  out('[gate    ] verify checks the signatures');
  out(`           ${line.trim()}`);
  out(`           => ${r.stdout.trim()}`);
  out();
}
{
  const path = join(repo, 'review/runner/credit.json');
  honestCredit = readFileSync(path);
  const forged = JSON.parse(honestCredit.toString('utf8'));
  writeFileSync(path, `${JSON.stringify({ ...forged, credit_id: `${forged.credit_id}-forged` }, null, 2)}\n`);
  out('[someone ] rewrite review/runner/credit.json after the runner signed it');
  out();
}
step('gate', 'verify after the forged credit.json', ['verify', '--now', now()], 'E_SIGNATURE_INVALID');
writeFileSync(join(repo, 'review/runner/credit.json'), honestCredit);
out("[someone ] put the runner's credit.json back");
out();
// --- end attest

// --- shared identity and drift
out('== Shared job identity and fixture drift');
out();
step(
  'author',
  "reuse the author's id as the runner's",
  [
    'propose',
    '--author-job',
    AUTHOR,
    '--runner-job',
    AUTHOR,
    '--patch',
    'patches/002.diff',
    '--proposal-id',
    `p-${stamp}-003`,
  ],
  'E_SHARED_JOB',
);
// The work tree no longer matters to the runner: drift is a change to what its tree would
// contain. Someone extends the recorded patch with an edit of fixtures/orders.json.
appendFileSync(join(repo, 'fixtures', 'orders.json'), '\n');
const hunk = must('git', ['diff', '--', 'fixtures/orders.json']);
must('git', ['checkout', '--', 'fixtures/orders.json']);
appendFileSync(join(repo, 'patches', '002.diff'), hunk);
out('[someone ] after the seal, extend patches/002.diff with an edit of fixtures/orders.json (one added newline)');
out();
// The runner's own check sees the drift, reopens the seal and deletes credit and logs (the spec's reaction).
step('runner', 'seal --verify after the fixture edit', ['seal', '--verify'], 'E_DIGEST_OPEN');
// At the gate, evidence that changed after the runner signed it is a signature failure first.
step('gate', 'verify after the fixture edit', ['verify', '--now', now()], 'E_SIGNATURE_INVALID');
step(
  'gate',
  "the reviewer's report (HTML)",
  ['explain', '--format', 'html', '--out', join(work, 'report.html'), '--now', now()],
  'E_SIGNATURE_INVALID',
);

const failed = results.filter((r) => !r.ok);
out('== Summary');
for (const r of results)
  out(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.code.padEnd(24)} ${r.step}${r.ok ? '' : ` (expected ${r.expected})`}`);
out();
out(`HTML report while the gate allows: ${join(work, 'report-allow.html')}`);
out(`HTML report after the patch's fixture edit: ${join(work, 'report.html')}`);
if (JSON_OUT)
  out(JSON.stringify({ work, report: join(work, 'report.html'), users: isRoot ? 2 : 1, results, sandboxes, credits }));
process.exitCode = failed.length === 0 ? 0 : 1;

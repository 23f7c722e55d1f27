'use strict';
// Writes the V8 code cache of one CLI bundle: `node scripts/code-cache.cjs all|gate|run|seal`,
// run by scripts/bundle.mjs right after esbuild. The bundle is loaded exactly as
// bin/sealgate.js loads it (same wrapper, same file name) and runs warm-up commands, so that
// the cache holds the code those commands compile, not only the bundle's top level; then
// `<bundle>.cjs.cache` gets the SHA-256 of the bundle's bytes followed by V8's cache data.
// The warm-ups' output is discarded; each must end with the exit status expected of it, else
// the cache is still written but a warning names the command.
const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const crypto = require('node:crypto');
const { loadBundle, BUNDLES } = require('../bin/sealgate.js');

const ACCEPTANCE = join(__dirname, '..', 'acceptance');
const RUNNER = 'warm-runner-1';

/** A test command's whole job in the warm-up: one JUnit case (a run with none is refused). */
const ONE_CASE = `require('fs').writeFileSync('junit.xml', '<testsuite name="warm" tests="1"><testcase classname="warm" name="one"/></testsuite>\\n')`;

/** A scratch repository where `seal` and `run` do real work. */
function scratchRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-code-cache-'));
  mkdirSync(join(dir, 'fixtures'));
  mkdirSync(join(dir, 'review'));
  writeFileSync(join(dir, 'fixtures', 'orders.json'), '{"orders":[100,250]}\n');
  const config = { fixtures: ['fixtures/**'], clock: 'live', locale: 'C.UTF-8', test: { command: [process.execPath, '-e', ONE_CASE], junit: ['junit.xml'] } };
  writeFileSync(join(dir, 'sealgate.config.json'), JSON.stringify(config) + '\n');
  const record = { proposal_id: 'p-warm', author_job: 'warm-author-1', runner_job: RUNNER, patch_path: 'patches/none.diff', digest_status: 'open', logs_present: false, logs_after_seal: true, log_visibility: 'hidden' };
  writeFileSync(join(dir, 'review', 'proposal.json'), JSON.stringify(record, null, 2) + '\n');
  return dir;
}

const NOW = ['--now', '2026-10-12T12:00:00Z'];
function gate(kase, extra = []) {
  const dir = join(ACCEPTANCE, kase);
  return ['gate', '--repo', dir, '--record', join(dir, 'record.json'), '--credit', join(dir, 'credit.json'), ...NOW, ...extra];
}
const GATE = [
  [gate('trace-3-freeze-other-test-allows', ['--freeze', join(ACCEPTANCE, 'trace-3-freeze-other-test-allows', 'freeze.json')]), 0],
  [gate('code-credit-missing-pass-false'), 1],
  [['gate', '--help'], 0],
];
const seal = (repo) => [['seal', '--repo', repo, '--runner-job', RUNNER, '--seed', '1'], 0];
const verify = (repo) => [['seal', '--repo', repo, '--runner-job', RUNNER, '--verify'], 0];
const run = (repo) => [['run', '--repo', repo, '--runner-job', RUNNER], 0];

/** Per bundle: [argv, expected exit status], given a fresh scratch repository. */
const WARMUPS = {
  all: (repo) => [[['--help'], 0], [['codes'], 0], [['selftest'], 0], ...GATE, seal(repo), verify(repo), run(repo), [['publish', '--repo', repo, '--runner-job', RUNNER], 0]],
  gate: () => GATE,
  seal: (repo) => [[['seal', '--help'], 0], seal(repo), verify(repo)],
  run: (repo) => [[['run', '--help'], 0], run(repo)],
};

async function startQuietly(start, argv) {
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = process.stderr.write = () => true;
  process.exitCode = 0;
  try {
    await start(argv);
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
  const code = process.exitCode ?? 0;
  process.exitCode = 0;
  return code;
}

async function main(name) {
  if (!Object.hasOwn(WARMUPS, name)) throw new Error(`usage: node scripts/code-cache.cjs ${Object.keys(WARMUPS).join('|')}`);
  const repo = scratchRepo();
  const problems = [];
  try {
    // `run` needs a sealed repository; the full CLI (a separate script) seals it.
    if (name === 'run' && (await startQuietly(loadBundle('all', { useCache: false }).exports.start, seal(repo)[0])) !== 0) problems.push('seal (setup) failed');
    const { exports, script, bytes } = loadBundle(name, { useCache: false });
    for (const [argv, expected] of WARMUPS[name](repo)) {
      const code = await startQuietly(exports.start, argv);
      if (code !== expected) problems.push(`\`sealgate ${argv.join(' ')}\` exited ${code}, not ${expected}`);
    }
    const digest = crypto.createHash('sha256').update(bytes).digest();
    writeFileSync(join(BUNDLES, `${name}.cjs.cache`), Buffer.concat([digest, script.createCachedData()]));
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
  for (const p of problems) process.stderr.write(`code-cache: warning (${name}.cjs): warm-up ${p}; the cache covers less\n`);
}

main(process.argv[2]).catch((err) => {
  process.stderr.write(`code-cache: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});

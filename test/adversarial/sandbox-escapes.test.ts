import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { normaliseConfig } from '../../src/config/schema.js';
import { openCreditBox } from '../../src/credit/runs/setup.js';
import { makeScratch, makeWorkspace, runTestCommand } from '../../src/credit/runs/test-run.js';
import { readResults } from '../../src/runner/results.js';
import { runCli } from '../helpers/cli.js';
import { bindRecord } from '../helpers/git.js';
import { ENV, RUNNER, makeSealedRepo, type SealedRepo } from '../runner/helpers.js';

// Attacks from the patch's own bytes on what sealgate runs next, each through `sealgate run`
// and through the credit step's chokepoint, each failing closed.

const OWN_NODE_MODULES = resolve('node_modules');
const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
const JUNIT = `printf '<testsuite name="s"><testcase classname="s" name="t"/></testsuite>\\n' > junit.xml`;

async function project(script: string, files: Record<string, string> = {}, seal = true): Promise<SealedRepo> {
  return makeSealedRepo({
    files: { 'attack.sh': script, ...files },
    config: { test: { command: ['sh', 'attack.sh'], junit: ['junit.xml'] } },
    seal,
  });
}

/** The credit step's run of the project's command (its box, its workspace, its chokepoint). */
async function creditRun(repo: SealedRepo) {
  const config = normaliseConfig(
    JSON.parse(repo.read('sealgate.config.json')) as Parameters<typeof normaliseConfig>[0],
  );
  const scratch = makeScratch();
  try {
    const box = openCreditBox({ repo: repo.dir, config, env: ENV, cacheDir: null, clock: { kind: 'live' } });
    const ws = makeWorkspace(repo.dir, scratch.dir);
    return await runTestCommand(
      ws.root,
      config.test.command ?? [],
      config.test.junit,
      { PATH: ENV.PATH ?? '/usr/bin:/bin' },
      60_000,
      scratch.dir,
      box,
    );
  } finally {
    scratch.dispose();
  }
}

test('a test that appends a payload to a dependency sealgate itself loads (typescript, through the linked node_modules) cannot: read-only', async () => {
  const target = join(OWN_NODE_MODULES, 'typescript', 'package.json');
  const before = sha(target);
  const script = `echo '"payload"' >> node_modules/typescript/package.json && echo WROTE || echo refused\n${JUNIT}\n`;
  const repo = await project(script);
  try {
    symlinkSync(OWN_NODE_MODULES, join(repo.dir, 'node_modules'), 'dir');
    const r = await runCli(['run', '--runner-job', RUNNER], { cwd: repo.dir, env: ENV });
    assert.equal(r.exit, 0, r.stderr);
    assert.equal(repo.read('review/runner/logs/stdout.log').trim(), 'refused');
    const c = await creditRun(repo);
    assert.equal(c.status, 'ok', c.detail);
    assert.equal(sha(target), before, "sealgate's own dependency changed");
  } finally {
    repo.dispose();
  }
});

test('a dependency folder the patch links to evidence, the install or any other folder is refused before anything runs', async () => {
  for (const target of ['review', resolve('dist'), '/root', '/etc']) {
    const repo = await project(`echo ran > /tmp/x\n${JUNIT}\n`);
    try {
      symlinkSync(target === 'review' ? join(repo.dir, 'review') : target, join(repo.dir, 'node_modules'), 'dir');
      const journal = repo.read('review/runner/journal.jsonl');
      const r = await runCli(['run', '--runner-job', RUNNER], { cwd: repo.dir, env: ENV });
      assert.deepEqual([r.stdout, r.exit], ['E_INPUT_INVALID\n', 1], `${target}: ${r.stderr}`);
      assert.match(r.stderr, /dependency folder/);
      assert.equal(repo.read('review/runner/journal.jsonl'), journal, `${target}: a run started`);
      await assert.rejects(creditRun(repo), /dependency folder/);
    } finally {
      repo.dispose();
    }
  }
});

test('a JUnit report that is a link (to a host file, or through a linked folder) is never read nor moved', async () => {
  const repo = await makeSealedRepo({
    files: { 'secret.txt': '<testsuite name="s"><testcase classname="s" name="from-a-link"/></testsuite>\n' },
    config: {
      test: {
        command: ['sh', '-c', 'ln -s /etc/passwd junit.xml; mkdir -p real; cp secret.txt real/j.xml; ln -s real out'],
        junit: ['junit.xml', 'out/j.xml'],
      },
    },
  });
  try {
    // Neither link is read, so the run has no test case and is refused (results and journal are still written), naming both paths and why each was not read.
    const r = await runCli(['run', '--runner-job', RUNNER], { cwd: repo.dir, env: ENV });
    assert.deepEqual([r.stdout, r.exit], ['E_INPUT_INVALID\n', 1], r.stderr);
    assert.match(
      r.stderr,
      /no test case.*junit\.xml \(missing: not a regular file[^)]*\).*out\/j\.xml \(missing: out is not a folder[^)]*\)/,
    );
    assert.doesNotMatch(r.stderr + r.stdout, /from-a-link|root:/);
    const results = readResults(repo.dir);
    assert.deepEqual(
      results.junit.map((j) => j.status),
      ['missing', 'missing'],
    );
    assert.deepEqual(results.cases, []);
    assert.equal(existsSync(join(repo.dir, 'review/runner/logs/junit-1.xml')), false);
    assert.ok(lstatSync('/etc/passwd').isFile(), 'the link target was moved');
    const c = await creditRun(repo);
    assert.equal(c.status, 'crash');
    assert.match(c.detail, /not a regular file|not a folder/);
  } finally {
    repo.dispose();
  }
});

test('a daemon that waits for the credit step and then rewrites review/runner/cases.json and credit.json finds nothing to write to, and is gone', async () => {
  const repo = await project('', {}, false);
  try {
    const cases = join(repo.dir, 'review', 'runner', 'cases.json');
    const credit = join(repo.dir, 'review', 'runner', 'credit.json');
    const forged = `{"forged": true}`;
    // The attack names the host paths, so it is written once the repository exists: into the recorded patch, then bound and sealed (the runner's tree holds it).
    repo.write(
      'attack.sh',
      `setsid sh -c 'sleep 1; for f in ${cases} ${credit} ../review/runner/cases.json; do echo ${JSON.stringify(forged)} > "$f"; done' </dev/null >/dev/null 2>&1 &\n${JUNIT}\n`,
    );
    bindRecord(repo.dir, 'review/proposal.json', 'patches/1.diff');
    const seal = await repo.cli('seal', '--runner-job', RUNNER);
    assert.equal(seal.exit, 0, seal.stdout + seal.stderr);
    mkdirSync(join(repo.dir, 'review', 'runner'), { recursive: true });
    writeFileSync(cases, '{"honest": true}\n');
    const r = await runCli(['run', '--runner-job', RUNNER], { cwd: repo.dir, env: ENV });
    assert.equal(r.exit, 0, r.stderr);
    const c = await creditRun(repo);
    assert.equal(c.status, 'ok', c.detail);
    await new Promise((done) => setTimeout(done, 2500));
    assert.equal(readFileSync(cases, 'utf8'), '{"honest": true}\n');
    assert.equal(existsSync(credit), false);
  } finally {
    rmSync(join(repo.dir, 'review', 'runner', 'cases.json'), { force: true });
    repo.dispose();
  }
});

test('a patch that puts a link to a folder outside in place of the report folder gets nothing outside removed: the stale report is removed only through real folders', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'sealgate-outside-'));
  writeFileSync(join(outside, 'junit.xml'), 'the host file\n');
  const repo = await makeSealedRepo({
    seal: false,
    config: {
      test: {
        command: [
          'sh',
          '-c',
          'mkdir -p out && printf \'<testsuite name="s"><testcase classname="s" name="t"/></testsuite>\\n\' > out/junit.xml',
        ],
        junit: ['reports/junit.xml'],
      },
    },
  });
  try {
    symlinkSync(outside, join(repo.dir, 'reports'), 'dir');
    bindRecord(repo.dir, 'review/proposal.json', 'patches/1.diff');
    const sealed = await repo.cli('seal', '--runner-job', RUNNER);
    assert.equal(sealed.exit, 0, sealed.stderr);
    const r = await runCli(['run', '--runner-job', RUNNER], { cwd: repo.dir, env: ENV });
    assert.notEqual(r.stdout.trim(), 'ALLOW');
    assert.equal(
      readFileSync(join(outside, 'junit.xml'), 'utf8'),
      'the host file\n',
      "sealgate removed a file outside the tree through the patch's link",
    );
    const c = await creditRun(repo);
    assert.notEqual(c.status, 'ok');
    assert.equal(
      readFileSync(join(outside, 'junit.xml'), 'utf8'),
      'the host file\n',
      "the credit step removed a file outside the tree through the patch's link",
    );
  } finally {
    repo.dispose();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('a test that reads the clock off its tree (file and folder times) sees one fixed time in the sealed run and in the credit step: nothing tells when its copy was made', async () => {
  // The test fails, naming the entry, if any file or folder of its tree has another time than
  // the tree's one (2000-01-01): the moment a checkout or a copy was made would tell the sealed
  // run from the credit step's runs, and an early run from a late one.
  const script = [
    `odd=$(find . -path ./node_modules -prune -o -printf '%T@ %p\\n' | grep -v '^946684800\\.0* ' | head -1)`,
    `if [ -z "$odd" ]; then ${JUNIT}; else printf '<testsuite name="s"><testcase classname="s" name="t"><failure message="%s"/></testcase></testsuite>\\n' "$odd" > junit.xml; fi`,
  ].join('\n');
  const repo = await project(script + '\n', { 'src/deep/more.txt': 'x\n' });
  try {
    const r = await runCli(['run', '--runner-job', RUNNER], { cwd: repo.dir, env: ENV });
    assert.equal(r.exit, 0, r.stderr);
    assert.deepEqual(
      readResults(repo.dir).cases.map((c) => c.status),
      ['passed'],
      repo.read('review/runner/logs/junit-1.xml'),
    );
    const c = await creditRun(repo);
    assert.equal(c.status, 'ok', c.detail);
    assert.deepEqual(
      c.cases.map((x) => x.status),
      ['passed'],
    );
  } finally {
    repo.dispose();
  }
});

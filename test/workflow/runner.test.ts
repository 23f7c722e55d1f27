import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo } from '../helpers/git.js';
import { main } from '../../src/cli/main.js';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { AGENT_PATCH, AUTHOR, EXAMPLE_DIR, NOW, RUNNER, exampleFiles } from './review.js';

function proposed() {
  const r = makeRepo(exampleFiles());
  writeFileSync(join(r.dir, 'p.diff'), readFileSync(join(EXAMPLE_DIR, AGENT_PATCH)));
  return r;
}

test('runner: the author id as runner stops at the seal with E_SHARED_JOB; nothing is sealed or run', async () => {
  const r = proposed();
  try {
    const p = await runCli(
      ['propose', '--repo', r.dir, '--author-job', AUTHOR, '--runner-job', RUNNER, '--patch', 'p.diff'],
      { cwd: r.dir },
    );
    assert.equal(p.exit, 0, p.stderr);
    const out = await runCli(['runner', '--repo', r.dir, '--runner-job', AUTHOR, '--seed', '42', '--now', NOW], {
      cwd: r.dir,
    });
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
    await runCli(['propose', '--repo', r.dir, '--author-job', AUTHOR, '--runner-job', RUNNER, '--patch', 'p.diff'], {
      cwd: r.dir,
    });
    const out = await runCli(['runner', '--repo', r.dir, '--runner-job', RUNNER, '--now', NOW], {
      cwd: r.dir,
      env: {},
    });
    assert.equal(out.stdout, 'E_INPUT_INVALID\n');
    assert.match(out.stderr, /^runner: seal +E_INPUT_INVALID/m);
  } finally {
    r.dispose();
  }
});

test('runner: no record is E_INPUT_INVALID; bad arguments are usage errors', async () => {
  const r = proposed();
  try {
    assert.equal(
      (await runCli(['runner', '--repo', r.dir, '--runner-job', RUNNER], { cwd: r.dir })).stdout,
      'E_INPUT_INVALID\n',
    );
    const bad = await runCli(['runner', '--repo', r.dir, '--runner-job', 'a b'], { cwd: r.dir });
    assert.deepEqual([bad.stdout, bad.exit], ['E_INPUT_INVALID\n', 2]);
  } finally {
    r.dispose();
  }
});

/** The CLI in-process as a terminal would see it, with every stderr write kept apart. */
async function runTty(
  argv: string[],
  cwd: string,
  isTTY: boolean,
  env: Record<string, string> = {},
): Promise<{ exit: number; stdout: string; writes: string[] }> {
  let stdout = '';
  const writes: string[] = [];
  let t = Date.parse(NOW);
  const exit = await main(
    {
      argv,
      cwd,
      env,
      stdout: (s) => (stdout += s),
      stderr: (s) => void writes.push(s),
      clock: () => new Date((t += 250)),
      isTTY,
    },
    COMMANDS,
  );
  return { exit, stdout, writes };
}

test('runner talks: live credit progress while the step runs, --workers and --no-cache reach credit, the closing line names every missing symbol, no code twice', async () => {
  const r = makeRepo({ ...exampleFiles(), '.gitignore': 'node_modules\nreview/\njunit.xml\n' });
  symlinkSync(resolve('node_modules'), join(r.dir, 'node_modules'), 'dir');
  writeFileSync(join(r.dir, 'p.diff'), readFileSync(join(EXAMPLE_DIR, AGENT_PATCH)));
  const cache = `${r.dir}-cache`;
  try {
    const p = await runCli(
      [
        'propose',
        '--repo',
        r.dir,
        '--author-job',
        AUTHOR,
        '--runner-job',
        RUNNER,
        '--patch',
        'p.diff',
        '--proposal-id',
        'p-1',
      ],
      { cwd: r.dir, now: new Date(NOW) },
    );
    assert.equal(p.exit, 0, p.stderr);
    git(r.dir, 'apply', 'p.diff');
    for (const isTTY of [true, false]) {
      const out = await runTty(
        [
          'runner',
          '--repo',
          r.dir,
          '--runner-job',
          `${RUNNER}-${String(isTTY)}`,
          '--seed',
          '42',
          '--now',
          NOW,
          '--workers',
          '2',
          '--no-cache',
        ],
        r.dir,
        isTTY,
      );
      // The record names one runner: a second job on it is refused at the seal (a clean check of the refusal line).
      if (!isTTY) {
        assert.equal(out.stdout, 'E_INPUT_INVALID\n');
        const line =
          out.writes
            .join('')
            .split('\n')
            .find((l) => l.startsWith('runner: seal')) ?? '';
        assert.match(line, /^runner: seal +E_INPUT_INVALID: /);
        assert.equal(line.split('E_INPUT_INVALID').length, 2, `the code appears once: ${line}`);
        continue;
      }
      assert.equal(out.stdout, 'E_INPUT_INVALID\n', out.writes.join(''));
    }
    const tty = await runTty(
      ['runner', '--repo', r.dir, '--runner-job', RUNNER, '--seed', '42', '--now', NOW, '--workers', '2', '--no-cache'],
      r.dir,
      true,
      { XDG_CACHE_HOME: cache },
    );
    const all = tty.writes.join('');
    assert.equal(tty.stdout, 'E_CREDIT_MISSING\n', all);
    // The credit step's progress arrives as live terminal lines before the step's own summary line.
    const creditLine = tty.writes.findIndex((w) => w.startsWith('runner: credit'));
    const liveBefore = tty.writes
      .slice(0, creditLine)
      // eslint-disable-next-line no-control-regex
      .filter((w) => /^\r\x1b\[2Kcredit: \S+ \d+\/\d+ runs, \d+ killed, [\d.]+s elapsed/.test(w));
    assert.ok(
      liveBefore.length >= 2,
      `live credit lines before the step ended: ${JSON.stringify(tty.writes.slice(0, creditLine))}`,
    );
    assert.ok(
      liveBefore.some((w) => w.includes(' left')),
      'an estimate of the time left',
    );
    assert.equal(existsSync(cache), false, '--no-cache: no cache written');
    assert.match(all, /runner: credit .*[1-9]\d* mutant run\(s\), 0 from cache/);
    const credit = JSON.parse(readFileSync(join(r.dir, LAYOUT.credit), 'utf8')) as {
      missing: string[];
      credited: string[];
      evidence: Record<string, { revert?: { outcome: string } }>;
    };
    assert.ok(credit.missing.length > 0);
    const closing =
      all
        .split('\n')
        .filter((l) => l.startsWith('runner: audit'))
        .pop() ?? '';
    const escape = (ids: readonly string[]): string =>
      ids.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(', ');
    assert.match(closing, new RegExp(`missing \\(${credit.missing.length}\\): ${escape(credit.missing)}`));
    // Here every credited symbol's revert was killed: nothing is flagged (revert-outcome.test.ts has the flagged case).
    assert.deepEqual(
      credit.credited.map((id) => credit.evidence[id]?.revert?.outcome),
      ['killed'],
    );
    assert.doesNotMatch(closing, /flagged/);
    for (const l of all.split(/[\n\r]/))
      for (const code of ['E_INPUT_INVALID', 'E_CREDIT_MISSING'])
        assert.ok(l.split(code).length <= 2, `the code is stated once: ${l}`);
    // Without --no-cache the same credit step fills the cache folder.
    const again = await runTty(
      ['runner', '--repo', r.dir, '--runner-job', RUNNER, '--seed', '42', '--now', NOW],
      r.dir,
      false,
      { XDG_CACHE_HOME: cache },
    );
    assert.equal(again.stdout, 'E_CREDIT_MISSING\n', again.writes.join(''));
    assert.equal(existsSync(cache), true, 'the cache is used by default');
  } finally {
    r.dispose();
    rmSync(cache, { recursive: true, force: true });
  }
});

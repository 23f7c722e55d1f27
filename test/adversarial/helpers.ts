import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, type CliRun } from '../helpers/cli.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';
import { AGENT_PATCH, AUTHOR, EXAMPLE_DIR, FOLLOW_UP_PATCH, NOW, RUNNER, exampleFiles } from '../workflow/review.js';

export { AGENT_PATCH, FOLLOW_UP_PATCH };

/**
 * The bundled example committed as the base, with sealgate's own node_modules linked in
 * (installed at base, as a runner job would), ready for an agent's patch.
 */
export function exampleRepo(): { dir: string; base: string; dispose: () => void } {
  const r = makeRepo({ ...exampleFiles(), '.gitignore': 'node_modules\nreview/\npatches/\njunit.xml\n' });
  symlinkSync(resolve('node_modules'), join(r.dir, 'node_modules'), 'dir');
  return {
    ...r,
    base: git(r.dir, 'rev-parse', 'HEAD').trim(),
    dispose: () => {
      r.dispose();
      rmSync(`${r.dir}.cache`, { recursive: true, force: true });
    },
  };
}

/** An agent's patch: the example's patch `from`, then `edit` applied to the files (path to new text, or a function of the old). */
export function agentPatch(
  dir: string,
  from: string,
  edit: Record<string, string | ((old: string) => string)> = {},
): Buffer {
  git(dir, 'apply', join(EXAMPLE_DIR, from));
  for (const [p, e] of Object.entries(edit))
    writeFiles(dir, { [p]: typeof e === 'string' ? e : e(readFileSync(join(dir, p), 'utf8')) });
  git(dir, 'add', '-A');
  const patch = execFileSync('git', ['diff', '--cached', '--binary', 'HEAD'], { cwd: dir });
  git(dir, 'reset', '-q', '--hard', 'HEAD');
  return patch;
}

export function writePatch(dir: string, name: string, bytes: Uint8Array): string {
  writeFiles(dir, { [`patches/${name}`]: bytes });
  return `patches/${name}`;
}

const cli = (dir: string, argv: string[]): Promise<CliRun> =>
  runCli(argv, {
    cwd: dir,
    now: new Date(NOW),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), XDG_CACHE_HOME: join(`${dir}.cache`) },
  });

export async function propose(dir: string, patch: string, extra: string[] = [], runner = RUNNER): Promise<CliRun> {
  return cli(dir, ['propose', '--author-job', AUTHOR, '--runner-job', runner, '--patch', patch, ...extra]);
}

/** The runner job, then verify: the codes and stderr of both. */
export async function runAndVerify(dir: string, runner = RUNNER): Promise<{ runner: CliRun; verify: CliRun }> {
  const job = await cli(dir, ['runner', '--runner-job', runner, '--seed', '42', '--now', NOW]);
  const verify = await cli(dir, ['verify', '--now', NOW]);
  return { runner: job, verify };
}

/** Not ALLOW, and the honest code, with its reason on stderr. */
export function assertHonest(r: CliRun, code: string, reason: RegExp): void {
  const got = r.stdout.trim().split('\n').pop();
  assert.notEqual(got, 'ALLOW', r.stderr);
  assert.equal(got, code, r.stderr);
  assert.notEqual(r.exit, 0);
  assert.match(r.stderr, reason);
}

/** The work tree's files (outside .git, review/, patches/ and node_modules) and the index, hashed: what no runner step may change. */
export function workTreeState(dir: string): string {
  const h = createHash('sha256');
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const p = rel === '' ? name : `${rel}/${name}`;
      if (['.git', 'review', 'patches', 'node_modules'].includes(p)) continue;
      const st = statSync(join(dir, p));
      if (st.isDirectory()) walk(p);
      else h.update(`${p}\0${st.mode}\0`).update(readFileSync(join(dir, p)));
    }
  };
  walk('');
  // The index as entries (git status may refresh its stat data, which is not a change).
  h.update(git(dir, 'ls-files', '--stage'));
  h.update(git(dir, 'status', '--porcelain=v1', '--untracked-files=all', '--ignored=no'));
  h.update(git(dir, 'rev-parse', 'HEAD'));
  return h.digest('hex');
}

export function taxCaseKind(dir: string): string | undefined {
  const cases = JSON.parse(readFileSync(join(dir, 'review/runner/cases.json'), 'utf8')) as {
    cases: { id: string; kind: string }[];
  };
  return cases.cases.find((c) => c.id === 'pricing::tax is computed')?.kind;
}

export { writeFileSync };

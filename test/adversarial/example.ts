// The bundled example driven through the real CLI, for the adversarial scenarios: the author
// writes a patch (as files edited on the base), proposes it; the runner applies it and runs
// the whole runner job; the gate job runs verify. Only the patch bytes are the agent's.
import { readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCli, type CliRun } from '../helpers/cli.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';
import { AUTHOR, EXAMPLE_DIR, NOW, RUNNER, exampleFiles } from '../workflow/review.js';

export { AUTHOR, NOW, RUNNER };
export const REVIEWER = 'reviewer-job-2';

/** The environment the runner's test command needs (node on PATH), nothing else of ours. */
export const RUN_ENV: Record<string, string> = {
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  HOME: process.env['HOME'] ?? '/tmp',
};

export interface Scenario {
  readonly dir: string;
  readonly dispose: () => void;
  readonly patch: string;
  cli(argv: readonly string[]): Promise<CliRun>;
}

/** The text of pricing.ts and the test file at the base, for edits. */
export const baseText = (path: string): string => readFileSync(join(EXAMPLE_DIR, path), 'utf8');

/** The follow-up patch's files (a real bound on taxCents): the honest path that ends in ALLOW. */
export function followUpFiles(): Record<string, string> {
  const r = makeRepo(exampleFiles());
  try {
    git(r.dir, 'apply', join(EXAMPLE_DIR, 'agent/002-bound-tax.diff'));
    return {
      'src/pricing.ts': readFileSync(join(r.dir, 'src/pricing.ts'), 'utf8'),
      'test/pricing.test.ts': readFileSync(join(r.dir, 'test/pricing.test.ts'), 'utf8'),
    };
  } finally {
    r.dispose();
  }
}

/**
 * A repository with the example (plus `baseExtra`) committed; the patch is what `edits` does
 * to it (null deletes a file), as `git diff` writes it. The author proposes it; the runner
 * applies it to the work tree, as the documented workflow says.
 */
export async function propose(
  edits: Record<string, string | null>,
  baseExtra: Record<string, string> = {},
): Promise<Scenario> {
  const r = makeRepo({ ...exampleFiles(), ...baseExtra, '.gitignore': 'node_modules\nreview/\njunit.xml\npatches/\n' });
  symlinkSync(resolve('node_modules'), join(r.dir, 'node_modules'), 'dir');
  for (const [p, text] of Object.entries(edits)) {
    if (text === null) rmSync(join(r.dir, p));
    else writeFiles(r.dir, { [p]: text });
  }
  git(r.dir, 'add', '-A');
  const patch = git(r.dir, 'diff', '--cached', '-M', '--full-index');
  git(r.dir, 'reset', '-q', '--hard');
  mkdirSync(join(r.dir, 'patches'));
  writeFileSync(join(r.dir, 'patches/agent.diff'), patch);
  const cli = (argv: readonly string[]): Promise<CliRun> =>
    runCli(argv, { cwd: r.dir, env: RUN_ENV, now: new Date(NOW) });
  const p = await cli([
    'propose',
    '--author-job',
    AUTHOR,
    '--runner-job',
    RUNNER,
    '--patch',
    'patches/agent.diff',
    '--proposal-id',
    'p-2026-10-12-666',
  ]);
  if (p.exit !== 0) throw new Error(`propose: ${p.stdout} ${p.stderr}`);
  git(r.dir, 'apply', 'patches/agent.diff');
  return { ...r, patch, cli };
}

/** The whole runner job, then (when it got that far) nothing else: its code is the verdict. */
export async function runnerJob(s: Scenario): Promise<CliRun & { code: string }> {
  const out = await s.cli(['runner', '--runner-job', RUNNER, '--seed', '42', '--now', NOW]);
  return { ...out, code: out.stdout.trim() };
}

export async function verify(s: Scenario): Promise<CliRun & { code: string }> {
  const out = await s.cli(['verify', '--now', NOW]);
  return { ...out, code: out.stdout.trim() };
}

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli, type CliRun } from '../helpers/cli.js';
import { bindRecord, git, syncPatch } from '../helpers/git.js';

export const AUTHOR = 'author-job-1';
export const RUNNER = 'runner-job-1';
export const ENV: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', SEED: '1234' };

export interface SealedRepo {
  readonly dir: string;
  readonly cli: (...argv: string[]) => Promise<CliRun>;
  readonly read: (p: string) => string;
  readonly write: (p: string, content: string) => void;
  readonly record: () => Record<string, unknown>;
  readonly dispose: () => void;
}

/**
 * A git repository with a config and fixtures committed as the base, a one-line patch, and a
 * record bound to both; sealed by `sealgate seal` unless told not to. `write` changes what
 * the runner's tree holds: the file goes into the patch on disk (after the seal, a changed
 * patch, as an agent would have to make it).
 */
export async function makeSealedRepo(
  opts: { config?: Record<string, unknown>; files?: Record<string, string>; seal?: boolean; clock?: string } = {},
): Promise<SealedRepo> {
  const root = mkdtempSync(join(tmpdir(), 'sealgate-run-'));
  chmodSync(root, 0o755); // traversable by other users, for the barrier test
  const dir = join(root, 'repo');
  mkdirSync(dir, { mode: 0o755 });
  const write = (p: string, content: string): void => {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), content);
  };
  write('fixtures/orders.json', '{"orders":[1,2,3]}\n');
  write(
    'review/proposal.json',
    JSON.stringify(
      {
        proposal_id: 'p-1',
        author_job: AUTHOR,
        runner_job: RUNNER,
        patch_path: 'patches/1.diff',
        digest_status: 'open',
        logs_present: false,
        logs_after_seal: true,
        log_visibility: 'hidden',
      },
      null,
      2,
    ) + '\n',
  );
  write(
    'sealgate.config.json',
    JSON.stringify(
      {
        fixtures: ['fixtures/**'],
        clock: opts.clock ?? 'live',
        locale: 'C.UTF-8',
        test: { junit: ['junit.xml'] },
        ...(opts.config ?? {}),
      },
      null,
      2,
    ) + '\n',
  );
  for (const [p, c] of Object.entries(opts.files ?? {})) write(p, c);
  write('src/app.txt', 'base\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'core.autocrlf', 'false');
  writeFileSync(join(dir, '.gitignore'), 'review/\npatches/\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  write('src/app.txt', 'patched\n');
  bindRecord(dir, 'review/proposal.json', 'patches/1.diff');
  const cli = (...argv: string[]): Promise<CliRun> => runCli(argv, { cwd: dir, env: ENV });
  if (opts.seal !== false) {
    const r = await cli('seal', '--runner-job', RUNNER);
    if (r.exit !== 0) throw new Error(`seal failed: ${r.stdout}${r.stderr}`);
  }
  return {
    dir,
    cli,
    read: (p) => readFileSync(join(dir, p), 'utf8'),
    write: (p, content) => {
      write(p, content);
      syncPatch(dir, 'patches/1.diff');
    },
    record: () => JSON.parse(readFileSync(join(dir, 'review/proposal.json'), 'utf8')) as Record<string, unknown>,
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * A prefix for `run -- ...` commands: writes a one-case junit.xml, then execs the command
 * unchanged (its output, status and signal are its own). A run with no case is refused.
 */
export const ONE_CASE = [
  'sh',
  '-c',
  `printf '%s\\n' '<testsuite name="s" tests="1"><testcase classname="s" name="one"/></testsuite>' > junit.xml; exec "$@"`,
  'sh',
];

/** A shell command that writes `xml` to junit.xml and exits with `exit`. */
export function shWritingJunit(xml: string, exit = 0, extra = ''): string[] {
  return ['sh', '-c', `cat > junit.xml <<'SEALGATE_EOF'\n${xml}\nSEALGATE_EOF\n${extra}\nexit ${exit}`];
}

export const PASS_FAIL_XML = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="demo">
  <testsuite name="demo" tests="2" failures="1" errors="0" skipped="0">
    <testcase classname="demo.Spec" name="passes" time="0.010"/>
    <testcase classname="demo.Spec" name="fails" time="0.020"><failure message="boom">stack</failure></testcase>
  </testsuite>
</testsuites>`;

import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runCli, type CliRun } from '../helpers/cli.js';
import { bindRecord, git, syncPatch, tempDir, writeFiles } from '../helpers/git.js';

export const RECORD = {
  proposal_id: 'p-2026-10-12-014',
  author_job: 'model-session-17',
  runner_job: 'server-job-88',
  patch_path: 'patches/014.diff',
  digest_status: 'open',
  logs_present: false,
  logs_after_seal: true,
  log_visibility: 'hidden',
};

export const FIXTURES = {
  'fixtures/orders.json': '{"orders":[1,2,3]}\n',
  'fixtures/clock.json': '{"now":"2026-10-12T12:00:00Z"}\n',
  'fixtures/nested/prices.csv': 'sku,cents\nA,100\n',
};

/**
 * A scratch git repository: `files` committed as the base, a one-line change to src/app.txt
 * in the work tree, and a record; remove it with dispose(). The runner tests whatever the
 * work tree holds: `seal` below turns it into the recorded patch, `verifySeal` into the patch
 * on disk (a change after the seal is a changed patch, as an agent would have to make it).
 */
export function sealRepo(
  files: Record<string, string | Uint8Array> = FIXTURES,
  record: object | string = RECORD,
): { dir: string; dispose: () => void } {
  const t = tempDir('sealgate-seal-');
  git(t.dir, 'init', '-q', '-b', 'main');
  git(t.dir, 'config', 'core.autocrlf', 'false');
  writeFiles(t.dir, { ...files, 'src/app.txt': 'base\n' });
  git(t.dir, 'add', '-A');
  git(t.dir, 'commit', '-q', '-m', 'base');
  writeFiles(t.dir, {
    'src/app.txt': 'patched\n',
    'review/proposal.json': typeof record === 'string' ? record : JSON.stringify(record, null, 2) + '\n',
  });
  if (typeof record !== 'string' && 'patch_path' in record) bindRecord(t.dir);
  return t;
}

/** `sealgate seal --verify` after the work tree's state became the patch on disk. */
export function verifySealCli(dir: string, extra: readonly string[] = []): Promise<CliRun> {
  syncPatch(dir);
  return runCli(['seal', '--verify', '--repo', dir, ...extra]);
}

export const ARGS = ['--fixtures', 'fixtures/**', '--seed', '42', '--clock', 'frozen', '--locale', 'C.UTF-8'];

export function seal(
  dir: string,
  extra: readonly string[] = [],
  job = 'server-job-88',
  env: Record<string, string> = {},
): Promise<CliRun> {
  const k = extra.indexOf('--record');
  const record = k >= 0 ? relative(dir, extra[k + 1] as string) : 'review/proposal.json';
  if (existsSync(join(dir, record))) bindRecord(dir, record);
  return runCli(['seal', '--repo', dir, '--runner-job', job, ...ARGS, ...extra], { env });
}

export function read(dir: string, rel: string): string {
  return readFileSync(join(dir, rel), 'utf8');
}

export function has(dir: string, rel: string): boolean {
  return existsSync(join(dir, rel));
}

/** Every file under review/ with its bytes: to show that a read-only check wrote nothing. */
export function snapshot(dir: string, rel = 'review'): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (r: string): void => {
    const full = join(dir, r);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) for (const n of readdirSync(full)) walk(`${r}/${n}`);
    else out.set(r, `${statSync(full).mtimeMs}:${readFileSync(full, 'base64')}`);
  };
  walk(rel);
  return out;
}

/** runCli for a `sealgate seal` argv: the record is first bound to the work tree's state (see sealRepo). */
export function runSeal(argv: readonly string[], opts: Parameters<typeof runCli>[1] = {}): Promise<CliRun> {
  const dir = argv[argv.indexOf('--repo') + 1] as string;
  const k = argv.indexOf('--record');
  const record = k >= 0 ? relative(dir, argv[k + 1] as string) : 'review/proposal.json';
  if (existsSync(join(dir, record))) bindRecord(dir, record);
  return runCli(argv, opts);
}

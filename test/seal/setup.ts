import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type CliRun } from '../helpers/cli.js';
import { tempDir, writeFiles } from '../helpers/git.js';

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

/** A scratch repository with fixtures and a record; remove it with dispose(). */
export function sealRepo(files: Record<string, string | Uint8Array> = FIXTURES, record: object | string = RECORD): { dir: string; dispose: () => void } {
  const t = tempDir('sealgate-seal-');
  writeFiles(t.dir, { ...files, 'review/proposal.json': typeof record === 'string' ? record : JSON.stringify(record, null, 2) + '\n' });
  return t;
}

export const ARGS = ['--fixtures', 'fixtures/**', '--seed', '42', '--clock', 'frozen', '--locale', 'C.UTF-8'];

export function seal(dir: string, extra: readonly string[] = [], job = 'server-job-88', env: Record<string, string> = {}): Promise<CliRun> {
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

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'sealgate-test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'sealgate-test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: tmpdir(),
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, ...GIT_ENV },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
}

export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), content);
  }
}

/** A throwaway git repository with one commit of `files`; remove it with `dispose()`. */
export function makeRepo(files: Record<string, string | Uint8Array> = {}): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-repo-'));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'core.autocrlf', 'false');
  writeFiles(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'base');
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export function tempDir(prefix = 'sealgate-'): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The patch of everything in the work tree that differs from HEAD (review/ and patches/
 * aside), made in a temporary index: the tests' way to say "the runner's tree holds what the
 * work tree holds now". Written to `patch`; returns its SHA-256 and the base commit.
 */
export function syncPatch(dir: string, patch = 'patches/014.diff'): { base: string; sha256: string; bytes: Buffer } {
  const index = join(mkdtempSync(join(tmpdir(), 'sealgate-idx-')), 'index');
  const env = { ...process.env, ...GIT_ENV, GIT_INDEX_FILE: index };
  const run = (...args: string[]): Buffer => execFileSync('git', args, { cwd: dir, env, maxBuffer: 256 * 1024 * 1024 });
  try {
    run('read-tree', 'HEAD');
    run('add', '-A');
    run('rm', '--cached', '-r', '-q', '--ignore-unmatch', '--', 'review', 'patches');
    const bytes = run('diff', '--cached', '--binary', '--full-index', 'HEAD');
    mkdirSync(dirname(join(dir, patch)), { recursive: true });
    writeFileSync(join(dir, patch), bytes);
    return {
      base: run('rev-parse', 'HEAD').toString('utf8').trim(),
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes,
    };
  } finally {
    rmSync(dirname(index), { recursive: true, force: true });
  }
}

/** Set the record's patch_sha256 and base_commit (JSON or YAML text) to the patch now on disk. */
export function bindRecord(dir: string, record = 'review/proposal.json', patch = 'patches/014.diff'): void {
  const { base, sha256 } = syncPatch(dir, patch);
  const path = join(dir, record);
  let text = readFileSync(path, 'utf8');
  if (/^\s*\{/.test(text)) {
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return; // not a record the author could propose: left as it is
    }
    if (!('patch_path' in o) || (text.match(/"proposal_id"/g) ?? []).length > 1) return;
    text = JSON.stringify({ ...o, patch_sha256: sha256, base_commit: base }, null, 2) + '\n';
  } else {
    text = text.replace(/^(patch_sha256|base_commit):.*\n/gm, '') + `patch_sha256: ${sha256}\nbase_commit: ${base}\n`;
  }
  if (text !== readFileSync(path, 'utf8')) writeFileSync(path, text);
}

/**
 * Rewrite the patch at `patch` so it also sets `files` (path to content): base + old patch +
 * these files, diffed against HEAD in a temporary index. What an agent (or anyone with
 * write access to patches/) would have to do to change what the runner's tree holds.
 */
export function patchWith(dir: string, patch: string, files: Record<string, string>): void {
  const tmp = mkdtempSync(join(tmpdir(), 'sealgate-idx-'));
  const env = { ...process.env, ...GIT_ENV, GIT_INDEX_FILE: join(tmp, 'index') };
  const run = (args: string[], input?: string): Buffer =>
    execFileSync('git', args, { cwd: dir, env, input, maxBuffer: 256 * 1024 * 1024 });
  try {
    run(['read-tree', 'HEAD']);
    run(['apply', '--cached', join(dir, patch)]);
    for (const [p, content] of Object.entries(files)) {
      const sha = run(['hash-object', '-w', '--stdin'], content).toString('utf8').trim();
      run(['update-index', '--add', '--cacheinfo', `100644,${sha},${p}`]);
    }
    writeFileSync(join(dir, patch), run(['diff', '--cached', '--binary', 'HEAD']));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * A fixture folder as the files of a repository (for writeFiles / makeRepo): relative path to
 * text, with a `.txt` suffix dropped (fixture sources are stored as .txt so that no test runner
 * or linter picks them up).
 */
export function readTree(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, prefix))) {
    const rel = prefix ? `${prefix}/${name}` : name;
    if (statSync(join(dir, rel)).isDirectory()) Object.assign(out, readTree(dir, rel));
    else out[rel.replace(/\.txt$/, '')] = readFileSync(join(dir, rel), 'utf8');
  }
  return out;
}

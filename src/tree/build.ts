import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SealgateError, inputInvalid } from '../core/errors.js';
import { sha256Hex } from '../core/ids.js';
import { stampTree } from '../core/times.js';
import { readBoundedFile } from '../core/io.js';
import { LAYOUT } from '../core/layout.js';
import { runGit } from '../diff/git.js';
import { resolveInRepo } from '../core/io.js';
import { readRecordFile } from '../record/file.js';
import { applyRefusal, checkPatchBytes, checkTreeSource, parseTreeId } from './plan.js';

/**
 * The runner's own tree: base commit + the record's patch, built in a temporary index
 * and object directory (the repository's objects as an alternate), checked out into a
 * fresh folder. The one place that runs git against the user's repository to build a
 * tree; the user's work tree, index and object database are never written.
 */
export interface RunnerTree {
  /** The pristine checkout: read by the seal, symbols and the classifier; never run in. */
  readonly root: string;
  /** `git write-tree` of base + patch: sealed as the `tree=` line. */
  readonly treeId: string;
  readonly baseCommit: string;
  readonly patchSha256: string;
  dispose(): void;
}

export interface BuildRequest {
  readonly repo: string;
  readonly baseCommit: string;
  readonly patchBytes: Uint8Array;
  readonly label?: string;
}

const MAX_PATCH_BYTES = 256 * 1024 * 1024;

/**
 * The work tree's top folder and object folder, with `base` checked to be one of its commits:
 * one `git rev-parse` for the three answers (a process start saved twice per tree). Where its
 * output cannot be split for sure (a path with a line break), each is asked on its own.
 */
function locateRepo(repo: string, base: string): { root: string; objectDir: string } {
  const notCommit = (root: string): SealgateError =>
    inputInvalid('base_commit', `"${base}" is not a commit of the repository ${root}`);
  const baseOk = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(base);
  const all = runGit(repo, [
    'rev-parse',
    '--path-format=absolute',
    '--show-toplevel',
    '--git-path',
    'objects',
    '--verify',
    '--quiet',
    '--end-of-options',
    `${base}^{commit}`,
  ]);
  const lines = all.stdout.toString('utf8').split('\n');
  if (all.status === 0 && lines.length === 4 && lines[3] === '') {
    const [root, objectDir, commit] = lines as [string, string, string];
    if (!baseOk || commit !== base) throw notCommit(root);
    return { root, objectDir };
  }
  const top = runGit(repo, ['rev-parse', '--show-toplevel']);
  if (top.status !== 0) throw inputInvalid(repo, 'not inside a git work tree');
  const root = top.stdout.toString('utf8').replace(/\n$/, '');
  const commit = runGit(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`]);
  if (!baseOk || commit.status !== 0 || commit.stdout.toString('utf8').trim() !== base) throw notCommit(root);
  const objects = runGit(root, ['rev-parse', '--path-format=absolute', '--git-path', 'objects']);
  if (objects.status !== 0)
    throw new SealgateError('E_INTERNAL', `cannot locate the object directory: ${objects.stderr.trim()}`);
  return { root, objectDir: objects.stdout.toString('utf8').trim() };
}

/** Build the tree: read-tree base, apply --cached exactly once, write-tree, checkout-index. */
export function buildTree(req: BuildRequest): RunnerTree {
  const label = req.label ?? 'patch';
  const base = req.baseCommit;
  const { root, objectDir } = locateRepo(req.repo, base);
  const tmp = mkdtempSync(join(tmpdir(), 'sealgate-tree-'));
  const dispose = (): void => rmSync(tmp, { recursive: true, force: true });
  try {
    mkdirSync(join(tmp, 'objects'));
    const env = {
      GIT_INDEX_FILE: join(tmp, 'index'),
      GIT_OBJECT_DIRECTORY: join(tmp, 'objects'),
      GIT_ALTERNATE_OBJECT_DIRECTORIES: objectDir,
    };
    const step = (args: string[], what: string): string => {
      const r = runGit(root, args, { env });
      if (r.status !== 0)
        throw inputInvalid(what, `git ${args[0] ?? ''} failed: ${r.stderr.trim() || `exit ${String(r.status)}`}`);
      return r.stdout.toString('utf8');
    };
    step(['read-tree', base], 'git read-tree');
    const patchFile = join(tmp, 'patch.diff');
    writeFileSync(patchFile, req.patchBytes);
    const applied = runGit(
      root,
      ['-c', 'apply.ignoreWhitespace=no', 'apply', '--cached', '-v', '--whitespace=nowarn', patchFile],
      { env },
    );
    const refusal = applyRefusal(applied.status, applied.stderr, base);
    if (refusal !== null) throw inputInvalid(label, refusal);
    const treeId = parseTreeId(step(['write-tree'], 'git write-tree'));
    if (treeId === null) throw new SealgateError('E_INTERNAL', 'git write-tree printed no tree id');
    const out = join(tmp, 'tree');
    mkdirSync(out, { mode: 0o755 });
    step(
      ['-c', 'core.autocrlf=false', '-c', 'core.symlinks=true', 'checkout-index', '-a', '-f', `--prefix=${out}/`],
      'git checkout-index',
    );
    // One fixed modification time for the whole tree (core/times.ts): copies keep it (cp -a).
    stampTree(out);
    return { root: realpathSync(out), treeId, baseCommit: base, patchSha256: sha256Hex(req.patchBytes), dispose };
  } catch (err) {
    dispose();
    throw err;
  }
}

export interface RecordTreeOptions {
  /** The record, relative to the repository (default review/proposal.json). */
  readonly record?: string;
  /**
   * Refuse patch bytes other than the record's patch_sha256 (every runner step). Off only for
   * verify's drift check, which rebuilds from the bytes on disk and compares tree ids.
   */
  readonly checkHash?: boolean;
}

/** Read the record's base commit and patch, and build the runner's tree from them. */
export function buildRecordTree(repo: string, opts: RecordTreeOptions = {}): RunnerTree {
  const rel = opts.record ?? LAYOUT.record;
  const full = resolve(repo, rel);
  if (!existsSync(full)) throw inputInvalid(rel, 'record not found');
  const record = readRecordFile(full, rel).record;
  const source = checkTreeSource(record, rel);
  if (!source.ok) throw new SealgateError(source.finding.code, [source.finding]);
  const bytes = readBoundedFile(
    resolveInRepo(repo, source.value.patchPath, `${rel}#patch_path`),
    MAX_PATCH_BYTES,
    'patch',
  );
  if (opts.checkHash ?? true) {
    const bad = checkPatchBytes(bytes, source.value.patchSha256, rel);
    if (bad !== null) throw new SealgateError(bad.code, [bad]);
  }
  return buildTree({ repo, baseCommit: source.value.baseCommit, patchBytes: bytes, label: source.value.patchPath });
}

import { spawn } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  cpSync,
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { packageRoot } from '../core/package-root.js';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, sep } from 'node:path';
import type { SandboxKind } from '../config/schema.js';
import { inputInvalid } from '../core/errors.js';
import { TREE_TIME, stampTree } from '../core/times.js';
import { execInGroup, type ExecOutcome } from './exec.js';
import { listCopyEntries, readDependencyFolders, readHostView, requireSandbox, type Secrets } from './host.js';
import { keyringFilter } from './seccomp.js';
import {
  isWithin,
  planSandbox,
  type DependencyFolder,
  type HostView,
  type RunDirs,
  type SandboxLimits,
  type SandboxPlan,
} from './plan.js';

/**
 * Carrying a sandbox plan out: a fresh copy of the tree per run, bubblewrap around the
 * command, outputs read from the copy after everything inside has ended, the copy removed.
 */

/**
 * Where the command's program is, looked up as execvp would (PATH of the plan, or relative to
 * the run's copy), on the host side of the same paths; null when it is nowhere. bubblewrap
 * reports an exec failure only as its own exit status 1, so a missing program is caught here.
 */
export function findProgram(plan: SandboxPlan): string | null {
  const program = plan.command[0] ?? '';
  const runnable = (p: string): boolean => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  // A path inside the sandbox, on the host: through the deepest bind that holds it (a dependency
  // folder is bound over the copy), else the copy itself, else the same path.
  const toHost = (inside: string): string => {
    let best: { src: string; dest: string } | null = null;
    for (const m of plan.mounts)
      if (
        (m.kind === 'bind' || m.kind === 'ro-bind') &&
        isWithin(inside, m.dest) &&
        (best === null || m.dest.length > best.dest.length)
      )
        best = m;
    if (best !== null && best.dest !== plan.cwd) return join(best.src, posix.relative(best.dest, inside));
    return isWithin(inside, plan.cwd) ? join(plan.hostCwd, posix.relative(plan.cwd, inside)) : inside;
  };
  if (program.includes('/')) {
    const inTree = toHost(program.startsWith('/') ? program : posix.join(plan.cwd, program));
    return runnable(inTree) ? inTree : null;
  }
  for (const dir of (plan.env.PATH ?? '').split(':')) {
    if (dir === '') continue;
    const p = toHost(posix.join(dir, program));
    if (runnable(p)) return p;
  }
  return null;
}

/** The one place the project's code is executed: the plan's argv in its own process group, streams to the capped files. */
export async function runSandboxed(plan: SandboxPlan): Promise<ExecOutcome> {
  if (plan.isolation === 'bwrap' && findProgram(plan) === null) {
    // Nothing ran: the streams are created empty, as for a spawn failure.
    for (const p of [plan.output.stdoutPath, plan.output.stderrPath])
      closeSync(openSync(p, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600));
    const none = { bytes: 0, truncated: false };
    return {
      exit_code: null,
      signal: null,
      timed_out: false,
      duration_ms: 0,
      spawn_error: `ENOENT: ${JSON.stringify(plan.command[0])} is not a program the sandbox can run (not found on its PATH or in the tree)`,
      stdout: none,
      stderr: none,
    };
  }
  // bubblewrap reads the seccomp filter its argv names (--seccomp 3) from fd 3.
  const filter = plan.isolation === 'bwrap' ? keyringFilter() : null;
  if (plan.isolation === 'bwrap' && filter === null) throw new Error(`no seccomp filter for ${process.arch}`);
  return execInGroup({
    command: plan.argv,
    cwd: plan.hostCwd,
    env: plan.env,
    timeoutMs: plan.limits.timeoutMs,
    stdoutPath: plan.output.stdoutPath,
    stderrPath: plan.output.stderrPath,
    capBytes: plan.limits.capBytes,
    ...(plan.limits.killGraceMs !== undefined ? { killGraceMs: plan.limits.killGraceMs } : {}),
    ...(plan.limits.signal !== undefined ? { signal: plan.limits.signal } : {}),
    ...(plan.limits.nice !== undefined ? { nice: plan.limits.nice } : {}),
    ...(filter !== null ? { inputs: [filter] } : {}),
  });
}

/** Fresh folders for one run (mode 0700) under `parent`: work (the tree's copy), home, tmp. */
export function makeRunDirs(parent: string = tmpdir()): RunDirs & { root: string } {
  const root = mkdtempSync(join(parent, 'sealgate-run-'));
  const dirs = { root, work: join(root, 'work'), home: join(root, 'home'), tmp: join(root, 'tmp') };
  for (const d of [dirs.work, dirs.home, dirs.tmp]) mkdirSync(d, { mode: 0o700 });
  return dirs;
}

/** Copy `source` (any tree: the user's, the runner's, a credit workspace) into `dest`, leaving out .git, review/ and dependency folders; reflinks where the file system has them. */
export function copyTree(source: string, dest: string): Promise<void> {
  const entries = listCopyEntries(source);
  if (entries.length === 0) return Promise.resolve();
  return new Promise((resolveCopy, reject) => {
    const child = spawn('cp', ['-a', '--reflink=auto', '--', ...entries, `${dest}/`], {
      cwd: source,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolveCopy()
        : reject(new Error(`could not copy the tree for the run: ${err.trim() || `cp exit ${String(code)}`}`)),
    );
  });
}

/**
 * A file the run left at `rel` in its copy, or why it is unusable: every folder on the way
 * must be a real folder (no link out of the copy) and the file itself a regular file.
 */
export function resolveOutput(work: string, rel: string): { path: string } | { missing: string } {
  const parts = posix.normalize(rel).split('/');
  let at = work;
  for (const [i, part] of parts.entries()) {
    if (part === '' || part === '.' || part === '..') return { missing: `"${rel}" is not a plain relative path` };
    at = join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      return { missing: 'the test command did not write it' };
    }
    const last = i === parts.length - 1;
    if (!last && !st.isDirectory())
      return { missing: `${parts.slice(0, i + 1).join('/')} is not a folder (a link or file); not followed` };
    if (last && !st.isFile()) return { missing: 'not a regular file (a link or special file); not read' };
  }
  return { path: at };
}

/** What a run needs besides the command: the isolation, the host view, bubblewrap, the secrets. */
export interface Box {
  readonly isolation: SandboxKind;
  readonly bwrap: string;
  readonly host: HostView;
  readonly secrets: Secrets;
}

/**
 * The box for this process's runs: E_SANDBOX_UNAVAILABLE (at `path`) when the isolation asked
 * for cannot be had here (probed once by running `bwrap ... true`).
 */
export function openBox(opts: {
  isolation: SandboxKind;
  bwrap: string;
  env: Readonly<Record<string, string | undefined>>;
  secrets: Secrets;
  extraReadOnly?: readonly string[];
  path: string;
}): Box {
  requireSandbox(opts.isolation, opts.bwrap, opts.path);
  const host = readHostView({
    env: opts.env,
    hidden: opts.secrets.hidden,
    ...(opts.extraReadOnly ? { extraReadOnly: opts.extraReadOnly } : {}),
  });
  return { isolation: opts.isolation, bwrap: opts.bwrap, host, secrets: opts.secrets };
}

function lstatOrNull(p: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** Where sealgate's node:test reporter is put in every run's copy (a test command names it by this path). */
export const NODE_TEST_REPORTER = '.sealgate/node-test-reporter.mjs';
let helperFiles: ReadonlyMap<string, string> | undefined;

/**
 * Files sealgate puts into every run's copy, over whatever the tree holds at that path: its
 * node:test reporter (JUnit with the file on every case). sealgate's install is never visible
 * to a run, so the reporter comes in as a file of the copy, in the sandbox or out of it.
 */
function runHelperFiles(): ReadonlyMap<string, string> {
  if (helperFiles !== undefined) return helperFiles;
  const built = join(packageRoot(), 'dist', 'reporters', 'node-test.js');
  helperFiles = new Map(existsSync(built) ? [[NODE_TEST_REPORTER, readFileSync(built, 'utf8')]] : []);
  return helperFiles;
}

/** The dependency folders of `tree` a run may see, or an error naming those it may not. */
export function dependencyFolders(box: Box, tree: string): DependencyFolder[] {
  const { deps, refused } = readDependencyFolders(tree, box.secrets.forbidden, box.secrets.install);
  if (refused.length > 0) throw inputInvalid('dependency folders', `refused for the sandbox: ${refused.join('; ')}`);
  if (box.isolation === 'none') return deps;
  return deps.map((d) => {
    const scratch = scratchFolders(d);
    return scratch.length > 0 ? { ...d, scratch } : d;
  });
}

/**
 * The folders of a dependency folder that tools write to as they run, each covered by a fresh
 * tmpfs in the sandbox (planMounts): node_modules/.vite-temp where vite is installed (vite
 * writes a bundled config file there and imports it; a read-only folder fails the whole run:
 * EROFS), and node_modules/.vitest where vitest is (vitest before 1.0 writes its results cache
 * there after the tests, and a read-only folder turns a green run into exit 1: antfu/utils at
 * vitest 0.31). The mount point must exist on the host, below a read-only bind: made here when
 * missing (the tool makes the same folder on its first unsandboxed run). Only a real folder is
 * used; anything else there (a file, a link) gets no tmpfs, and the tool fails as it would.
 * Every run starts with them empty, so no run sees what another wrote.
 */
function scratchFolders(d: DependencyFolder): string[] {
  if (d.name !== 'node_modules') return [];
  const wanted = [
    ...(existsSync(join(d.src, 'vite', 'package.json')) ? ['.vite-temp'] : []),
    ...(existsSync(join(d.src, 'vitest', 'package.json')) ? ['.vitest'] : []),
  ];
  return wanted.filter((name) => {
    const p = join(d.src, name);
    try {
      mkdirSync(p);
    } catch {
      /* there already, or not possible: checked below */
    }
    return lstatOrNull(p)?.isDirectory() === true;
  });
}

export interface FreshRun {
  /** The source tree to copy. */
  readonly source: string;
  readonly deps: readonly DependencyFolder[];
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly limits: SandboxLimits;
  readonly output: { readonly stdoutPath: string; readonly stderrPath: string };
  /** Where the run folders go (default: the system temp folder). */
  readonly parent?: string;
  /** Variables naming a file in the run's own TMPDIR (the value is the file name), set to its path as the run sees it. */
  readonly tmpFiles?: Readonly<Record<string, string>>;
  /** Paths (relative) removed from the copy before the run: a report left in the source must not pass for this run's. */
  readonly clean?: readonly string[];
  /** Files (relative path to text) written over the copy: a mutant's. Replaced, never written through a link. */
  readonly files?: ReadonlyMap<string, string>;
  /** A folder of runner caches (keepRunnerCaches) copied into the run's TMPDIR before it starts, every file stamped with the tree's one time. */
  readonly seedTmp?: string;
  /** After the run: its runner caches (RUNNER_CACHE) copied out to this folder, replacing what it held (keepRunnerCaches). */
  readonly keepTmp?: string;
  /**
   * The source is used by this run alone (a `sealgate run` that built its tree for itself):
   * it is moved into place instead of copied, and what a copy leaves out (.git, review/,
   * dependency folders) is removed from it. Either way the run gets a tree no run has touched.
   */
  readonly moveSource?: boolean;
}

/**
 * Remove `rel` from the copy at `work` (a report the source left, which must not pass for this
 * run's), only where every folder on the way is a real folder of the copy: a link the patch
 * made in place of a folder is never followed, so nothing outside the copy is removed. The
 * last part, a link itself, is removed as a link. Returns the folder it was removed from, or
 * null when there was nothing to remove there.
 */
export function removeInCopy(work: string, rel: string): string | null {
  const parts = posix.normalize(rel).split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return null;
  let at = work;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    if (lstatOrNull(at)?.isDirectory() !== true) return null;
  }
  const target = join(at, parts[parts.length - 1] as string);
  if (lstatOrNull(target) === null) return null;
  rmSync(target, { force: true, recursive: true });
  return at;
}

/** Move `source` to `work` (same file system) as a copy would make it, or false to copy instead. */
function moveTree(source: string, work: string): boolean {
  const keep = new Set(listCopyEntries(source));
  const drop = readdirSync(source).filter((n) => !keep.has(n));
  try {
    rmdirSync(work);
    renameSync(source, work);
  } catch {
    if (!existsSync(work)) mkdirSync(work, { mode: 0o700 });
    return false;
  }
  chmodSync(work, 0o700);
  for (const n of drop) rmSync(join(work, n), { recursive: true, force: true });
  return true;
}

/**
 * The folders of a run's TMPDIR a later run may start with: the transform caches jest
 * (`jest_<uid>`, its default cacheDirectory under the temp folder) and tsx (`tsx-<uid>`) keep
 * there, keyed by each file's bytes and the config. Nothing else a run leaves is kept.
 */
export const RUNNER_CACHE = /^(?:jest_[0-9a-z]+|tsx-[0-9]+)$/;
/** Beyond these, no cache is kept (a run that fills its TMPDIR costs only itself). */
export const MAX_RUNNER_CACHE_BYTES = 256 * 1024 * 1024;
export const MAX_RUNNER_CACHE_ENTRIES = 50_000;

/**
 * Copy the runner caches (RUNNER_CACHE) a run left in `tmp` to `to`, replacing what `to` held.
 * Only real folders holding nothing but folders and regular files, within the caps; anything
 * else (a link, a pipe, a file it cannot read, too much) and nothing is kept: the next runs
 * start without a cache, as every run did before.
 */
export function keepRunnerCaches(tmp: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  let names: string[];
  try {
    names = readdirSync(tmp).filter((n) => RUNNER_CACHE.test(n) && lstatSync(join(tmp, n)).isDirectory());
  } catch {
    return;
  }
  if (names.length === 0) return;
  let bytes = 0;
  let entries = 0;
  const fits = (dir: string): boolean => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (++entries > MAX_RUNNER_CACHE_ENTRIES) return false;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!fits(p)) return false;
      } else if (e.isFile()) {
        bytes += lstatSync(p).size;
        if (bytes > MAX_RUNNER_CACHE_BYTES) return false;
      } else return false;
    }
    return true;
  };
  try {
    if (!names.every((n) => fits(join(tmp, n)))) return;
    mkdirSync(to, { recursive: true, mode: 0o700 });
    for (const n of names)
      cpSync(join(tmp, n), join(to, n), {
        recursive: true,
        dereference: false,
        verbatimSymlinks: true,
        errorOnExist: true,
        force: false,
      });
  } catch {
    rmSync(to, { recursive: true, force: true });
  }
}

/** Copy the caches kept by keepRunnerCaches into a run's TMPDIR, each file and folder with the tree's one time (core/times.ts): they say nothing of when they were made. */
export function seedRunnerCaches(from: string, tmp: string): void {
  if (!existsSync(from)) return;
  for (const n of readdirSync(from)) {
    if (RUNNER_CACHE.test(n))
      cpSync(join(from, n), join(tmp, n), {
        recursive: true,
        dereference: false,
        verbatimSymlinks: true,
        errorOnExist: true,
        force: false,
      });
  }
  // The run's TMPDIR holds nothing else yet.
  stampTree(tmp);
}

/**
 * One run in a fresh copy of `source`: copy, plan, run, then `collect` reads what it needs
 * from the copy (the sandbox has ended by then), and the run's folders are removed.
 */
export async function runInFreshCopy<T>(
  box: Box,
  run: FreshRun,
  collect: (outcome: ExecOutcome, dirs: RunDirs, plan: SandboxPlan) => T | Promise<T>,
): Promise<T> {
  const dirs = makeRunDirs(run.parent);
  try {
    if (!(run.moveSource === true && moveTree(run.source, dirs.work))) await copyTree(run.source, dirs.work);
    // What changes the copy here gets the tree's one modification time back (core/times.ts), the
    // folders it changed too: a run tells from the clock neither when it was made nor what was written.
    const touched = new Set<string>([dirs.work]);
    for (const rel of run.clean ?? []) {
      const folder = removeInCopy(dirs.work, rel);
      if (folder !== null) touched.add(folder);
    }
    for (const [rel, text] of [...runHelperFiles(), ...(run.files ?? [])]) {
      const target = join(dirs.work, rel);
      // The folder must be the copy's own: a link the patch made must not carry the write out.
      const work = realpathSync(dirs.work);
      const inside = (p: string): boolean => p === work || p.startsWith(`${work}${sep}`);
      let existing = dirname(target);
      while (lstatOrNull(existing) === null && existing !== dirs.work) existing = dirname(existing);
      if (!inside(realpathSync(existing)))
        throw inputInvalid(rel, 'its folder is a link out of the tree; a file is never written through it');
      // A file of the tree where the path needs a folder (a patch that adds a file `.sealgate`):
      // say so, instead of the bare EEXIST or ENOTDIR mkdir would give.
      for (let d = dirname(target); d.length > dirs.work.length; d = dirname(d)) {
        const st = lstatOrNull(d);
        if (st !== null && st !== undefined && !st.isDirectory() && !st.isSymbolicLink())
          throw inputInvalid(
            rel,
            `the tree holds a file at ${relative(dirs.work, d)}, where sealgate puts the folder of a file it writes into every run's copy (${rel}); a tree may not use that path`,
          );
      }
      if (lstatOrNull(target)?.isDirectory() === true)
        throw inputInvalid(
          rel,
          `the tree holds a folder at this path, where sealgate writes a file into every run's copy; a tree may not use that path`,
        );
      try {
        mkdirSync(dirname(target), { recursive: true });
      } catch (err) {
        throw inputInvalid(
          rel,
          `its folder cannot be made in the run's copy (${(err as NodeJS.ErrnoException).code ?? 'error'}): the tree holds something else on its path`,
        );
      }
      if (!inside(realpathSync(dirname(target))))
        throw inputInvalid(rel, 'its folder is a link out of the tree; a file is never written through it');
      rmSync(target, { force: true });
      writeFileSync(target, text);
      lutimesSync(target, TREE_TIME, TREE_TIME);
      for (let d = dirname(target); d.length >= dirs.work.length; d = dirname(d)) {
        touched.add(d);
        if (d === dirs.work) break;
      }
    }
    // Unsandboxed, the dependency folders are links in the copy; sandboxed, read-only binds at the same place.
    if (box.isolation === 'none') {
      for (const d of run.deps) {
        symlinkSync(d.src, join(dirs.work, d.name), 'dir');
        lutimesSync(join(dirs.work, d.name), TREE_TIME, TREE_TIME);
      }
    }
    // Deepest first (a folder's time changes when an entry in it is made); a clean path that removed nothing adds no folder.
    for (const d of [...touched].sort((a, b) => b.length - a.length)) lutimesSync(d, TREE_TIME, TREE_TIME);
    if (run.seedTmp !== undefined) seedRunnerCaches(run.seedTmp, dirs.tmp);
    const plan = planSandbox({
      isolation: box.isolation,
      bwrap: box.bwrap,
      host: box.host,
      command: run.command,
      env: run.env,
      ...(run.tmpFiles ? { tmpFiles: run.tmpFiles } : {}),
      run: dirs,
      deps: run.deps,
      limits: run.limits,
      output: run.output,
    });
    const outcome = await runSandboxed(plan);
    if (run.keepTmp !== undefined) keepRunnerCaches(dirs.tmp, run.keepTmp);
    return await collect(outcome, dirs, plan);
  } finally {
    try {
      rmSync(dirs.root, { recursive: true, force: true });
    } catch {
      /* a folder the test made unreadable: left in the temp folder, never read again */
    }
  }
}

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, sep } from 'node:path';
import { execInGroup } from '../runner/exec.js';
import { parseJunitXml, type JunitCase } from '../runner/junit.js';

/** Directories never copied: VCS data, the review tree, byte-code caches; dependency folders are linked instead. */
const SKIP_DIRS = new Set(['.git', '__pycache__', '.pytest_cache', '.hypothesis']);
const LINK_DIRS = new Set(['node_modules', '.venv', 'venv']);

/**
 * An isolated copy of the work tree for mutant runs (the user's tree is never touched).
 * Dependency folders at the top are symlinked, read-only in use.
 */
export interface Workspace {
  readonly root: string;
  dispose(): void;
}

export function makeWorkspace(repo: string, parent: string): Workspace {
  const root = mkdtempSync(join(parent, 'ws-'));
  copyTree(repo, root);
  return { root, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * A fresh copy of the tree at a fixed path, for one run that judges a test: whatever an earlier
 * run left in its copy (a marker file, a cache) is gone, and every judging run of a worker sees
 * the same path. `files` are written over the copy (a mutant's file).
 */
export function freshTree(repo: string, root: string, files: ReadonlyMap<string, string> = new Map()): void {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true, mode: 0o700 });
  copyTree(repo, root);
  // The copy's file is replaced, never written through: it may be a symlink the patch made.
  for (const [p, text] of files) {
    rmSync(join(root, p), { force: true });
    writeFileSync(join(root, p), text);
  }
}

function copyTree(repo: string, root: string): void {
  cpSync(repo, root, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => {
      const rel = relative(repo, src);
      if (rel === '') return true;
      const name = basename(src);
      if (SKIP_DIRS.has(name) || LINK_DIRS.has(name)) return false;
      return rel !== 'review' && !rel.startsWith(`review${sep}`);
    },
  });
  for (const d of LINK_DIRS) {
    const src = join(repo, d);
    if (existsSync(src) && statSync(src).isDirectory()) symlinkSync(realpathSync(src), join(root, d), 'dir');
  }
}

export function makeScratch(): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-credit-'));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export type RunStatus = 'ok' | 'timeout' | 'crash';

export interface TestRun {
  readonly status: RunStatus;
  readonly detail: string;
  readonly durationMs: number;
  /** Every case the JUnit files report; empty unless status is ok. */
  readonly cases: readonly JunitCase[];
  /** The exit status, when the command exited. */
  readonly exitCode?: number | null;
}

/**
 * Run the test command in a workspace: own process group, pinned env, hard timeout, output
 * discarded. Only exit 0 or 1 (or 2, pytest's "interrupted" after collection errors) with every
 * JUnit file present and well-formed is a usable run; a timeout, a signal, another exit status
 * (a usage error) or a missing report is not.
 */
export async function runTestCommand(ws: string, command: readonly string[], junit: readonly string[], env: Readonly<Record<string, string>>, timeoutMs: number, logDir: string): Promise<TestRun> {
  for (const j of junit) rmSync(join(ws, j), { force: true });
  if (command.length === 0) return { status: 'crash', detail: 'empty test command', durationMs: 0, cases: [] };
  const out = await execInGroup({
    command,
    cwd: ws,
    env,
    timeoutMs,
    stdoutPath: join(logDir, 'stdout.log'),
    stderrPath: join(logDir, 'stderr.log'),
    capBytes: 64 * 1024,
    killGraceMs: 200,
  });
  const durationMs = out.duration_ms;
  if (out.timed_out) return { status: 'timeout', detail: `timed out after ${Math.round(timeoutMs)} ms`, durationMs, cases: [] };
  if (out.spawn_error !== null) return { status: 'crash', detail: `could not start: ${out.spawn_error}`, durationMs, cases: [] };
  if (out.signal !== null) return { status: 'crash', detail: `killed by ${out.signal}`, durationMs, cases: [] };
  const exitCode = out.exit_code;
  if (exitCode !== 0 && exitCode !== 1 && exitCode !== 2) return { status: 'crash', detail: `exit status ${String(exitCode)}`, durationMs, cases: [], exitCode };
  const cases: JunitCase[] = [];
  for (const j of junit) {
    const p = join(ws, j);
    if (!existsSync(p)) return { status: 'crash', detail: `${j} was not written (exit status ${String(exitCode)})`, durationMs, cases: [], exitCode };
    const r = parseJunitXml(readFileSync(p), j);
    if (!r.ok) return { status: 'crash', detail: r.findings.map((f) => f.detail).join('; '), durationMs, cases: [], exitCode };
    cases.push(...r.value);
  }
  return { status: 'ok', detail: `exit status ${String(exitCode)}`, durationMs, cases, exitCode };
}

/** Write a mutated file into a workspace, run `fn`, and put the original back whatever happens. */
export async function withFile<T>(ws: string, path: string, mutated: string, original: string, fn: () => Promise<T>): Promise<T> {
  const p = join(ws, path);
  writeFileSync(p, mutated);
  try {
    return await fn();
  } finally {
    writeFileSync(p, original);
  }
}

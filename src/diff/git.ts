// Git at the edge: resolve the base, cross-check a patch with `git apply --numstat`, apply it
// in a throwaway index and object store, and read old and new blobs. The user's work tree,
// index and object database are never written.
import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../core/builtins.js';
import { closeSync, mkdtempSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inputInvalid, SealgateError, type Finding } from '../core/errors.js';
import { fail, ok, type Result } from '../core/result.js';
import type { ParsedPatch, PatchFile } from './parse.js';

const MAX_GIT_OUTPUT = 2 * 1024 * 1024 * 1024 - 1;

/** Pinned environment: no pager, no prompts, C locale so messages can be read. */
function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LC_ALL: 'C',
    LANGUAGE: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    ...extra,
  };
  // An inherited index or object directory would redirect our reads and writes.
  for (const k of [
    'GIT_INDEX_FILE',
    'GIT_OBJECT_DIRECTORY',
    'GIT_ALTERNATE_OBJECT_DIRECTORIES',
    'GIT_DIR',
    'GIT_WORK_TREE',
  ]) {
    if (!(k in extra)) delete env[k];
  }
  return env;
}

export interface GitOutput {
  readonly status: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Why git could not be run (it could not start, or its output was too large). */
function cannotRun(args: readonly string[], err: unknown): SealgateError {
  return new SealgateError(
    'E_INTERNAL',
    `cannot run git ${args[0] ?? ''}: ${err instanceof Error ? err.message : String(err)}`,
  );
}

/** Before every git command: pathspecs are literal, and paths are printed unquoted (UTF-8 as is). */
const GIT_PREFIX = ['--literal-pathspecs', '-c', 'core.quotePath=false'] as const;

export function runGit(
  cwd: string,
  args: readonly string[],
  options: { env?: Record<string, string>; input?: Uint8Array | string } = {},
): GitOutput {
  const r = childProcess().spawnSync('git', [...GIT_PREFIX, ...args], {
    cwd,
    env: gitEnv(options.env),
    input: options.input,
    maxBuffer: MAX_GIT_OUTPUT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (r.error) throw cannotRun(args, r.error);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

/**
 * runGit started now and awaited later: the process runs beside whatever this thread does
 * meanwhile (even a spawnSync; its output waits in the pipe). Same prefix and environment.
 */
export function runGitAsync(
  cwd: string,
  args: readonly string[],
  options: { input?: Uint8Array | string } = {},
): Promise<GitOutput> {
  return new Promise((resolvePromise, reject) => {
    let child: ChildProcess;
    try {
      child = childProcess().spawn('git', [...GIT_PREFIX, ...args], {
        cwd,
        env: gitEnv(),
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
    } catch (err) {
      reject(cannotRun(args, err));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let failure: unknown;
    child.stdout?.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_GIT_OUTPUT) {
        failure ??= new Error('stdout maxBuffer length exceeded');
        child.kill('SIGKILL');
      } else out.push(c);
    });
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    child.once('error', (e) => {
      failure ??= e;
    });
    // git may exit before reading all of stdin (a bad argument): that is its answer, not ours to report.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input);
    child.once('close', (status: number | null) => {
      if (failure !== undefined) reject(cannotRun(args, failure));
      else resolvePromise({ status, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** The top of the work tree that holds `dir`. */
export function readRepoRoot(dir: string): string {
  const r = runGit(dir, ['rev-parse', '--show-toplevel']);
  if (r.status !== 0) throw inputInvalid(dir, 'not inside a git work tree');
  return r.stdout.toString('utf8').replace(/\n$/, '');
}

/** A revision to a full commit id. */
export function resolveCommit(root: string, rev: string): string {
  if (rev.startsWith('-') || rev.includes('\0')) throw inputInvalid('--base', `"${rev}" is not a revision`);
  const r = runGit(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
  if (r.status !== 0) throw inputInvalid('--base', `"${rev}" does not name a commit in ${root}`);
  return r.stdout.toString('utf8').trim();
}

export interface NumstatEntry {
  readonly added: number | null;
  readonly removed: number | null;
  readonly path: string;
}

export interface ApplySummary {
  readonly numstat: readonly NumstatEntry[];
  /** Normalised summary keys: `create:P`, `delete:P`, `rename:OLD→NEW`, `copy:OLD→NEW`, `mode:P`. */
  readonly summary: readonly string[];
}

/** Split `pre{old => new}post` (git's compact rename form) or `old => new`. */
export function parseRenamePair(text: string): { from: string; to: string } | null {
  const brace = /^(.*)\{(.*) => (.*)\}(.*)$/.exec(text);
  const clean = (p: string) => p.replace(/\/\/+/g, '/').replace(/^\//, '');
  if (brace) {
    const [, pre = '', a = '', b = '', post = ''] = brace;
    return { from: clean(pre + a + post), to: clean(pre + b + post) };
  }
  const parts = text.split(' => ');
  if (parts.length !== 2 || parts[0] === undefined || parts[1] === undefined) return null;
  return { from: parts[0], to: parts[1] };
}

/** Parse `git apply --numstat --summary -z` output (numstat records NUL-ended, summary lines newline-ended). */
export function parseApplySummary(out: Buffer): Result<ApplySummary> {
  const text = out.toString('utf8');
  const findings: Finding[] = [];
  const numstat: NumstatEntry[] = [];
  const summary: string[] = [];
  // Summary lines start with a space and follow the last NUL.
  const lastNul = text.lastIndexOf('\0');
  const records = lastNul < 0 ? [] : text.slice(0, lastNul).split('\0');
  const tail = lastNul < 0 ? text : text.slice(lastNul + 1);
  for (let k = 0; k < records.length; k++) {
    const rec = records[k] as string;
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(rec);
    if (!m) {
      findings.push({ code: 'E_INPUT_INVALID', path: 'git apply --numstat', detail: `unreadable record "${rec}"` });
      continue;
    }
    let path = m[3] ?? '';
    // Some git versions give renames as an empty name then old and new names.
    if (path === '') {
      k += 2;
      path = records[k] ?? '';
    }
    numstat.push({ added: m[1] === '-' ? null : Number(m[1]), removed: m[2] === '-' ? null : Number(m[2]), path });
  }
  for (const l of tail.split('\n')) {
    if (l === '') continue;
    let m: RegExpExecArray | null;
    if ((m = /^ (create|delete) mode \d+ (.+)$/.exec(l))) summary.push(`${m[1]}:${m[2]}`);
    else if ((m = /^ (rename|copy) (.+) \(\d+%\)$/.exec(l))) {
      const pair = parseRenamePair(m[2] ?? '');
      if (pair) summary.push(`${m[1]}:${pair.from}→${pair.to}`);
      else findings.push({ code: 'E_INPUT_INVALID', path: 'git apply --summary', detail: `unreadable line "${l}"` });
    } else if ((m = /^ mode change \d+ => \d+ (.+)$/.exec(l))) summary.push(`mode:${m[1]}`);
    else if (/^ rewrite .+ \(\d+%\)$/.test(l)) continue;
    else findings.push({ code: 'E_INPUT_INVALID', path: 'git apply --summary', detail: `unreadable line "${l}"` });
  }
  return findings.length > 0 ? fail(findings) : ok({ numstat, summary });
}

function expectedSummary(files: readonly PatchFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (f.oldPath === null && f.newPath !== null) out.push(`create:${f.newPath}`);
    else if (f.newPath === null && f.oldPath !== null) out.push(`delete:${f.oldPath}`);
    else {
      if (f.status === 'renamed' || f.status === 'copied')
        out.push(`${f.status === 'renamed' ? 'rename' : 'copy'}:${f.oldPath ?? ''}→${f.newPath ?? ''}`);
      if (f.oldMode !== null && f.newMode !== null && f.oldMode !== f.newMode) out.push(`mode:${f.newPath ?? ''}`);
    }
  }
  return out.sort();
}

/** Refuse any disagreement between our reading of the patch and git's. Pure. */
export function checkApplySummary(parsed: ParsedPatch, git: ApplySummary, label = 'patch'): Result<void> {
  const findings: Finding[] = [];
  const bad = (detail: string) => findings.push({ code: 'E_INPUT_INVALID', path: label, detail });
  const ours = new Map<string, PatchFile>();
  for (const f of parsed.files) ours.set((f.newPath ?? f.oldPath) as string, f);
  if (git.numstat.length !== parsed.files.length)
    bad(`git sees ${git.numstat.length} files, the parser ${parsed.files.length}`);
  const seen = new Set<string>();
  for (const n of git.numstat) {
    const f = ours.get(n.path);
    if (f === undefined || seen.has(n.path)) {
      bad(`git lists "${n.path}", which the parser does not (or twice)`);
      continue;
    }
    seen.add(n.path);
    if (n.added === null || n.removed === null) {
      if (!f.binary) bad(`git sees "${n.path}" as binary, the parser does not`);
    } else if (f.binary) bad(`the parser sees "${n.path}" as binary, git does not`);
    else if (n.added !== f.added || n.removed !== f.removed) {
      bad(`"${n.path}": git counts +${n.added} -${n.removed}, the parser +${f.added} -${f.removed}`);
    }
  }
  const want = expectedSummary(parsed.files);
  const got = [...git.summary].sort();
  if (want.join('\n') !== got.join('\n'))
    bad(`git's summary (${got.join(', ') || 'none'}) differs from the parser's (${want.join(', ') || 'none'})`);
  return findings.length > 0 ? fail(findings) : ok(undefined);
}

/** One file's contents before and after; null where the side does not exist or is not a blob. */
export interface FileContents {
  readonly oldBytes: Buffer | null;
  readonly newBytes: Buffer | null;
  readonly oldMode: string | null;
  readonly newMode: string | null;
}

/** Parse `git ls-files -s -z` or `git ls-tree -r -z` output to path → {mode, sha}. */
function parseEntries(out: Buffer, form: 'ls-files' | 'ls-tree'): Map<string, { mode: string; sha: string }> {
  const map = new Map<string, { mode: string; sha: string }>();
  for (const rec of out.toString('utf8').split('\0')) {
    if (rec === '') continue;
    const tab = rec.indexOf('\t');
    const head = rec.slice(0, tab).split(' ');
    const path = rec.slice(tab + 1);
    const [mode = '', second = '', third = ''] = head;
    map.set(path, form === 'ls-files' ? { mode, sha: second } : { mode, sha: third });
  }
  return map;
}

/** Split `git cat-file --batch` output for `unique` (distinct ids, in the order asked). */
function parseBlobs(out: Buffer, unique: readonly string[]): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let at = 0;
  for (const sha of unique) {
    const nl = out.indexOf(0x0a, at);
    const header = out.subarray(at, nl).toString('utf8');
    const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(header);
    if (m?.[1] !== sha || m[2] !== 'blob')
      throw new SealgateError('E_INTERNAL', `git cat-file gave "${header}" for ${sha}`);
    const size = Number(m[3]);
    blobs.set(sha, out.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return blobs;
}

const isBlobMode = (mode: string) => mode === '100644' || mode === '100755';

type Entries = Map<string, { mode: string; sha: string }>;

/** The distinct blob ids among `entries` (symlinks and submodules have none to read). */
function blobShas(entries: Iterable<{ mode: string; sha: string }>): string[] {
  const shas = new Set<string>();
  for (const e of entries) if (isBlobMode(e.mode)) shas.add(e.sha);
  return [...shas];
}

/** Read distinct blobs with one `git cat-file --batch`. */
async function readBlobsWith(
  git: GitJobs,
  unique: readonly string[],
  env: Record<string, string>,
): Promise<Map<string, Buffer>> {
  if (unique.length === 0) return new Map();
  return parseBlobs(
    await git.ok(['cat-file', '--batch'], 'git cat-file', { env, input: unique.join('\n') + '\n' }),
    unique,
  );
}

/** A git process started in the background. */
interface GitJob {
  readonly child: ChildProcess | null;
  /** Settles once git has exited; rejects (E_INTERNAL) when git cannot run. */
  readonly done: Promise<GitOutput>;
}

interface SpawnOptions {
  readonly env?: Record<string, string>;
  readonly input?: Uint8Array | string;
}

/**
 * Background `git` calls of one patch read, so they can be stopped and waited for. Their input
 * and output go through files in `dir`, not pipes: git never waits for this thread, which may
 * be busy parsing, to drain or fill a pipe.
 */
class GitJobs {
  private readonly jobs: GitJob[] = [];
  private stopped = false;

  constructor(
    private readonly root: string,
    private readonly dir: string,
  ) {}

  run(args: readonly string[], options: SpawnOptions = {}): Promise<GitOutput> {
    if (this.stopped)
      return Promise.reject(new SealgateError('E_INTERNAL', `git ${args[0] ?? ''} not started: stopped`));
    const job = this.spawn(args, options, join(this.dir, `git-${this.jobs.length}`));
    this.jobs.push(job);
    // Read in order by the caller; a failure before then must not count as unhandled.
    job.done.catch(() => undefined);
    return job.done;
  }

  async ok(args: readonly string[], what: string, options: SpawnOptions = {}): Promise<Buffer> {
    const r = await this.run(args, options);
    if (r.status !== 0)
      throw inputInvalid(what, `git ${args[0] ?? ''} failed: ${r.stderr.trim() || `exit ${String(r.status)}`}`);
    return r.stdout;
  }

  /** Kill what still runs and wait until every process has exited. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { child } of this.jobs)
      if (child !== null && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.allSettled(this.jobs.map((j) => j.done));
  }

  private spawn(args: readonly string[], options: SpawnOptions, stem: string): GitJob {
    const fds: number[] = [];
    let child: ChildProcess;
    try {
      if (options.input !== undefined) writeFileSync(`${stem}.in`, options.input);
      const stdin = options.input === undefined ? 'ignore' : openSync(`${stem}.in`, 'r');
      if (typeof stdin === 'number') fds.push(stdin);
      const stdout = openSync(`${stem}.out`, 'w');
      fds.push(stdout);
      const stderr = openSync(`${stem}.err`, 'w');
      fds.push(stderr);
      child = childProcess().spawn('git', [...GIT_PREFIX, ...args], {
        cwd: this.root,
        env: gitEnv(options.env),
        stdio: [stdin, stdout, stderr],
      });
    } catch (err) {
      return { child: null, done: Promise.reject(cannotRun(args, err)) };
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    const done = new Promise<GitOutput>((resolvePromise, reject) => {
      let failure: unknown;
      child.once('error', (e) => {
        failure ??= e;
      });
      child.once('close', (status: number | null) => {
        if (failure === undefined) {
          try {
            if (statSync(`${stem}.out`).size > MAX_GIT_OUTPUT) throw new Error('stdout maxBuffer length exceeded');
            resolvePromise({
              status,
              stdout: readFileSync(`${stem}.out`),
              stderr: readFileSync(`${stem}.err`, 'utf8'),
            });
            return;
          } catch (e) {
            failure = e;
          }
        }
        reject(cannotRun(args, failure));
      });
    });
    return { child, done };
  }
}

type PreparedIndex =
  { readonly ok: true; readonly env: Record<string, string> } | { readonly ok: false; readonly error: unknown };

/** A temporary index holding `base`, with a temporary object directory in front of the repository's. */
function prepareIndex(root: string, tmp: string, base: string): PreparedIndex {
  try {
    const objects = runGit(root, ['rev-parse', '--path-format=absolute', '--git-path', 'objects']);
    if (objects.status !== 0)
      return {
        ok: false,
        error: new SealgateError('E_INTERNAL', `cannot locate the object directory: ${objects.stderr.trim()}`),
      };
    mkdirSync(join(tmp, 'objects'));
    const env = {
      GIT_INDEX_FILE: join(tmp, 'index'),
      GIT_OBJECT_DIRECTORY: join(tmp, 'objects'),
      GIT_ALTERNATE_OBJECT_DIRECTORIES: objects.stdout.toString('utf8').trim(),
    };
    const r = runGit(root, ['read-tree', base], { env });
    if (r.status !== 0)
      return {
        ok: false,
        error: inputInvalid('git read-tree', `git read-tree failed: ${r.stderr.trim() || `exit ${String(r.status)}`}`),
      };
    return { ok: true, env };
  } catch (error) {
    return { ok: false, error };
  }
}

/** git's half of reading a patch, started before the patch is parsed so that both run at once. */
export interface PatchApply {
  /**
   * Every file's old and new contents, once git's numstat agrees with `parsed` and the patch
   * applies exactly. Checks and errors come in the same order as when each step waits for the last.
   */
  contents(parsed: ParsedPatch): Promise<Map<PatchFile, FileContents>>;
  /** Stops any git still running and removes the temporary files. */
  close(): Promise<void>;
}

/**
 * Start `git apply --numstat` and the apply of the patch to `base` in a temporary index
 * with a temporary object directory (the repository's objects as an alternate). Nothing
 * here writes outside the temporary directory, so it may run before the patch is checked.
 */
export function startPatchApply(root: string, base: string, patchBytes: Uint8Array, label = 'patch'): PatchApply {
  let tmp: string | null = null;
  let git: GitJobs | null = null;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    if (closing === undefined) {
      closing = (git?.stop() ?? Promise.resolve()).then(() =>
        tmp === null ? undefined : rm(tmp, { recursive: true, force: true }),
      );
      // Awaited by the caller, possibly after other work.
      closing.catch(() => undefined);
    }
    return closing;
  };
  let started:
    | { git: GitJobs; stat: Promise<GitOutput>; prepared: PreparedIndex; applied: Promise<GitOutput> }
    | { error: unknown };
  try {
    tmp = mkdtempSync(join(tmpdir(), 'sealgate-apply-'));
    git = new GitJobs(root, tmp);
    const patchPath = join(tmp, 'patch.diff');
    writeFileSync(patchPath, patchBytes);
    const stat = git.run(['apply', '--numstat', '--summary', '-z', patchPath]);
    // The index is ready in a few milliseconds, so the apply starts now; an error waits for its turn in contents().
    const prepared = prepareIndex(root, tmp, base);
    const applied = prepared.ok
      ? git.run(
          [
            '-c',
            'apply.ignoreWhitespace=no',
            '-c',
            'core.looseCompression=0',
            'apply',
            '--cached',
            '-v',
            '--whitespace=nowarn',
            patchPath,
          ],
          { env: prepared.env },
        )
      : // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the caught value, rethrown as it was (a SealgateError naming the cause)
        Promise.reject(prepared.error);
    applied.catch(() => undefined);
    started = { git, stat, prepared, applied };
  } catch (error) {
    // Reported where reading the contents begins, as before.
    started = { error };
  }

  const contents = async (parsed: ParsedPatch): Promise<Map<PatchFile, FileContents>> => {
    if ('error' in started) throw started.error;
    const { git, stat, prepared, applied } = started;
    // The base's side needs only the file list, so it is read while the checks and the apply finish.
    const oldPaths = parsed.files.flatMap((f) => (f.oldPath === null ? [] : [f.oldPath]));
    const oldListed =
      oldPaths.length === 0
        ? Promise.resolve<Entries>(new Map())
        : git
            .ok(['ls-tree', '-r', '-z', '--full-tree', base, '--', ...oldPaths], 'git ls-tree')
            .then((out) => parseEntries(out, 'ls-tree'));
    const oldBlobs = oldListed.then((entries) => readBlobsWith(git, blobShas(entries.values()), {}));
    oldBlobs.catch(() => undefined);
    const s = await stat;
    if (s.status !== 0) throw inputInvalid(label, `git cannot read the patch: ${s.stderr.trim()}`);
    const summary = parseApplySummary(s.stdout);
    if (!summary.ok) throw new SealgateError('E_INPUT_INVALID', summary.findings);
    const agree = checkApplySummary(parsed, summary.value, label);
    if (!agree.ok) throw new SealgateError('E_INPUT_INVALID', agree.findings);

    const a = await applied;
    const env = prepared.ok ? prepared.env : {};
    if (a.status !== 0) {
      const why = a.stderr
        .split('\n')
        .filter((l) => l.startsWith('error:'))
        .join('; ');
      throw inputInvalid(label, `does not apply to ${base.slice(0, 12)}: ${why || a.stderr.trim()}`);
    }
    const offsets = a.stderr.split('\n').filter((l) => /^Hunk #\d+ succeeded at/.test(l));
    if (offsets.length > 0)
      throw inputInvalid(label, `does not apply cleanly to ${base.slice(0, 12)}: ${offsets.join('; ')}`);

    const newPaths = parsed.files.flatMap((f) => (f.newPath === null ? [] : [f.newPath]));
    const newListed =
      newPaths.length === 0 ? null : git.ok(['ls-files', '-s', '-z', '--', ...newPaths], 'git ls-files', { env });
    newListed?.catch(() => undefined);
    const oldEntries = await oldListed;
    const newEntries =
      newListed === null ? new Map<string, { mode: string; sha: string }>() : parseEntries(await newListed, 'ls-files');
    const blobs = new Map(await oldBlobs);
    for (const [sha, bytes] of await readBlobsWith(
      git,
      blobShas(newEntries.values()).filter((sha) => !blobs.has(sha)),
      env,
    ))
      blobs.set(sha, bytes);
    const out = new Map<PatchFile, FileContents>();
    for (const f of parsed.files) {
      const o = f.oldPath === null ? undefined : oldEntries.get(f.oldPath);
      const n = f.newPath === null ? undefined : newEntries.get(f.newPath);
      if ((f.oldPath !== null && o === undefined) || (f.newPath !== null && n === undefined)) {
        throw inputInvalid(label, `"${f.newPath ?? f.oldPath ?? ''}" is missing from the base or the patched tree`);
      }
      out.set(f, {
        oldBytes: o !== undefined && isBlobMode(o.mode) ? (blobs.get(o.sha) ?? null) : null,
        newBytes: n !== undefined && isBlobMode(n.mode) ? (blobs.get(n.sha) ?? null) : null,
        oldMode: o?.mode ?? null,
        newMode: n?.mode ?? null,
      });
    }
    return out;
  };
  return { contents, close };
}

/**
 * Apply the patch to `base` in a temporary index with a temporary object directory
 * (the repository's objects as an alternate), then read every touched file's old and
 * new blob. A patch that does not apply exactly (including at an offset) is refused.
 */
export async function readPatchContents(
  root: string,
  base: string,
  patchBytes: Uint8Array,
  parsed: ParsedPatch,
  label = 'patch',
): Promise<Map<PatchFile, FileContents>> {
  const apply = startPatchApply(root, base, patchBytes, label);
  try {
    return await apply.contents(parsed);
  } finally {
    await apply.close();
  }
}

/** Every blob path of a commit's tree. */
export function listTree(root: string, rev: string): string[] {
  const r = runGit(root, ['ls-tree', '-r', '-z', '--full-tree', '--name-only', rev]);
  if (r.status !== 0) throw new SealgateError('E_INTERNAL', `git ls-tree ${rev}: ${r.stderr.trim()}`);
  return r.stdout
    .toString('utf8')
    .split('\0')
    .filter((p) => p !== '');
}

/** The bytes of `paths` at `rev`, in one `git cat-file --batch`; a path that is not a blob there is left out. */
export function readBlobsAt(root: string, rev: string, paths: readonly string[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const asked = paths.filter((p) => !p.includes('\n'));
  if (asked.length === 0) return out;
  const r = runGit(root, ['cat-file', '--batch'], { input: asked.map((p) => `${rev}:${p}\n`).join('') });
  if (r.status !== 0) throw new SealgateError('E_INTERNAL', `git cat-file --batch: ${r.stderr.trim()}`);
  let at = 0;
  for (const p of asked) {
    const nl = r.stdout.indexOf(0x0a, at);
    if (nl < 0) break;
    const header = r.stdout.subarray(at, nl).toString('utf8');
    const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (!m) {
      at = nl + 1; // "<name> missing" or "ambiguous"
      continue;
    }
    const size = Number(m[2]);
    if (m[1] === 'blob') out.set(p, r.stdout.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return out;
}

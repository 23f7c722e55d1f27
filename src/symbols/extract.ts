// `extractChanged`: from a patch and a base commit to changed.json.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { checkSchema } from '../core/document.js';
import { SealgateError } from '../core/errors.js';
import { sha256Hex } from '../core/ids.js';
import type { Config } from '../config/schema.js';
import { classifyFile, languageOf, type FileClass } from '../diff/classify.js';
import { readPatchContents, readRepoRoot, resolveCommit, type FileContents } from '../diff/git.js';
import { parseGitPatch, pathOf, type PatchFile } from '../diff/parse.js';
import { compareFile, finishComparison, newComparison, type ComparisonState } from './compare.js';
import { decodeSource, type ExtractOptions, type FileSymbols } from './model.js';
import { ChangedSchema, type Changed, type ChangedFile } from './schema.js';
import { extractWithTreeSitter } from './sitter.js';
import { extractTypeScript, loadTypeScript } from './typescript.js';

export interface ExtractChangedInput {
  readonly repo: string;
  readonly patchBytes: Uint8Array;
  /** A revision; default HEAD. */
  readonly base?: string;
  readonly config: Config;
  readonly label?: string;
  /** Worker threads for parsing and comparing (default 1: in this thread). */
  readonly workers?: number;
  /** Below this many bytes of production source, stay in this thread. */
  readonly parallelMinBytes?: number;
}

/** One production file to compare, as plain data (it may cross to a worker thread). */
export interface FileJob {
  readonly path: string;
  readonly oldPath: string | null;
  readonly language: string;
  readonly oldName: string | null;
  readonly newName: string | null;
  readonly oldBytes: Uint8Array | null;
  readonly newBytes: Uint8Array | null;
  readonly touched: readonly number[];
}

export const PARALLEL_MIN_BYTES = 2 * 1024 * 1024;
const WORKER_TAG = 'sealgate-symbols-worker';

/** Parse and compare each job's two sides, one file at a time (trees are freed as we go). */
export async function compareJobs(jobs: readonly FileJob[], options: ExtractOptions, state: ComparisonState): Promise<void> {
  for (const job of jobs) {
    const oldSide = job.oldBytes === null || job.oldName === null ? null : await extractFile(job.language, job.oldName, job.oldBytes, options);
    let newSide: FileSymbols | null = null;
    try {
      newSide = job.newBytes === null || job.newName === null ? null : await extractFile(job.language, job.newName, job.newBytes, options);
      compareFile(state, { path: job.path, oldPath: job.oldPath, language: job.language, oldSymbols: oldSide, newSymbols: newSide, touched: job.touched });
    } finally {
      oldSide?.dispose?.();
      newSide?.dispose?.();
    }
  }
}

// A worker thread runs this very module: it compares its share of the files and posts the state back.
if (!isMainThread && parentPort && (workerData as { tag?: unknown } | null)?.tag === WORKER_TAG) {
  const port = parentPort;
  const data = workerData as { jobs: FileJob[]; options: ExtractOptions };
  const state = newComparison();
  compareJobs(data.jobs, data.options, state).then(
    () => port.postMessage({ ok: true, state }),
    (err: unknown) => port.postMessage({ ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
}

function runWorker(jobs: FileJob[], options: ExtractOptions): Promise<ComparisonState> {
  return new Promise((resolvePromise, reject) => {
    const data = { tag: WORKER_TAG, jobs, options };
    // Run from TypeScript sources (the tests), the worker registers tsx before loading this module.
    const worker = import.meta.url.endsWith('.ts')
      ? new Worker(`import('tsx/esm/api').then((m) => m.register()).then(() => import(${JSON.stringify(import.meta.url)}))`, { eval: true, workerData: data, execArgv: [] })
      : new Worker(new URL(import.meta.url), { workerData: data, execArgv: [] });
    let settled = false;
    worker.once('message', (m: { ok: true; state: ComparisonState } | { ok: false; error: string }) => {
      settled = true;
      void worker.terminate();
      if (m.ok) resolvePromise(m.state);
      else reject(new SealgateError('E_INTERNAL', `symbols worker failed: ${m.error}`));
    });
    worker.once('error', (err) => {
      if (!settled) reject(new SealgateError('E_INTERNAL', `symbols worker failed: ${err.message}`));
      settled = true;
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new SealgateError('E_INTERNAL', `symbols worker exited with ${code} before answering`));
      settled = true;
    });
  });
}

/** Split the jobs over worker threads by size when it pays off; the merged state is the same as in one thread. */
async function compareInParallel(jobs: FileJob[], options: ExtractOptions, workers: number, minBytes: number): Promise<ComparisonState> {
  const size = (j: FileJob) => (j.oldBytes?.length ?? 0) + (j.newBytes?.length ?? 0);
  const total = jobs.reduce((a, j) => a + size(j), 0);
  const n = Math.min(Math.max(1, Math.floor(workers)), jobs.length);
  const state = newComparison();
  if (n < 2 || total < minBytes) {
    await compareJobs(jobs, options, state);
    return state;
  }
  // Largest first onto the lightest share.
  const shares = Array.from({ length: n }, () => ({ bytes: 0, jobs: [] as FileJob[] }));
  for (const j of [...jobs].sort((a, b) => size(b) - size(a))) {
    const share = shares.reduce((m, s) => (s.bytes < m.bytes ? s : m));
    share.jobs.push(j);
    share.bytes += size(j);
  }
  const parts = await Promise.all(shares.map((s) => runWorker(s.jobs, options)));
  for (const p of parts) {
    for (const [k, v] of p.changed) state.changed.set(k, v);
    for (const id of p.typeOnly) state.typeOnly.add(id);
    for (const id of p.deleted) state.deleted.add(id);
    state.moved.push(...p.moved);
    state.appeared.push(...p.appeared);
    state.disappeared.push(...p.disappeared);
  }
  return state;
}

/** New-file lines each hunk adds, plus the line where each run of deletions sat. */
export function touchedLines(file: PatchFile): number[] {
  const out: number[] = [];
  for (const h of file.hunks) {
    let line = h.newStart;
    if (h.newLines === 0) line += 1; // `@@ -a,b +c,0 @@`: the deletion sits after line c
    for (const l of h.lines) {
      const c = l[0];
      if (c === '+') out.push(line++);
      else if (c === ' ') line++;
      else if (c === '-') out.push(line);
    }
  }
  return out;
}

const SPECIAL_MODES = new Set(['120000', '160000']);

/** The class of a patch file, with symlinks and submodules as `other`: their content is not code we can read. */
export function classOf(file: PatchFile, contents: FileContents | undefined, config: Config): FileClass {
  const cls = classifyFile(file, config);
  const modes = [file.oldMode, file.newMode, contents?.oldMode ?? null, contents?.newMode ?? null];
  if (modes.some((m) => m !== null && SPECIAL_MODES.has(m)) && cls !== 'test' && cls !== 'ignored') return 'other';
  return cls;
}

async function extractFile(language: string, path: string, bytes: Uint8Array, options: ExtractOptions): Promise<FileSymbols> {
  const text = decodeSource(bytes);
  if (language === 'typescript' || language === 'javascript') return extractTypeScript(await loadTypeScript(), path, text);
  if (language === 'python' || language === 'go' || language === 'java' || language === 'rust') return extractWithTreeSitter(language, text, options);
  throw new SealgateError('E_INTERNAL', `no extractor for language "${language}"`);
}

/** Read the patch against its base and list the files and symbols it changes. */
export async function extractChanged(input: ExtractChangedInput): Promise<Changed> {
  const label = input.label ?? 'patch';
  const root = readRepoRoot(input.repo);
  const base = resolveCommit(root, input.base ?? 'HEAD');
  const parsed = parseGitPatch(input.patchBytes, label);
  if (!parsed.ok) throw new SealgateError('E_INPUT_INVALID', parsed.findings);
  const contents = parsed.value.empty ? new Map<PatchFile, FileContents>() : readPatchContents(root, base, input.patchBytes, parsed.value, label);
  const options: ExtractOptions = { docstringChanges: input.config.symbols.docstringChanges };

  const files: ChangedFile[] = [];
  const uncreditable: string[] = [];
  const jobs: FileJob[] = [];
  for (const file of parsed.value.files) {
    const path = pathOf(file);
    const c = contents.get(file);
    const cls = classOf(file, c, input.config);
    const language = file.binary ? null : languageOf(path);
    files.push({ path, old_path: file.status === 'renamed' || file.status === 'copied' ? file.oldPath : null, status: file.status, class: cls, language });
    if (cls === 'other') uncreditable.push(path);
    if (cls !== 'production' || language === null || c === undefined) continue;
    // A copy leaves its source in place: everything in it is new code.
    const oldUsed = file.status !== 'copied' && c.oldBytes !== null && file.oldPath !== null;
    jobs.push({
      path,
      oldPath: file.status === 'renamed' ? file.oldPath : null,
      language,
      oldName: oldUsed ? file.oldPath : null,
      newName: c.newBytes === null ? null : file.newPath,
      oldBytes: oldUsed ? c.oldBytes : null,
      newBytes: file.newPath === null ? null : c.newBytes,
      touched: touchedLines(file),
    });
  }
  const state = await compareInParallel(jobs, options, input.workers ?? 1, input.parallelMinBytes ?? PARALLEL_MIN_BYTES);
  const result = finishComparison(state);
  const changed: Changed = {
    base,
    patch_sha256: sha256Hex(input.patchBytes),
    files,
    changed: result.changed,
    moved: result.moved,
    deleted: result.deleted,
    typeOnly: result.typeOnly,
    uncreditable: [...new Set(uncreditable)].sort(),
    locations: result.locations,
  };
  // Our own output must pass the schema every reader applies.
  const checked = checkSchema(ChangedSchema, changed, 'changed.json');
  if (!checked.ok) throw new SealgateError('E_INTERNAL', checked.findings.map((f) => ({ ...f, code: 'E_INTERNAL' as const })));
  return changed;
}

// `extractChanged`: from a patch and a base commit to changed.json.
import { checkSchema } from '../core/document.js';
import { SealgateError } from '../core/errors.js';
import { sha256Hex } from '../core/ids.js';
import type { Config } from '../config/schema.js';
import { classifyFile, classifyPath, languageOf, type FileClass } from '../diff/classify.js';
import {
  listTree,
  readBlobsAt,
  readRepoRoot,
  resolveCommit,
  startPatchApply,
  type FileContents,
  type PatchApply,
} from '../diff/git.js';
import { GIT_HEADER, parseGitPatch, pathOf, type PatchFile } from '../diff/parse.js';
import { finishComparison, newComparison, type ComparisonState } from './compare.js';
import {
  compareJob,
  drainQueue,
  parsesInWorkers,
  JobQueue,
  loadParser,
  mergeComparison,
  queueOrder,
  totalBytes,
  type FileJob,
} from './jobs.js';
import { checkPolicySurface } from '../policy/surface.js';
import { importedTestFiles, type TreeFile } from './imports.js';
import type { ExtractOptions } from './model.js';
import { ChangedSchema, type Changed, type ChangedFile } from './schema.js';
import { ParseWorkers } from './workers.js';

export interface ExtractChangedInput {
  readonly repo: string;
  readonly patchBytes: Uint8Array;
  /** A revision; default HEAD. */
  readonly base?: string;
  readonly config: Config;
  readonly label?: string;
  /** Threads for parsing and comparing: this one and `workers - 1` worker threads (default 1: this one only). */
  readonly workers?: number;
  /** Below this many bytes of production source, stay in this thread. */
  readonly parallelMinBytes?: number;
}

export const PARALLEL_MIN_BYTES = 2 * 1024 * 1024;

/**
 * Compare every job. With worker threads (and enough source to pay for them), this thread and
 * the workers take jobs from the two ends of one queue; the merged state is the same as in one
 * thread, since every result is keyed by its file and sorted at the end.
 */
async function compareAll(
  jobs: readonly FileJob[],
  options: ExtractOptions,
  workers: ParseWorkers | null,
  minBytes: number,
): Promise<ComparisonState> {
  const state = newComparison();
  if (workers === null || jobs.length < 2 || totalBytes(jobs) < minBytes) {
    workers?.stop();
    for (const job of jobs) await compareJob(job, options, state);
    return state;
  }
  const ordered = queueOrder(jobs);
  const queue = JobQueue.create(ordered.length);
  const parts = workers.run(ordered, queue);
  await drainQueue(ordered, queue, 'front', options, state);
  for (const part of await parts) mergeComparison(state, part);
  return state;
}

/** The languages of the paths on the patch's `diff --git` lines: a hint of the parsers to load early, read before the patch is parsed. */
export function languagesNamed(patchBytes: Uint8Array): Set<string> {
  const bytes = Buffer.from(patchBytes.buffer, patchBytes.byteOffset, patchBytes.byteLength);
  const languages = new Set<string>();
  for (let at = bytes.indexOf(GIT_HEADER); at >= 0; at = bytes.indexOf(GIT_HEADER, at + 1)) {
    if (at > 0 && bytes[at - 1] !== 0x0a) continue;
    const end = bytes.indexOf(0x0a, at);
    const language = languageOf(bytes.toString('latin1', at, end < 0 ? bytes.length : end).trimEnd());
    if (language !== null) languages.add(language);
  }
  return languages;
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

const IMPORT_LANGUAGES = new Set(['typescript', 'javascript', 'python', 'go', 'rust', 'java']);

/**
 * The patch's test-pattern files that production code of the patched tree imports (path to
 * importer). Only looked for when the patch touches a TS/JS/Python test-pattern file: the
 * patched tree is the base tree with the patch's files replaced.
 */
async function importedPatchTests(
  repo: string,
  base: string,
  patchFiles: readonly PatchFile[],
  contents: ReadonlyMap<PatchFile, FileContents>,
  config: Config,
): Promise<Map<string, string>> {
  // Any test-path file: production may import a data file there too (`import rates from './fixtures/rates.json'`).
  const touched = patchFiles.filter((f) => f.newPath !== null && classifyPath(f.newPath, config) === 'test');
  if (touched.length === 0) return new Map();
  const root = readRepoRoot(repo);
  const patched = new Map<string, Buffer | null>();
  for (const f of patchFiles) {
    if (f.oldPath !== null && f.status !== 'copied') patched.set(f.oldPath, null);
  }
  for (const f of patchFiles) if (f.newPath !== null) patched.set(f.newPath, contents.get(f)?.newBytes ?? null);
  const paths = new Set(listTree(root, base));
  for (const [p, b] of patched) {
    if (b === null) paths.delete(p);
    else paths.add(p);
  }
  const tree: TreeFile[] = [];
  for (const p of paths) {
    const language = languageOf(p);
    const cls = classifyPath(p, config);
    if (cls === 'ignored') continue;
    // A test-path file of another kind is a leaf an import may reach (read by no one here).
    if (language === null || !IMPORT_LANGUAGES.has(language)) {
      if (cls === 'test') tree.push({ path: p, language: null, testByPath: true });
      continue;
    }
    tree.push({ path: p, language, testByPath: cls === 'test' });
  }
  const baseBlobs = readBlobsAt(
    root,
    base,
    tree.filter((t) => !t.testByPath && !patched.has(t.path)).map((t) => t.path),
  );
  const decoder = new TextDecoder('utf-8');
  const read = (p: string): Promise<string | null> => {
    const b = patched.has(p) ? patched.get(p) : (baseBlobs.get(p) ?? readBlobsAt(root, base, [p]).get(p));
    return Promise.resolve(b === null || b === undefined ? null : decoder.decode(b));
  };
  return importedTestFiles(tree, read);
}

/** Read the patch against its base and list the files and symbols it changes. */
export async function extractChanged(input: ExtractChangedInput): Promise<Changed> {
  const label = input.label ?? 'patch';
  const root = readRepoRoot(input.repo);
  const base = resolveCommit(root, input.base ?? 'HEAD');
  const threads = Math.max(1, Math.floor(input.workers ?? 1));
  const minBytes = input.parallelMinBytes ?? PARALLEL_MIN_BYTES;
  const options: ExtractOptions = { docstringChanges: input.config.symbols.docstringChanges };
  const workers = threads > 1 ? new ParseWorkers(threads - 1, options) : null;
  // git cross-checks and applies the patch while jsdiff parses it; its results are still read in order.
  const apply = startPatchApply(root, base, input.patchBytes, label);
  try {
    // A patch this large most likely brings enough source to share: the workers start now and
    // load the compiler while this thread reads the patch (see queueOrder).
    if (workers !== null && input.patchBytes.length >= minBytes / 4) {
      workers.start();
      workers.load([...languagesNamed(input.patchBytes)].filter(parsesInWorkers));
    }
    return await extractApplied(input, label, base, apply, workers, minBytes, options);
  } finally {
    workers?.stop();
    await apply.close();
  }
}

async function extractApplied(
  input: ExtractChangedInput,
  label: string,
  base: string,
  apply: PatchApply,
  workers: ParseWorkers | null,
  minBytes: number,
  options: ExtractOptions,
): Promise<Changed> {
  const parsed = parseGitPatch(input.patchBytes, label);
  if (!parsed.ok) throw new SealgateError('E_INPUT_INVALID', parsed.findings);
  // While git works, load the parsers the production files will need: with workers, the compiler
  // there and tree-sitter's grammars here (see queueOrder); a parser that fails to load fails
  // again, with its error, on the first file that needs it.
  const languages = new Set<string>();
  for (const f of parsed.value.files) {
    const language = f.binary ? null : languageOf(pathOf(f));
    if (language !== null && classifyFile(f, input.config) === 'production') languages.add(language);
  }
  const shared = workers?.started === true;
  for (const language of languages)
    if (!shared || !parsesInWorkers(language)) loadParser(language).catch(() => undefined);
  const contents = parsed.value.empty ? new Map<PatchFile, FileContents>() : await apply.contents(parsed.value);
  // The temporary files go while the files are parsed.
  const closed = apply.close();
  // The patch may not change how it is graded: refuse before any symbol is listed.
  const surface = checkPolicySurface(
    parsed.value.files.map((file) => {
      const c = contents.get(file);
      return {
        oldPath: file.oldPath,
        newPath: file.newPath,
        contents:
          c === undefined ? { problem: 'git gave no contents' } : { oldBytes: c.oldBytes, newBytes: c.newBytes },
      };
    }),
    { policyFiles: input.config.policyFiles, testCommand: input.config.test.command },
  );
  if (surface.length > 0) {
    await closed;
    throw new SealgateError('E_POLICY_CHANGED', surface);
  }

  const imported = await importedPatchTests(input.repo, base, parsed.value.files, contents, input.config);
  const files: ChangedFile[] = [];
  const uncreditable: string[] = [];
  const jobs: FileJob[] = [];
  for (const file of parsed.value.files) {
    const path = pathOf(file);
    const c = contents.get(file);
    const byPath = classOf(file, c, input.config);
    const language = file.binary ? null : languageOf(path);
    // An imported test-path file is production; one sealgate cannot read symbols from (a JSON
    // file, a binary, a link) is `other`: its change cannot be credited.
    const special = [file.oldMode, file.newMode, c?.oldMode ?? null, c?.newMode ?? null].some(
      (m) => m !== null && SPECIAL_MODES.has(m),
    );
    const importedCls = language !== null && !special ? 'production' : 'other';
    const cls = byPath === 'test' && file.newPath !== null && imported.has(file.newPath) ? importedCls : byPath;
    files.push({
      path,
      old_path: file.status === 'renamed' || file.status === 'copied' ? file.oldPath : null,
      status: file.status,
      class: cls,
      language,
    });
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
  const state = await compareAll(jobs, options, workers, minBytes);
  await closed;
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
    ...(imported.size > 0
      ? {
          imported_tests: [...imported]
            .map(([path, by]) => ({ path, imported_by: by }))
            .sort((a, b) => (a.path < b.path ? -1 : 1)),
        }
      : {}),
  };
  // Our own output must pass the schema every reader applies.
  const checked = checkSchema(ChangedSchema, changed, 'changed.json');
  if (!checked.ok)
    throw new SealgateError(
      'E_INTERNAL',
      checked.findings.map((f) => ({ ...f, code: 'E_INTERNAL' as const })),
    );
  return changed;
}

// Parsing and comparing production files one at a time, here or in worker threads that share one queue.
import { SealgateError } from '../core/errors.js';
import { compareFile, type ComparisonState } from './compare.js';
import { decodeSource, type ExtractOptions, type FileSymbols } from './model.js';
import { extractorOf } from './extractors.js';

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

/** What a worker thread starts with. */
export interface WorkerStart {
  readonly tag: typeof WORKER_TAG;
  readonly options: ExtractOptions;
}

/** Messages to a worker: load parsers ahead of time, then take jobs from the back of the shared queue. */
export type ToWorker =
  | { readonly kind: 'load'; readonly languages: readonly string[] }
  | { readonly kind: 'jobs'; readonly jobs: readonly FileJob[]; readonly queue: SharedArrayBuffer };

export type WorkerAnswer =
  { readonly ok: true; readonly state: ComparisonState } | { readonly ok: false; readonly error: string };

export const WORKER_TAG = 'sealgate-symbols-worker';

/** Files of this language are parsed in the worker threads (the TypeScript compiler's). */
export const parsesInWorkers = (language: string): boolean => extractorOf(language)?.inWorkers === true;

/** Load the parser of `language` now, so that the first file does not wait for it. */
export async function loadParser(language: string): Promise<void> {
  await extractorOf(language)?.load();
}

/** The symbols of one file's text (credit uses it on the base and the patched version of a file). */
export async function extractFile(
  language: string,
  path: string,
  bytes: Uint8Array,
  options: ExtractOptions,
): Promise<FileSymbols> {
  const text = decodeSource(bytes);
  const extractor = extractorOf(language);
  if (extractor === null) throw new SealgateError('E_INTERNAL', `no extractor for language "${language}"`);
  return extractor.extract(path, text, options);
}

/** Parse and compare one job's two sides; their trees are freed before it returns. */
export async function compareJob(job: FileJob, options: ExtractOptions, state: ComparisonState): Promise<void> {
  const oldSide =
    job.oldBytes === null || job.oldName === null
      ? null
      : await extractFile(job.language, job.oldName, job.oldBytes, options);
  let newSide: FileSymbols | null = null;
  try {
    newSide =
      job.newBytes === null || job.newName === null
        ? null
        : await extractFile(job.language, job.newName, job.newBytes, options);
    compareFile(state, {
      path: job.path,
      oldPath: job.oldPath,
      language: job.language,
      oldSymbols: oldSide,
      newSymbols: newSide,
      touched: job.touched,
    });
  } finally {
    oldSide?.dispose?.();
    newSide?.dispose?.();
  }
}

/**
 * A list of jobs taken from both ends at once: this thread takes from the front, worker
 * threads from the back, until they meet. Both ends live in one 64-bit word (front in the
 * low half, back in the high half) changed only by compare-and-swap, so no job is taken twice.
 */
export class JobQueue {
  private readonly word: BigInt64Array;

  constructor(readonly shared: SharedArrayBuffer) {
    this.word = new BigInt64Array(shared);
  }

  static create(length: number): JobQueue {
    if (!Number.isSafeInteger(length) || length < 0 || length > 0x7fffffff)
      throw new SealgateError('E_INTERNAL', `cannot queue ${length} jobs`);
    const queue = new JobQueue(new SharedArrayBuffer(8));
    Atomics.store(queue.word, 0, BigInt(length) << 32n);
    return queue;
  }

  /** The index of the next job at `end`, or -1 when every job is taken. */
  take(end: 'front' | 'back'): number {
    for (;;) {
      const word = Atomics.load(this.word, 0);
      const front = Number(word & 0xffffffffn);
      const back = Number(word >> 32n);
      if (front >= back) return -1;
      const next = end === 'front' ? word + 1n : word - (1n << 32n);
      if (Atomics.compareExchange(this.word, 0, word, next) === word) return end === 'front' ? front : back - 1;
    }
  }
}

/** Compare jobs taken from `end` of the queue until none is left. */
export async function drainQueue(
  jobs: readonly FileJob[],
  queue: JobQueue,
  end: 'front' | 'back',
  options: ExtractOptions,
  state: ComparisonState,
): Promise<void> {
  for (let k = queue.take(end); k >= 0; k = queue.take(end)) {
    const job = jobs[k];
    if (job === undefined) throw new SealgateError('E_INTERNAL', `no job ${k} in the queue`);
    await compareJob(job, options, state);
  }
}

const sizeOf = (j: FileJob) => (j.oldBytes?.length ?? 0) + (j.newBytes?.length ?? 0);

/**
 * The queue's order: the tree-sitter languages at the front (this thread's), TypeScript and
 * JavaScript at the back (the workers': the compiler loads there while this thread reads the
 * patch, and its syntax trees fill their heaps, not this one's); the largest files at each end,
 * so that the threads meet over small files.
 */
export function queueOrder(jobs: readonly FileJob[]): FileJob[] {
  const bySize = (a: FileJob, b: FileJob) => sizeOf(b) - sizeOf(a);
  const front = jobs.filter((j) => !parsesInWorkers(j.language)).sort(bySize);
  const back = jobs
    .filter((j) => parsesInWorkers(j.language))
    .sort(bySize)
    .reverse();
  return [...front, ...back];
}

export function totalBytes(jobs: readonly FileJob[]): number {
  return jobs.reduce((a, j) => a + sizeOf(j), 0);
}

/** Add a worker's comparison to this thread's; every id belongs to one file, so none collide. */
export function mergeComparison(into: ComparisonState, from: ComparisonState): void {
  for (const [k, v] of from.changed) into.changed.set(k, v);
  for (const id of from.typeOnly) into.typeOnly.add(id);
  for (const id of from.deleted) into.deleted.add(id);
  for (const m of from.moved) into.moved.push(m);
  for (const c of from.appeared) into.appeared.push(c);
  for (const c of from.disappeared) into.disappeared.push(c);
}

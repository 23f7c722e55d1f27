// The worker threads `extractChanged` parses with, seen from this thread.
import { Worker } from 'node:worker_threads';
import { SealgateError } from '../core/errors.js';
import type { ComparisonState } from './compare.js';
import { WORKER_TAG, type FileJob, type JobQueue, type ToWorker, type WorkerAnswer, type WorkerStart } from './jobs.js';
import type { ExtractOptions } from './model.js';

interface Running {
  readonly worker: Worker;
  readonly answer: Promise<ComparisonState>;
}

function startWorker(data: WorkerStart): Running {
  // Run from TypeScript sources (the tests), the worker registers tsx before loading its module.
  // Beside this module: parse-worker.ts (sources), .js (tsc's dist/) or .cjs (the CLI bundle).
  const here = import.meta.url;
  const fromSources = here.endsWith('.ts');
  const url = new URL(`./parse-worker${fromSources ? '.ts' : here.endsWith('.cjs') ? '.cjs' : '.js'}`, here);
  const worker = fromSources
    ? new Worker(`import('tsx/esm/api').then((m) => m.register()).then(() => import(${JSON.stringify(url.href)}))`, {
        eval: true,
        workerData: data,
        execArgv: [],
      })
    : new Worker(url, { workerData: data, execArgv: [] });
  const answer = new Promise<ComparisonState>((resolvePromise, reject) => {
    let settled = false;
    worker.once('message', (m: WorkerAnswer) => {
      settled = true;
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
  // Read once this thread's share is done; a failure before then must not count as unhandled.
  answer.catch(() => undefined);
  return { worker, answer };
}

/**
 * Worker threads that parse alongside this one. They can be started before the files are known
 * (they load their parsers meanwhile), and must be stopped on every path.
 */
export class ParseWorkers {
  private running: Running[] = [];
  private used = false;

  constructor(
    readonly count: number,
    private readonly options: ExtractOptions,
  ) {}

  get started(): boolean {
    return this.running.length > 0;
  }

  start(): void {
    if (this.started || this.used) return;
    this.running = Array.from({ length: this.count }, () => startWorker({ tag: WORKER_TAG, options: this.options }));
  }

  /** Let the workers load these languages' parsers while this thread does other work. */
  load(languages: readonly string[]): void {
    this.post({ kind: 'load', languages });
  }

  /** Give every worker the queue; their comparisons once it is empty. */
  run(jobs: readonly FileJob[], queue: JobQueue): Promise<ComparisonState[]> {
    this.start();
    this.used = true;
    this.post({ kind: 'jobs', jobs, queue: queue.shared });
    const all = Promise.all(this.running.map((r) => r.answer));
    all.catch(() => undefined);
    return all;
  }

  stop(): void {
    for (const r of this.running) void r.worker.terminate();
    this.running = [];
    this.used = true;
  }

  private post(message: ToWorker): void {
    for (const r of this.running) r.worker.postMessage(message);
  }
}

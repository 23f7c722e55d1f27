// A worker thread of `extractChanged` (bundled as dist/bundle/parse-worker.cjs): parses the files it takes from the shared queue.
import { parentPort, workerData } from 'node:worker_threads';
import { newComparison } from './compare.js';
import {
  drainQueue,
  JobQueue,
  loadParser,
  WORKER_TAG,
  type ToWorker,
  type WorkerAnswer,
  type WorkerStart,
} from './jobs.js';

const port = parentPort;
const start = workerData as Partial<WorkerStart> | null;
if (port !== null && start?.tag === WORKER_TAG && start.options !== undefined) {
  const options = start.options;
  const answer = (a: WorkerAnswer) => port.postMessage(a);
  port.on('message', (m: ToWorker) => {
    if (m.kind === 'load') {
      // A parser that fails to load fails again, with its error, on the first file that needs it.
      for (const language of m.languages) loadParser(language).catch(() => undefined);
      return;
    }
    const state = newComparison();
    drainQueue(m.jobs, new JobQueue(m.queue), 'back', options, state).then(
      () => answer({ ok: true, state }),
      (err: unknown) => answer({ ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
  });
}

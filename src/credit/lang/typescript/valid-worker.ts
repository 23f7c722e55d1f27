// The worker thread the TS type checks run in (bundled as dist/bundle/valid-worker.cjs), so they hold up no run.
import { parentPort, workerData } from 'node:worker_threads';
import {
  makeTsValidity,
  VALID_WORKER_TAG,
  type ValidityAnswer,
  type ValidityAsk,
  type ValidityStart,
} from './type-check.js';

const port = parentPort;
const start = workerData as Partial<ValidityStart> | null;
if (port !== null && start?.tag === VALID_WORKER_TAG && typeof start.root === 'string') {
  const check = makeTsValidity(start.root, start.depsFrom ?? undefined);
  port.on('message', (m: ValidityAsk) => {
    let a: ValidityAnswer;
    try {
      a = { id: m.id, ok: true, why: check(m.path, m.original, m.mutated) };
    } catch (err) {
      a = { id: m.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(a);
  });
}

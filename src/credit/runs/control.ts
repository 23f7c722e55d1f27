// The unmutated control: the whole command in a fresh copy, made like every mutant run.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { asControl, type ControlRan, type RunRecord } from './record.js';
import { recordFinished, type RoundRuns } from './round.js';
import { runTestCommand } from './test-run.js';

/** The control's run: from the cache, from the round made ahead, or made now (keeping its runner caches for later runs). */
export async function controlRun(c: RoundRuns): Promise<ControlRan> {
  const ck = c.key('control', null, []);
  const hit = c.cache.read(ck);
  if (hit) return asControl(hit, true);
  const ahead = c.ahead?.get(ck);
  if (ahead !== undefined) return asControl(ahead, false);
  const logDir = mkdtempSync(join(c.scratch, 'control-'));
  const run = await runTestCommand(
    c.baseRoot(),
    c.setup.command,
    c.setup.junit,
    c.env,
    c.setup.controlTimeoutMs,
    logDir,
    c.setup.sandbox,
    {
      files: new Map(),
      ...(c.signal ? { signal: c.signal } : {}),
      ...(c.keepTmp !== undefined ? { keepTmp: c.keepTmp } : {}),
      ...(c.nice !== undefined ? { nice: c.nice } : {}),
    },
  );
  const times = Object.fromEntries(run.cases.map((x) => [x.id, x.duration_ms] as const));
  const fresh: RunRecord = {
    status: run.status,
    detail: run.detail,
    failed: run.cases.filter((x) => x.status === 'passed').map((x) => x.id),
    durationMs: run.durationMs,
    times,
  };
  recordFinished(c, ck, fresh);
  return asControl(fresh, false);
}

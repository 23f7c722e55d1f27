// What the sandbox adds to one run of the project's code (each credit control, trace, probe
// and mutant run is one): the example's test command run through the credit step's chokepoint
// (runTestCommand: a fresh copy of the tree, then the command), sandboxed with bubblewrap
// against the same with sandbox "none", alternating, medians; and the cost of the fresh copy
// alone. Uses the build (dist/). Figures on a loaded machine are noisy: the CPU time is the
// steadier one.
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(root, 'examples', 'pricing');
const runs = Number(process.env.BENCH_RUNS ?? 10);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function run() {
  const { runTestCommand, makeWorkspace } = await import(
    new URL('../../dist/credit/runs/test-run.js', import.meta.url).href
  );
  const { openBox, copyTree, makeRunDirs } = await import(new URL('../../dist/sandbox/run.js', import.meta.url).href);
  const { findBwrap, readSecrets, installRoot } = await import(
    new URL('../../dist/sandbox/host.js', import.meta.url).href
  );
  const { normaliseConfig } = await import(new URL('../../dist/config/schema.js', import.meta.url).href);
  const { readFileSync } = await import('node:fs');
  const work = mkdtempSync(join(tmpdir(), 'sealgate-bench-sandbox-'));
  try {
    const repo = join(work, 'repo');
    cpSync(EXAMPLE, repo, { recursive: true, filter: (src) => !src.startsWith(join(EXAMPLE, 'agent')) });
    symlinkSync(join(root, 'node_modules'), join(repo, 'node_modules'), 'dir');
    const config = normaliseConfig(JSON.parse(readFileSync(join(repo, 'sealgate.config.json'), 'utf8')));
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work };
    const secrets = readSecrets(repo, env, installRoot());
    const boxes = {
      bwrap: openBox({ isolation: 'bwrap', bwrap: findBwrap(), env, secrets, path: 'bench' }),
      none: openBox({ isolation: 'none', bwrap: findBwrap(), env, secrets, path: 'bench' }),
    };
    const ws = makeWorkspace(repo, work);
    const pinned = {
      PATH: env.PATH,
      SEED: '42',
      TZ: 'UTC',
      LC_ALL: 'C.UTF-8',
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1',
    };
    const times = { bwrap: [], none: [] };
    const cpu = { bwrap: [], none: [] };
    const logDir = join(work, 'logs');
    mkdirSync(logDir);
    for (let i = 0; i < runs + 2; i++) {
      for (const kind of ['none', 'bwrap']) {
        const c0 = process.resourceUsage();
        const t0 = performance.now();
        const r = await runTestCommand(
          ws.root,
          config.test.command,
          config.test.junit,
          pinned,
          120_000,
          logDir,
          boxes[kind],
        );
        const ms = performance.now() - t0;
        const c1 = process.resourceUsage();
        if (r.status !== 'ok') throw new Error(`${kind} run: ${r.status} ${r.detail}`);
        if (i >= 2) {
          times[kind].push(ms);
          // This process only (copy, plan, reading the report); the child's CPU is the same program either way.
          cpu[kind].push((c1.userCPUTime - c0.userCPUTime + c1.systemCPUTime - c0.systemCPUTime) / 1000);
        }
      }
    }
    const copies = [];
    for (let i = 0; i < runs; i++) {
      const dirs = makeRunDirs(work);
      const t0 = performance.now();
      await copyTree(ws.root, dirs.work);
      copies.push(performance.now() - t0);
      rmSync(dirs.root, { recursive: true, force: true });
    }
    const n = median(times.none);
    const b = median(times.bwrap);
    console.log(
      `one credit run of the example's test command (fresh copy + run), ${runs} alternating runs each (2 warm-ups), medians`,
    );
    console.log(
      `unsandboxed ${n.toFixed(0)} ms   bubblewrap ${b.toFixed(0)} ms   the sandbox adds +${(b - n).toFixed(0)} ms per run (${(((b - n) / n) * 100).toFixed(1)}%)`,
    );
    console.log(
      `fresh copy of the tree alone (cp -a --reflink=auto, both kinds pay it): ${median(copies).toFixed(1)} ms`,
    );
    console.log(
      `sealgate's own CPU per run: unsandboxed ${median(cpu.none).toFixed(1)} ms, bubblewrap ${median(cpu.bwrap).toFixed(1)} ms`,
    );
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(`load average during the run: ${load} (on ${(await import('node:os')).availableParallelism()} cores)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

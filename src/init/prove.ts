import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import type { ExecOutcome } from '../sandbox/exec.js';
import { SANDBOX_WORK } from '../sandbox/plan.js';
import { dependencyFolders, resolveOutput, runInFreshCopy, type Box } from '../sandbox/run.js';
import { pinnedEnv } from '../runner/env.js';
import type { CaseStatus, JunitCase } from '../runner/junit.js';
import { parseTestReport } from '../runner/report.js';
import { STACKS, type Detection } from './detect.js';

/**
 * `sealgate init`'s proof run: the detected command, once, through the runner's execution
 * path (execInGroup: own process group, explicit environment, output to files, a timeout),
 * then its report read with the runner's own readers. For pytest a plugin loaded only for
 * this run records the `__file__` of each src/ package after the suite, which says where
 * the production code was imported from.
 */

export interface ProofRequest {
  readonly repo: string;
  readonly detection: Detection;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  /** The sandbox the run goes through, as every run of the project's code does. */
  readonly box: Box;
}

/** Where the origin plugin sits in the run's copy, and the file it writes in the run's /tmp. */
const PLUGIN_DIR = '.sealgate-init';
const ORIGIN_FILE = 'sealgate-origins.json';

export interface ReportRead {
  readonly path: string;
  readonly status: 'ok' | 'missing' | 'malformed';
  readonly detail?: string;
}

export interface Proof {
  readonly command: readonly string[];
  readonly exec: ExecOutcome;
  readonly reports: readonly ReportRead[];
  readonly cases: readonly JunitCase[];
  readonly counts: Readonly<Record<CaseStatus, number>>;
  /** package -> the file it was imported from, repository-relative where inside it. */
  readonly origins: Readonly<Record<string, string>>;
  /** The last lines of the command's stderr (and stdout), for a run that reported nothing. */
  readonly tail: string;
}

/** The pytest plugin: after the session, each named module's __file__, as JSON. It runs inside the tests' process. */
const ORIGIN_PLUGIN = `import json, os, sys

def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("SEALGATE_ORIGIN_OUT")
    names = [n for n in os.environ.get("SEALGATE_ORIGIN_MODULES", "").split(",") if n]
    if not out:
        return
    found = {}
    for name in names:
        mod = sys.modules.get(name)
        path = getattr(mod, "__file__", None) if mod is not None else None
        if path:
            found[name] = os.path.realpath(path)
    with open(out, "w") as f:
        json.dump(found, f)
`;

const toRepoRel = (repo: string, p: string): string => {
  const rel = relative(repo, p);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : p;
};

function tail(path: string, lines = 12): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export async function proveSuite(req: ProofRequest): Promise<Proof> {
  const { detection: d, box } = req;
  const repo = realpathSync(req.repo);
  if (d.command === null) throw new Error('proveSuite: no command');
  const work = mkdtempSync(join(tmpdir(), 'sealgate-init-'));
  try {
    const env = pinnedEnv(
      req.baseEnv,
      { seed: '0', clock: 'live', locale: 'C.UTF-8', digest: 'init' },
      { kind: 'live' },
      d.env,
    );
    let command = [...d.command];
    const files = new Map<string, string>();
    // The origin plugin goes into the run's own copy; it writes where its packages came from to the run's /tmp.
    const tmpFiles: Record<string, string> = {};
    if (STACKS[d.stack].importOrigins && d.srcPackages.length > 0) {
      files.set(`${PLUGIN_DIR}/sealgate_init_origin.py`, ORIGIN_PLUGIN);
      const inside = posix.join(SANDBOX_WORK, PLUGIN_DIR);
      env['PYTHONPATH'] = env['PYTHONPATH'] ? `${inside}:${env['PYTHONPATH']}` : inside;
      tmpFiles['SEALGATE_ORIGIN_OUT'] = ORIGIN_FILE;
      env['SEALGATE_ORIGIN_MODULES'] = d.srcPackages.join(',');
      command = [...command, '-p', 'sealgate_init_origin'];
    }
    const reports: ReportRead[] = [];
    const cases: JunitCase[] = [];
    const origins: Record<string, string> = {};
    // Run as `sealgate run` does: a fresh copy of the work tree inside the sandbox; the reports leave it after the run.
    const exec = await runInFreshCopy(
      box,
      {
        source: repo,
        deps: dependencyFolders(box, repo),
        command,
        env,
        tmpFiles,
        files,
        clean: d.junit,
        limits: { timeoutMs: req.timeoutMs, capBytes: 8 * 1024 * 1024 },
        output: { stdoutPath: join(work, 'stdout.log'), stderrPath: join(work, 'stderr.log') },
      },
      (outcome, dirs, plan) => {
        for (const j of d.junit) {
          const found = resolveOutput(dirs.work, j);
          if (!('path' in found)) {
            reports.push({ path: j, status: 'missing', detail: `the command did not write it (${found.missing})` });
            continue;
          }
          const r = parseTestReport(readFileSync(found.path), j, [plan.cwd, dirs.work]);
          if (!r.ok) reports.push({ path: j, status: 'malformed', detail: r.findings.map((f) => f.detail).join('; ') });
          else {
            reports.push({ path: j, status: 'ok' });
            cases.push(...r.value);
          }
        }
        const out = resolveOutput(dirs.tmp, ORIGIN_FILE);
        if ('path' in out) {
          const raw = JSON.parse(readFileSync(out.path, 'utf8')) as unknown;
          if (raw !== null && typeof raw === 'object')
            for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') origins[k] = toRepoRel(plan.cwd, v);
        }
        return outcome;
      },
    );
    const counts: Record<CaseStatus, number> = { passed: 0, failed: 0, error: 0, skipped: 0 };
    for (const c of cases) counts[c.status]++;
    const out = [tail(join(work, 'stderr.log')), tail(join(work, 'stdout.log'))].filter(Boolean).join('\n');
    return { command, exec, reports, cases, counts, origins, tail: out };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Where Python would import each src/ package from without src/ on the path: an installed
 * copy (site-packages) there would shadow src/ for a command that does not put src/ first.
 * Run from an empty folder so the current directory does not count.
 */
export function installedCopies(
  repo: string,
  packages: readonly string[],
  baseEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  if (packages.length === 0) return {};
  const script =
    'import importlib.util, json, sys\nout = {}\nfor n in sys.argv[1:]:\n    try:\n        s = importlib.util.find_spec(n)\n    except Exception:\n        s = None\n    if s is not None and s.origin:\n        out[n] = s.origin\nprint(json.dumps(out))\n';
  const parsed = pythonJson(script, packages, baseEnv);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  let top: string;
  try {
    top = realpathSync(repo);
  } catch {
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof v !== 'string') continue;
    const real = resolve(v);
    if (!real.startsWith(top + sep)) out[k] = real;
  }
  return out;
}

/**
 * What a short Python script prints as JSON, run by the caller's python3 outside the
 * repository (an empty temporary folder, PYTHONPATH dropped, so only installed packages
 * are seen), or null when it fails, times out or prints something else.
 */
function pythonJson(
  script: string,
  args: readonly string[],
  baseEnv: Readonly<Record<string, string | undefined>>,
): unknown {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-init-py-'));
  try {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(baseEnv)) if (v !== undefined && k !== 'PYTHONPATH') env[k] = v;
    const r = spawnSync('python3', ['-c', script, ...args], { cwd: dir, env, encoding: 'utf8', timeout: 30_000 });
    return r.status === 0 ? (JSON.parse(r.stdout) as unknown) : null;
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The src/ packages pytest itself imports when it loads (pytest imports iniconfig and pluggy):
 * with src/ first, pytest runs on the tree's copy, so a probe or mutant of that code changes
 * the test runner too, and a probe that raises stops the run before any test reports.
 */
export function runnerImports(
  packages: readonly string[],
  baseEnv: Readonly<Record<string, string | undefined>>,
): string[] {
  if (packages.length === 0) return [];
  const script =
    'import json, sys\ntry:\n    import pytest  # noqa: F401\nexcept Exception:\n    pass\nprint(json.dumps([n for n in sys.argv[1:] if n in sys.modules]))\n';
  const parsed = pythonJson(script, packages, baseEnv);
  return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string' && packages.includes(x)) : [];
}

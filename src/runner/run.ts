import { lstatSync, realpathSync, rmSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, posix, resolve, sep } from 'node:path';
import type { Config } from '../config/schema.js';
import type { Policy } from '../policy/read.js';
import type { RunnerTree } from '../tree/build.js';
import { SealgateError, inputInvalid, usageError } from '../core/errors.js';
import { sha256Hex } from '../core/ids.js';
import { readBoundedFile, sha256File } from '../core/io.js';
import { LAYOUT, layoutPath } from '../core/layout.js';
import { appendJournalEvents, readJournal } from '../store/journal.js';
import type { ExecOutcome } from '../sandbox/exec.js';
import { findBwrap, installRoot, readSecrets } from '../sandbox/host.js';
import { dependencyFolders, openBox, resolveOutput, runInFreshCopy } from '../sandbox/run.js';
import { findLibfaketime, pinnedEnv, planClock, type ClockPlan } from './env.js';
import type { JunitCase } from './junit.js';
import { MAX_JUNIT_BYTES, writeResults, type JunitFileResult, type Results } from './results.js';
import { ensureStore, listPublished, listStore, moveIntoStore, removeLogs, type StoredFile } from '../store/logs.js';
import {
  checkRunnerJob,
  deriveFullLogState,
  nowText,
  recordLogState,
  requireLiveSeal,
  requireSealMatch,
} from './state.js';

/**
 * `sealgate run`: the sealed test run. Refuse unless this runner job owns a live seal whose
 * bytes still match and the sandbox the policy asks for works here; run the command in a
 * fresh copy of the runner's tree (never the pristine tree, never the work tree) inside the sandbox with the sealed inputs pinned; keep every byte it
 * writes in the hidden store; record results (and the isolation used) and the journal.
 * A failing test command is a result; only "could not run or record" is an error.
 */

export const STDOUT_LOG = 'stdout.log';
export const STDERR_LOG = 'stderr.log';

export interface RunRequest {
  readonly repo: string;
  readonly runnerJob: string;
  /** Overrides config test.command. */
  readonly command?: readonly string[];
  /** The policy's config (read at the base commit). */
  readonly config: Config;
  readonly policy: Policy;
  /** The runner's pristine tree; the run happens in a fresh copy of it. */
  readonly tree: RunnerTree;
  /** The tree was built for this run alone (`sealgate run` on its own): it is moved into the run's folder, not copied, and unusable after. */
  readonly treeSingleUse?: boolean;
  /** The environment the pinned one is built from (PATH, HOME ...). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly clock: () => Date;
  /** Overrides config test.timeoutSeconds (milliseconds, for tests). */
  readonly timeoutMs?: number;
  /** Where libfaketime is; default: looked up in the usual places. */
  readonly libfaketime?: string | null;
  /** The bubblewrap program (default: bwrap in the system paths). */
  readonly bwrap?: string;
}

export interface RunSummary {
  readonly results: Results;
  readonly exec: ExecOutcome;
  readonly clock: ClockPlan;
  readonly logs: readonly StoredFile[];
  /** The working directory the tests saw. */
  readonly cwd: string;
}

/** A JUnit path from the config: relative, POSIX, inside the repository, outside review/. */
export function checkJunitPath(repo: string, p: string): string {
  const label = `sealgate.config#test.junit`;
  if (isAbsolute(p) || p.includes('\\') || p.includes('\0'))
    throw inputInvalid(label, `"${p}" must be a relative POSIX path inside the repository`);
  const norm = posix.normalize(p);
  if (norm === '.' || norm.startsWith('../') || norm === '..')
    throw inputInvalid(label, `"${p}" escapes the repository`);
  if (norm === 'review' || norm.startsWith('review/'))
    throw inputInvalid(label, `"${p}" is inside review/, which only sealgate writes`);
  const top = realpathSync(repo);
  const full = resolve(top, norm);
  // The folder that will hold it must resolve inside the repository (no link out).
  let parent = dirname(full);
  for (;;) {
    try {
      parent = realpathSync(parent);
      break;
    } catch {
      const up = dirname(parent);
      if (up === parent) break;
      parent = up;
    }
  }
  if (parent !== top && !parent.startsWith(top + sep))
    throw inputInvalid(label, `"${p}" resolves (through a link) outside the repository`);
  return full;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** A run that reported no test case proves nothing: refused, naming every JUnit path read and what it held. */
export function zeroCases(r: Results): SealgateError {
  const read = r.junit.map(
    (j) =>
      `${j.path} (${j.status}${j.detail !== undefined ? `: ${j.detail}` : j.status === 'ok' ? ', no <testcase>' : ''})`,
  );
  const how = r.timed_out ? 'timed out' : r.signal !== null ? `ended by ${r.signal}` : `exited ${String(r.exit_code)}`;
  return inputInvalid(
    'sealgate.config#test.junit',
    read.length === 0
      ? `the run reported no test case: no JUnit path is configured (set test.junit to the files the command writes); the command ${how} (recorded in ${LAYOUT.results})`
      : `the run reported no test case; JUnit read: ${read.join(', ')}; the command ${how} (recorded in ${LAYOUT.results})`,
  );
}

export async function runSealedTests(req: RunRequest): Promise<RunSummary> {
  const { repo, runnerJob, config } = req;
  const { params } = checkRunnerJob(repo, runnerJob);
  // A tree other than the sealed one (the patch or the base changed) is drift: the tree= line differs.
  const digest = await requireSealMatch(repo, runnerJob, req.clock(), { policy: req.policy, tree: req.tree });
  const events = readJournal(repo);
  requireLiveSeal(events, runnerJob, digest);

  // Logs already present: this seal's own earlier run is replaced; anything else is E_LOGS_EARLY.
  const before = deriveFullLogState(events, listStore(repo), listPublished(repo));
  if (before.logs_present && !before.logs_after_seal) {
    recordLogState(repo, params, before);
    throw new SealgateError('E_LOGS_EARLY', [
      {
        code: 'E_LOGS_EARLY',
        path: LAYOUT.logs,
        detail:
          'logs are present that no run after the current seal wrote; discard them (`sealgate discard-logs`) before running',
      },
    ]);
  }

  const plan = planClock(params.clock, req.libfaketime === undefined ? findLibfaketime() : req.libfaketime);
  if ('problem' in plan) throw inputInvalid(`${LAYOUT.sealParams}#clock`, plan.problem);
  const command = req.command ?? config.test.command;
  if (command === undefined || command.length === 0)
    throw usageError('no test command: give one after `--`, or set test.command in sealgate.config.json');
  const junitPaths = config.test.junit.map((p) => ({ rel: p, full: checkJunitPath(req.tree.root, p) }));
  // Taken now: a tree used by this run alone is moved into the run's folder (moveSource).
  const treeReal = realpathSync(req.tree.root);

  const box = openBox({
    isolation: config.sandbox,
    bwrap: req.bwrap ?? findBwrap(),
    env: req.baseEnv,
    secrets: readSecrets(repo, req.baseEnv, installRoot()),
    ...(plan.kind === 'faketime' ? { extraReadOnly: [plan.library] } : {}),
    path: 'sealgate.config#sandbox',
  });
  const deps = dependencyFolders(box, repo);

  // This seal's own earlier run is replaced: its logs go, journaled as a discard with the run-start.
  const discarded = before.logs_present
    ? [...new Set([...listStore(repo), ...listPublished(repo)].map((f) => f.name))].sort()
    : null;
  if (discarded !== null) removeLogs(repo);
  rmSync(layoutPath(repo, 'results'), { force: true });
  for (const j of junitPaths)
    if (lstatOrNull(j.full)?.isDirectory()) throw inputInvalid(j.rel, 'the JUnit path is a directory');

  const store = ensureStore(repo);
  const startedAt = nowText(req.clock);
  const journal = [
    ...events,
    ...appendJournalEvents(repo, [
      ...(discarded !== null
        ? [{ type: 'discard' as const, runner_job: runnerJob, digest, at: startedAt, files: discarded }]
        : []),
      {
        type: 'run-start',
        runner_job: runnerJob,
        digest,
        at: startedAt,
        command: [...command],
        sandbox: box.isolation,
      },
    ]),
  ];
  // The XML parser loads while the tests run (a second core is idle then).
  const junitModule = junitPaths.length > 0 ? import('./report.js') : null;
  const env = pinnedEnv(
    req.baseEnv,
    { seed: params.seed, clock: params.clock, locale: params.locale, digest },
    plan,
    config.test.env,
  );
  let exec: ExecOutcome;
  let cwd: string;
  /** Each configured JUnit file as the run left it in its copy, moved into the store (or why not). */
  const taken: ({ stored: string } | { missing: string } | { tooLarge: number })[] = [];
  try {
    // The tests run in a fresh copy of the tree; their JUnit files leave it only after the sandbox has ended.
    [exec, cwd] = await runInFreshCopy(
      box,
      {
        // A fresh copy of the runner's pristine tree (never the work tree); dependency folders from the repository.
        source: req.tree.root,
        ...(req.treeSingleUse === true ? { moveSource: true } : {}),
        deps,
        command,
        env,
        limits: { timeoutMs: req.timeoutMs ?? config.test.timeoutSeconds * 1000, capBytes: config.test.logCapBytes },
        output: { stdoutPath: join(store, STDOUT_LOG), stderrPath: join(store, STDERR_LOG) },
        clean: junitPaths.map((j) => j.rel),
      },
      (outcome, dirs, sandboxPlan) => {
        for (const [k, j] of junitPaths.entries()) {
          const found = resolveOutput(dirs.work, j.rel);
          if (!('path' in found)) {
            taken.push(found);
            continue;
          }
          // Left in the run's copy (removed with it) when too large to read: the store hashes every file it holds, and a sparse file can claim terabytes.
          const size = lstatSync(found.path).size;
          taken.push(
            size > MAX_JUNIT_BYTES
              ? { tooLarge: size }
              : {
                  stored: moveIntoStore(repo, found.path, `junit-${k + 1}${/\.json$/i.test(j.rel) ? '.json' : '.xml'}`),
                },
          );
        }
        return [outcome, sandboxPlan.cwd] as const;
      },
    );
  } catch (err) {
    // Streaming to the store failed (disk full ...): close the run in the journal, then report it.
    const logs = listStore(repo);
    const at = nowText(req.clock);
    appendJournalEvents(repo, [
      ...logs.map((f) => ({
        type: 'log' as const,
        runner_job: runnerJob,
        digest,
        at,
        file: f.name,
        sha256: f.sha256,
        bytes: f.bytes,
      })),
      { type: 'run-end', runner_job: runnerJob, digest, at, exit_code: null, signal: null, timed_out: false },
    ]);
    throw inputInvalid(LAYOUT.logs, `could not record the run's output: ${(err as Error).message}`);
  }

  // JUnit output joins the hidden store; what it says is read from there.
  const junit: JunitFileResult[] = [];
  const cases: JunitCase[] = [];
  const { parseTestReport } = junitModule ? await junitModule : await import('./report.js');
  const { foldDuplicates } = await import('./junit.js');
  for (const [k, j] of junitPaths.entries()) {
    const t = taken[k] ?? { missing: 'the test command did not write it' };
    if ('missing' in t) {
      junit.push({ path: j.rel, sha256: null, status: 'missing', detail: t.missing });
      continue;
    }
    if ('tooLarge' in t) {
      junit.push({
        path: j.rel,
        sha256: null,
        status: 'missing',
        detail: `${t.tooLarge} bytes, over the ${MAX_JUNIT_BYTES}-byte limit of a report: not taken into the store, nor read or hashed`,
      });
      continue;
    }
    const stored = t.stored;
    let bytes: Buffer;
    try {
      bytes = readBoundedFile(stored, MAX_JUNIT_BYTES, j.rel);
    } catch (err) {
      if (!(err instanceof SealgateError)) throw err;
      junit.push({ path: j.rel, sha256: sha256File(stored).sha256, status: 'malformed', detail: err.message });
      continue;
    }
    const sha = sha256Hex(bytes);
    if (bytes.length === 0) {
      junit.push({ path: j.rel, sha256: sha, status: 'empty', detail: 'the file is empty' });
      continue;
    }
    // jest's report names files by absolute path: the sandbox's working directory, or the copy's.
    const parsed = parseTestReport(bytes, j.rel, [cwd, req.tree.root, treeReal]);
    if (!parsed.ok) {
      junit.push({
        path: j.rel,
        sha256: sha,
        status: 'malformed',
        detail: parsed.findings.map((f) => f.detail).join('; '),
      });
      continue;
    }
    junit.push({ path: j.rel, sha256: sha, status: 'ok' });
    cases.push(...parsed.value);
  }

  const logs = listStore(repo);
  const endedAt = nowText(req.clock);
  journal.push(
    ...appendJournalEvents(repo, [
      ...logs.map((f) => ({
        type: 'log' as const,
        runner_job: runnerJob,
        digest,
        at: endedAt,
        file: f.name,
        sha256: f.sha256,
        bytes: f.bytes,
      })),
      {
        type: 'run-end',
        runner_job: runnerJob,
        digest,
        at: endedAt,
        exit_code: exec.exit_code,
        signal: exec.signal,
        timed_out: exec.timed_out,
      },
    ]),
  );

  const results: Results = {
    runner_job: runnerJob,
    digest,
    command: [...command],
    exit_code: exec.exit_code,
    signal: exec.signal,
    timed_out: exec.timed_out,
    started_at: startedAt,
    ended_at: endedAt,
    junit,
    cases: foldDuplicates(cases),
    sandbox: box.isolation,
    cwd,
  };
  writeResults(repo, results);
  recordLogState(repo, params, deriveFullLogState(journal, logs, listPublished(repo)));
  if (exec.spawn_error !== null) {
    throw inputInvalid(
      'command',
      `could not start ${JSON.stringify(command[0])}: ${exec.spawn_error} (recorded in ${LAYOUT.results})`,
    );
  }
  if (results.cases.length === 0) throw zeroCases(results);
  return { results, exec, clock: plan, logs, cwd };
}

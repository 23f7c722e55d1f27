import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../../core/errors.js';
import { LAYOUT } from '../../core/layout.js';
import type { Policy } from '../../policy/read.js';
import { runSealedTests, type RunSummary } from '../../runner/run.js';
import { parseCommandArgs, parseJobOption } from '../args.js';
import type { Command } from '../context.js';
import { policyForAsync, recordBase, treeFor } from '../policy.js';
import { readSealParams } from '../../seal/seal.js';
import { bwrapProgram, prefetchSandboxProbe } from '../../sandbox/host.js';
import type { RunnerTree } from '../../tree/build.js';

export const command: Command = {
  usage: `Usage: sealgate run --runner-job J [--repo DIR] [--policy FILE] [--timeout SECONDS] [-- COMMAND ARG ...]

The runner job's sealed test run (spec sections 2 and 3). Refuses unless the record names
J as its runner job, the author job differs, digest.status is sealed and the fixtures
still hash to the sealed digest (checked right before the start; on drift the seal is
reopened: credit and logs deleted, E_DIGEST_OPEN). Logs found that no run after this seal
wrote make it E_LOGS_EARLY (discard them with \`sealgate discard-logs\`).

The command (default: test.command of the policy, the sealgate config at the record's
base_commit) runs in a fresh copy of the runner's tree (base_commit + the record's patch,
built in a temporary git index; never the work tree; without .git, review/ and dependency
folders) mounted at /sealgate/work inside a bubblewrap sandbox: its own user, pid, network,
ipc and uts namespaces, an unprivileged uid, the host read-only and only what the run needs
visible (system folders, the interpreters on PATH, node_modules/.venv read-only), a fresh
HOME and /tmp. Nothing it starts outlives the run. Where bubblewrap cannot run:
E_SANDBOX_UNAVAILABLE, unless the policy says "sandbox": "none" (the run is then
unsandboxed and recorded as such). SEALGATE_BWRAP names another bwrap program. Its
environment is an allowlist: PATH and CI from the caller, test.env from the policy, HOME
and TMPDIR of the run, and the sealed inputs pinned: SEED, PYTHONHASHSEED (from the seed),
TZ=UTC, LC_ALL and LANG (the locale), SEALGATE_DIGEST, SEALGATE_CLOCK. Clock
"frozen:<instant>" holds the wall clock there with libfaketime (Debian package faketime)
and is refused where it is not installed; "frozen" leaves the time to the suite's sealed
fixtures; "live" changes nothing. Files the command creates get mode 0600.

stdout and stderr go only to ${LAYOUT.logs}/ (0700; files 0600), cut at test.logCapBytes;
the JUnit files named by test.junit are taken from the run's copy after the sandbox has
ended. Results go to ${LAYOUT.results} (with the isolation used); every step is journaled;
the record's log fields are set from the journal. A wall-clock timeout
(test.timeoutSeconds, default 1800) ends the whole sandbox.

  --runner-job J     the runner job (required)
  --repo DIR         the repository root (default: .)
  --policy FILE      a sealgate config outside the repository (default: the one at base_commit)
  --timeout SECONDS  override test.timeoutSeconds
  -- COMMAND ...     the test command (overrides test.command)

A failing test command is a result: exit 0. A run that reports no test case is refused
(E_INPUT_INVALID, naming the JUnit paths read). Exit 1 with a code when the run is refused
or could not start or record; 2 bad arguments; 3 internal error.
`,
  async run(ctx) {
    const { values, positionals } = parseCommandArgs(
      ctx.argv,
      {
        'runner-job': { type: 'string' },
        repo: { type: 'string' },
        policy: { type: 'string' },
        timeout: { type: 'string' },
      },
      true,
    );
    const dash = ctx.argv.indexOf('--');
    if (positionals.length > 0 && (dash === -1 || ctx.argv.length - dash - 1 !== positionals.length)) {
      throw usageError('put the test command after `--`');
    }
    const runnerJob = parseJobOption(values['runner-job'], 'runner-job');
    let timeoutMs: number | undefined;
    if (values.timeout !== undefined) {
      if (!/^[1-9][0-9]{0,5}$/.test(values.timeout) || Number(values.timeout) > 86_400)
        throw usageError('--timeout takes whole seconds, 1 to 86400');
      timeoutMs = Number(values.timeout) * 1000;
    }
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const recordRel = readSealParams(repo)?.record;
    // The policy's git, the sandbox probe and the tree's git all run at once: the policy is
    // awaited after the tree is built (its errors still come first), the probe before the run.
    const pending = policyForAsync(ctx, repo, values.policy, recordBase(repo, recordRel));
    pending.catch(() => undefined);
    const bwrap = bwrapProgram(ctx.env);
    // Started before the policy says whether it needs bubblewrap; a policy with sandbox "none" ignores the answer.
    const probe = existsSync(bwrap) ? prefetchSandboxProbe(bwrap) : Promise.resolve();
    let tree: RunnerTree;
    try {
      tree = treeFor(repo, recordRel, false);
    } catch (err) {
      await pending;
      throw err;
    }
    let policy: Awaited<typeof pending>;
    try {
      policy = await pending;
    } catch (err) {
      tree.dispose();
      throw err;
    }
    await probe;
    let summary;
    try {
      summary = await runSealedTests({
        repo,
        runnerJob,
        ...(positionals.length > 0 ? { command: positionals } : {}),
        config: policy.config,
        policy,
        tree,
        baseEnv: ctx.env,
        clock: ctx.clock,
        bwrap,
        treeSingleUse: true,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      });
    } finally {
      tree.dispose();
    }
    ctx.stdout(formatRunSummary(summary, tree, policy, `run: ${JSON.stringify(summary.results.command)}`));
    return 0;
  },
};

/** What `sealgate run` prints on stdout; `lead` opens the first line (the command, or a caller's own word). */
export function formatRunSummary(
  summary: RunSummary,
  tree: { readonly treeId: string; readonly baseCommit: string },
  policy: Policy,
  lead: string,
): string {
  const r = summary.results;
  const n = (s: string): number => r.cases.filter((c) => c.status === s).length;
  const how = r.timed_out
    ? 'timed out (process group killed)'
    : r.signal !== null
      ? `ended by ${r.signal}`
      : `exited ${r.exit_code}`;
  const clock =
    summary.clock.kind === 'faketime'
      ? `wall clock frozen at ${summary.clock.faketime} UTC (libfaketime)`
      : summary.clock.kind === 'fixture'
        ? 'clock "frozen" (from the sealed fixtures)'
        : 'live clock';
  const junit = r.junit.map((j) => `${j.path} ${j.status}`).join(', ') || 'none configured';
  const cut = [summary.exec.stdout.truncated ? 'stdout' : '', summary.exec.stderr.truncated ? 'stderr' : ''].filter(
    Boolean,
  );
  return [
    `${lead} ${how} after ${summary.exec.duration_ms} ms; ${clock}; digest ${r.digest}`,
    `cases: ${r.cases.length} (${n('passed')} passed, ${n('failed')} failed, ${n('error')} error, ${n('skipped')} skipped); JUnit: ${junit}`,
    `tree: ${tree.treeId} (base ${tree.baseCommit}); policy ${policy.digest} (${policy.source})`,
    `sandbox: ${r.sandbox === 'bwrap' ? `bubblewrap, tests ran in ${r.cwd}` : 'NONE (the policy allows unsandboxed runs)'}`,
    `results: ${LAYOUT.results}; logs hidden in ${LAYOUT.logs}/ until \`sealgate publish\`${cut.length > 0 ? ` (${cut.join(' and ')} cut at the cap)` : ''}`,
    '',
  ].join('\n');
}

import { resolve } from 'node:path';
import { readConfig } from '../../config/read.js';
import { usageError } from '../../core/errors.js';
import { LAYOUT } from '../../core/layout.js';
import { runSealedTests } from '../../runner/run.js';
import { parseCommandArgs, parseJobOption } from '../args.js';
import type { Command } from '../context.js';

export const command: Command = {
  usage: `Usage: sealgate run --runner-job J [--repo DIR] [--config FILE] [--timeout SECONDS] [-- COMMAND ARG ...]

The runner job's sealed test run (spec sections 2 and 3). Refuses unless the record names
J as its runner job, the author job differs, digest.status is sealed and the fixtures
still hash to the sealed digest (checked right before the start; on drift the seal is
reopened: credit and logs deleted, E_DIGEST_OPEN). Logs found that no run after this seal
wrote make it E_LOGS_EARLY (discard them with \`sealgate discard-logs\`).

The command (default: test.command in sealgate.config.json) runs in the repository, in
its own process group, with the sealed inputs pinned: SEED, PYTHONHASHSEED (from the
seed), TZ=UTC, LC_ALL and LANG (the locale), SEALGATE_DIGEST, SEALGATE_CLOCK. Clock
"frozen:<instant>" holds the wall clock there with libfaketime (Debian package
faketime) and is refused where it is not installed; "frozen" leaves the time to the
suite's sealed fixtures; "live" changes nothing. Files the command creates get mode 0600.

stdout and stderr go only to ${LAYOUT.logs}/ (0700; files 0600), cut at test.logCapBytes;
the JUnit files named by test.junit are moved there after the run. Results go to
${LAYOUT.results}; every step is journaled; the record's log fields are set from the
journal. A wall-clock timeout (test.timeoutSeconds, default 1800) kills the whole group.

  --runner-job J     the runner job (required)
  --repo DIR         the repository root (default: .)
  --config FILE      a sealgate config (default: sealgate.config.json|yaml in --repo)
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
        config: { type: 'string' },
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
      if (!/^[1-9][0-9]{0,5}$/.test(values.timeout) || Number(values.timeout) > 86_400) throw usageError('--timeout takes whole seconds, 1 to 86400');
      timeoutMs = Number(values.timeout) * 1000;
    }
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const config = readConfig(repo, values.config === undefined ? undefined : resolve(ctx.cwd, values.config));
    const summary = await runSealedTests({
      repo,
      runnerJob,
      ...(positionals.length > 0 ? { command: positionals } : {}),
      config,
      baseEnv: ctx.env,
      clock: ctx.clock,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    const r = summary.results;
    const n = (s: string): number => r.cases.filter((c) => c.status === s).length;
    const how = r.timed_out ? 'timed out (process group killed)' : r.signal !== null ? `ended by ${r.signal}` : `exited ${r.exit_code}`;
    const clock = summary.clock.kind === 'faketime' ? `wall clock frozen at ${summary.clock.faketime} UTC (libfaketime)` : summary.clock.kind === 'fixture' ? 'clock "frozen" (from the sealed fixtures)' : 'live clock';
    const junit = r.junit.map((j) => `${j.path} ${j.status}`).join(', ') || 'none configured';
    const cut = [summary.exec.stdout.truncated ? 'stdout' : '', summary.exec.stderr.truncated ? 'stderr' : ''].filter(Boolean);
    ctx.stdout(
      [
        `run: ${JSON.stringify(r.command)} ${how} after ${summary.exec.duration_ms} ms; ${clock}; digest ${r.digest}`,
        `cases: ${r.cases.length} (${n('passed')} passed, ${n('failed')} failed, ${n('error')} error, ${n('skipped')} skipped); JUnit: ${junit}`,
        `results: ${LAYOUT.results}; logs hidden in ${LAYOUT.logs}/ until \`sealgate publish\`${cut.length > 0 ? ` (${cut.join(' and ')} cut at the cap)` : ''}`,
        '',
      ].join('\n'),
    );
    return 0;
  },
};

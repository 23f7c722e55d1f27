// `sealgate runner`: the runner job's arguments and key, then its steps printed as they end (src/job/runner.ts runs them).
import { resolve } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { CODE_INFO } from '../../core/codes.js';
import { usageError } from '../../core/errors.js';
import { isInstant, parseInstant } from '../../core/time.js';
import { visible } from '../../core/text.js';
import type { Progress } from '../../credit/oracle/types.js';
import {
  RUNNER_STEPS,
  runRunnerJob,
  type RunnerJobEvent,
  type RunnerJobResult,
  type StepOutcome,
  type TreeFacts,
} from '../../job/runner.js';
import type { Policy } from '../../policy/read.js';
import { parseCommandArgs, parseCommitOption, parseJobOption } from '../args.js';
import type { Command, CommandContext } from '../context.js';
import { readSigningKey, signingKeyPath, SIGNING_KEY_ENV } from '../keys.js';
import { formatDuration, formatReasons, reasonLine, type StepText } from '../report.js';
import { formatCreditReport, formatCreditSummary, missingLines, progressPrinter } from './credit.js';
import { formatPublished } from './publish.js';
import { formatRunSummary } from './run.js';
import { formatSealCheck, formatSealed } from './seal.js';
import { formatChangedSummary } from './symbols.js';

const firstLine = (s: string): string => s.trim().split('\n')[0] ?? '';

/**
 * While a step runs: on a terminal, a live line updated every second; otherwise a plain
 * line every `everyMs` (so a CI log shows the job is alive). Returns the function that stops it.
 */
function heartbeat(
  ctx: CommandContext,
  label: string,
  index: number,
  total: number,
  startedAt: number,
  everyMs: number,
  quiet: () => boolean,
): () => void {
  const tick = (): void => {
    if (quiet()) return;
    const line = `runner: ${label.padEnd(8)} step ${index}/${total} running, ${formatDuration(ctx.clock().getTime() - startedAt)} elapsed`;
    ctx.stderr(ctx.isTTY ? `\r\x1b[2K${line}` : `${line}\n`);
  };
  const timer = setInterval(tick, ctx.isTTY ? 1000 : everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (ctx.isTTY) ctx.stderr('\r\x1b[2K');
  };
}

export const command: Command = {
  usage: `Usage: sealgate runner --runner-job R [--repo DIR] [--policy FILE] [--seed S] [--now T] [--signing-key FILE]
                      [--expect-base SHA] [--workers N] [--no-cache] [--quiet | --verbose]

The runner job in one command. It first builds its own tree from the record's base_commit
and patch (a temporary git index: read-tree, apply --cached once, write-tree, checkout-
index into a fresh folder) and reads the policy at base_commit; the work tree and the
index are never read or changed, so it does not matter whether the patch is applied,
committed or absent there. Then, in the spec's order, a line per step on stderr:
  seal      sealgate seal (fixtures, clock, locale from the policy; seed from
            --seed or $SEED); resealing identical bytes changes nothing
  symbols   sealgate symbols on the record's base and patch: review/runner/changed.json;
            before any test, so a patch that touches the policy surface (E_POLICY_CHANGED)
            never runs
  verify    sealgate seal --verify: the digest recomputed right before the tests
  run       sealgate run: the tests on the sealed digest, in a fresh copy of the tree
  credit    sealgate credit: the mutation oracle; cases.json and credit.json
  publish   sealgate publish: the logs become readable, after the seal only
  attest    sealgate attest: with a signing key, every evidence file and the predicate
            signed into review/runner/attestation.dsse.json (docs/attest.md)
then the full audit (sealgate verify) on the files it wrote, whose code is printed on
stdout; the closing line names every changed symbol that lacks credit, and every one
credited though its revert survived (flagged: its tests pass on the base version too,
which credit.require "change" allows and "revert" does not) or could not run (invalid). A step that
refuses stops the job and its code is the result; missing credit (E_CREDIT_MISSING) is
a result, not a refusal, so the logs are still published. Each step stays available as
its own command.

Progress goes to stderr while each step runs: the step, its elapsed time, and for the
credit step the phase, runs done/total, kills and an estimate of the time left. On a
terminal it is one live line; otherwise a plain line every 10 seconds.

  --runner-job R  the record's runner job
  --repo DIR      the repository holding the record and the patch (default: .)
  --policy FILE   a sealgate config outside the repository (default: the one at base_commit)
  --seed S        the seed to seal (default: $SEED)
  --now T         the clock for the closing audit (default: the current time)
  --signing-key FILE  the runner's Ed25519 private key (default: the file $${SIGNING_KEY_ENV}
                  names). Read before any test runs; the variable is removed from every
                  child's environment. Required when the policy has a trust section.
  --expect-base SHA  the full commit id the record's base_commit must be (the pull
                  request's base, as the gate checks it): another base is E_INPUT_INVALID
                  before the policy is read or anything runs
  --workers N     parallel credit runs: the credit step's, and those beside the sealed
                  run where the suite keeps to one process (default: the number of cores)
  --no-cache      the credit step neither reads nor writes its mutant result cache
  --quiet         no progress while steps run (the line per step stays)
  --verbose       show every step's own output

Exit: 0 ALLOW, 1 a reject code, 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      'runner-job': { type: 'string' },
      repo: { type: 'string' },
      policy: { type: 'string' },
      seed: { type: 'string' },
      now: { type: 'string' },
      workers: { type: 'string' },
      'no-cache': { type: 'boolean' },
      quiet: { type: 'boolean' },
      verbose: { type: 'boolean' },
      'signing-key': { type: 'string' },
      'expect-base': { type: 'string' },
    });
    const runnerJob = parseJobOption(values['runner-job'], 'runner-job');
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const now = parseInstant(values.now ?? ctx.clock().toISOString());
    if (!isInstant(now)) throw usageError(`--now: ${now.problem}`);
    if (values.workers !== undefined && !/^[1-9][0-9]{0,2}$/.test(values.workers))
      throw usageError('--workers: a whole number from 1 to 999');
    if (values.quiet && values.verbose) throw usageError('--quiet and --verbose contradict each other');
    // The key is read before anything runs, and its variable leaves the steps' environment.
    const keyPath = signingKeyPath(values['signing-key'], ctx.env);
    const signingKey: KeyObject | null = keyPath === null ? null : readSigningKey(resolve(ctx.cwd, keyPath)).key;
    const env = Object.fromEntries(Object.entries(ctx.env).filter(([k]) => k !== SIGNING_KEY_ENV));
    const expectBase =
      values['expect-base'] === undefined ? undefined : parseCommitOption(values['expect-base'], 'expect-base');
    const printer = jobPrinter(ctx, runnerJob, values.quiet === true, values.verbose === true);
    const result = await runRunnerJob({
      repo,
      runnerJob,
      ...(values.policy !== undefined ? { policyFile: resolve(ctx.cwd, values.policy) } : {}),
      ...(expectBase !== undefined ? { expectBase } : {}),
      ...(values.seed !== undefined ? { seed: values.seed } : {}),
      signingKey,
      now,
      env,
      clock: ctx.clock,
      ...(values.workers !== undefined ? { workers: Number(values.workers) } : {}),
      noCache: values['no-cache'] === true,
      onEvent: printer.onEvent,
    });
    printer.finish(result);
    ctx.stdout(`${result.code}\n`);
    return CODE_INFO[result.code].exit;
  },
};

/**
 * The job's lines on stderr as its events come: the tree and the policy, a line per step (with
 * --verbose the step's own output first, as its command prints it), live credit progress and
 * a heartbeat while a step runs (not with --quiet); `finish` adds the closing line.
 */
function jobPrinter(
  ctx: CommandContext,
  runnerJob: string,
  quiet: boolean,
  verbose: boolean,
): { onEvent: (e: RunnerJobEvent) => void; finish: (r: RunnerJobResult) => void } {
  // Names the patch chose (its path, test ids in a step's reason) print escaped: a CI log is read too.
  const say = (label: string, text: string): void => ctx.stderr(`runner: ${label.padEnd(8)} ${visible(text)}\n`);
  let lastLive = -Infinity;
  const live = (text: string): void => {
    if (quiet) return;
    lastLive = ctx.clock().getTime();
    ctx.stderr(text);
  };
  let stopBeat = (): void => undefined;
  let progress: ((p: Progress) => void) | null = null;
  // What the credit step printed on stderr while it ran (its progress), for --verbose.
  let creditProgress = '';
  let ready: { tree: TreeFacts; policy: Policy } | null = null;

  const ownText = (o: StepOutcome): StepText => {
    const r = o.refusal;
    if (r !== null && !(o.step === 'verify' && o.data !== null))
      return {
        stdout: `${r.code}\n`,
        stderr:
          (o.step === 'credit' ? creditProgress : '') +
          formatReasons(r.code, r.findings) +
          (r.usage ? 'sealgate: run `sealgate --help` for usage\n' : ''),
      };
    if (o.data === null || ready === null) return { stdout: '', stderr: '' };
    switch (o.step) {
      case 'seal':
        return formatSealed(o.data, runnerJob, ready.policy);
      case 'symbols':
        return { stdout: '', stderr: formatChangedSummary(o.data) };
      case 'verify':
        return formatSealCheck(o.data);
      case 'run':
        return { stdout: formatRunSummary(o.data, ready.tree, ready.policy, 'tests'), stderr: '' };
      case 'credit':
        return {
          stdout: o.data.credit.pass ? 'PASS\n' : 'E_CREDIT_MISSING\n',
          stderr: creditProgress + formatCreditReport(o.data),
        };
      case 'publish':
        return { stdout: formatPublished(o.data.files), stderr: '' };
      case 'attest':
        return { stdout: '', stderr: '' };
    }
  };

  const stepEnded = (o: StepOutcome): void => {
    if (o.step === 'attest') {
      // A refusal here is the closing line's (finish).
      if (o.data !== null) say('attest', `ok  ${o.data.subjects} evidence file(s) signed by ${o.data.keyId ?? '?'}`);
      return;
    }
    const own = ownText(o);
    if (verbose) {
      if (own.stdout.trim()) ctx.stderr(own.stdout.replace(/^/gm, '  | '));
      if (own.stderr.trim()) ctx.stderr(own.stderr.replace(/^/gm, '  | '));
    }
    const took = formatDuration(o.ms);
    if (o.refusal !== null) {
      const { code, findings } = o.refusal;
      say(o.step, `${code}: ${reasonLine(code, findings) || CODE_INFO[code].condition}`);
      return;
    }
    if (o.step === 'credit' && o.data !== null && !o.data.credit.pass) {
      say('credit', `E_CREDIT_MISSING: ${formatCreditSummary(o.data)} (${took})`);
      // Why each symbol lacks credit, as the credit step says it (one line each).
      for (const l of missingLines(o.data)) ctx.stderr(`runner:          ${visible(l.trim())}\n`);
      return;
    }
    say(o.step, `ok  ${firstLine(own.stdout) || firstLine(own.stderr)} (${took})`);
  };

  const onEvent = (e: RunnerJobEvent): void => {
    switch (e.kind) {
      case 'ready':
        ready = e;
        say(
          'tree',
          `ok  ${e.tree.treeId} = base ${e.tree.baseCommit} + ${e.tree.patchPath} (sha256 ${e.tree.patchSha256}), built in ${e.buildMs} ms`,
        );
        say(
          'policy',
          `ok  ${e.policy.digest} (${e.policy.source}); test command ${JSON.stringify(e.policy.config.test.command ?? null)}`,
        );
        return;
      case 'step-start': {
        const index = (RUNNER_STEPS as readonly string[]).indexOf(e.step);
        if (index !== -1 && !quiet)
          stopBeat = heartbeat(
            ctx,
            e.step,
            index + 1,
            RUNNER_STEPS.length,
            e.at,
            10_000,
            () => ctx.clock().getTime() - lastLive < 3000,
          );
        if (e.step === 'credit') {
          creditProgress = '';
          progress = progressPrinter({
            isTTY: ctx.isTTY,
            stderr: (t) => {
              creditProgress += t;
              live(t);
            },
          });
        }
        return;
      }
      case 'credit-progress':
        progress?.(e.progress);
        return;
      case 'step-end':
        stopBeat();
        stopBeat = () => undefined;
        stepEnded(e.outcome);
        return;
    }
  };

  const finish = (r: RunnerJobResult): void => {
    const at = r.stopped?.at;
    if (r.stopped !== null && (at === 'base' || at === 'tree' || at === 'attest' || at === 'audit'))
      say(at === 'base' || at === 'tree' ? at : 'audit', `${r.stopped.refusal.code}: ${r.stopped.refusal.message}`);
    const c = r.closing;
    if (c === null) return;
    const a = c.audit;
    const because = a.decisive ? `${a.decisive.path ? `${a.decisive.path}: ` : ''}${a.decisive.detail}` : '';
    say(
      'audit',
      `${a.code}${because ? `: ${because}` : ''}${c.missing.length > 0 ? `; missing (${c.missing.length}): ${c.missing.join(', ')}` : ''}${c.flagged.length > 0 ? `; flagged, revert survived or invalid (${c.flagged.length}): ${c.flagged.join(', ')}` : ''} (job ${formatDuration(c.jobMs)})`,
    );
  };

  return { onEvent, finish };
}

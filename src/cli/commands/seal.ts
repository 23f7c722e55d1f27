import { relative, resolve, sep } from 'node:path';
import { CODE_INFO } from '../../core/codes.js';
import { usageError } from '../../core/errors.js';
import { LAYOUT } from '../../core/layout.js';
import type { Policy } from '../../policy/read.js';
import { readSealParams, type SealCheck } from '../../seal/seal.js';
import { recheckSeal, sealCheckFindings, sealRunnerInputs, type SealStepOutcome } from '../../seal/step.js';
import { parseCommandArgs, parseJobOption } from '../args.js';
import type { Command } from '../context.js';
import { policyFor, recordBase } from '../policy.js';
import type { StepText } from '../report.js';

export const command: Command = {
  usage: `Usage: sealgate seal --runner-job J [--fixtures GLOB ...] [--seed S] [--clock MODE] [--locale L]
                     [--record PATH] [--repo DIR] [--policy FILE]
       sealgate seal --verify [--repo DIR] [--runner-job J] [--policy FILE]

Seals the fixture inputs before the tests start (spec section 2). The fixtures are hashed
in the runner's own tree, built from the record's base_commit and patch (a temporary git
index; the work tree is never read), and the policy is read at base_commit. Writes, under
review/runner/: inputs.sha256 (sha256sum lines for every fixture, sorted bytewise,
then seed=, clock=, locale=, tree=<git tree id of base + patch>, policy=<SHA-256 of the
policy bytes, or "default">), digest.txt (SHA-256 of inputs.sha256), seal.json (what
was sealed, for --verify) and, last, digest.status ("sealed"). The record gets
digest_status, digest and runner_job; nothing else in it changes. Prints the digest.

  --runner-job J   the runner job sealing; must differ from the record's author_job and
                   match the record's runner_job when it names one
  --fixtures GLOB  a fixture glob, relative to the repository root (repeatable);
                   default: "fixtures" in sealgate.config.json, where [] seals
                   no fixture file (the digest still covers seed, clock, locale)
  --seed S         the seed; default: $SEED (one of them is required)
  --clock MODE     frozen, frozen:<RFC 3339 instant> or live; default: config "clock"
  --locale L       e.g. C.UTF-8; default: config "locale"
  --record PATH    the proposal record, JSON or YAML (default: ${LAYOUT.record})
  --repo DIR       the repository root (default: .)
  --policy FILE    a sealgate config outside the repository (default: sealgate.config.
                   json|yaml|yml at the record's base_commit; none there: the defaults)
  --verify         rebuild the tree from the base commit and the patch on disk and
                   recompute the digest; on a match print it and
                   exit 0; on drift delete credit and logs, set the status back to open,
                   print the changed lines on stderr and E_DIGEST_OPEN on stdout

Nothing is defaulted silently: missing fixtures, seed, clock or locale is a usage error.
A second seal by the same runner job over different bytes is refused (E_DIGEST_OPEN:
allocate a new runner job); resealing identical bytes changes nothing.

Exit: 0 sealed (or --verify match), 1 a reject code, 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      'runner-job': { type: 'string' },
      fixtures: { type: 'string', multiple: true },
      seed: { type: 'string' },
      clock: { type: 'string' },
      locale: { type: 'string' },
      record: { type: 'string' },
      repo: { type: 'string' },
      policy: { type: 'string' },
      verify: { type: 'boolean' },
    });
    const repo = resolve(ctx.cwd, values.repo ?? '.');

    if (values.verify) {
      for (const name of ['fixtures', 'seed', 'clock', 'locale', 'record'] as const) {
        if (values[name] !== undefined)
          throw usageError(`--verify takes no --${name}: it recomputes from what ${LAYOUT.sealParams} recorded`);
      }
      const job = values['runner-job'] === undefined ? undefined : parseJobOption(values['runner-job'], 'runner-job');
      const policy = policyFor(ctx, repo, values.policy, recordBase(repo, readSealParams(repo)?.record));
      const check = await recheckSeal({
        repo,
        policy,
        ...(job === undefined ? {} : { runnerJob: job }),
        now: ctx.clock,
      });
      const out = formatSealCheck(check);
      ctx.stdout(out.stdout);
      if (out.stderr !== '') ctx.stderr(out.stderr);
      return check.status === 'match' ? 0 : CODE_INFO.E_DIGEST_OPEN.exit;
    }

    const runnerJob = parseJobOption(values['runner-job'], 'runner-job');
    const recordRel =
      values.record === undefined ? undefined : relative(repo, resolve(ctx.cwd, values.record)).split(sep).join('/');
    const policy = policyFor(ctx, repo, values.policy, recordBase(repo, recordRel));
    const outcome = await sealRunnerInputs({
      repo,
      runnerJob,
      policy,
      ...(recordRel === undefined ? {} : { record: recordRel }),
      fixtures: values.fixtures,
      seed: values.seed,
      clock: values.clock,
      locale: values.locale,
      env: ctx.env,
      now: ctx.clock(),
    });
    const out = formatSealed(outcome, runnerJob, policy);
    ctx.stdout(out.stdout);
    ctx.stderr(out.stderr);
    return 0;
  },
};

/** What `sealgate seal` prints for a seal: the digest on stdout, what was sealed on stderr. */
export function formatSealed(outcome: SealStepOutcome, runnerJob: string, policy: Policy): StepText {
  const what = outcome.written ? 'sealed' : 'already sealed (nothing changed)';
  return {
    stdout: `${outcome.digest}\n`,
    stderr:
      `sealgate: ${what}: ${outcome.files} fixture file(s) under runner job ${runnerJob}; tree ${outcome.treeId} (base ${outcome.baseCommit}); policy ${policy.digest} (${policy.source}); digest in ${LAYOUT.digest}\n` +
      (outcome.replaced
        ? `sealgate: the earlier seal by ${outcome.replaced} was reopened: its credit and logs were deleted\n`
        : ''),
  };
}

/** What `sealgate seal --verify` prints: the digest on a match, else E_DIGEST_OPEN and why. */
export function formatSealCheck(check: SealCheck): StepText {
  if (check.status === 'match') return { stdout: `${check.digest}\n`, stderr: '' };
  const [why] = sealCheckFindings(check);
  const reason = `sealgate: E_DIGEST_OPEN: ${why?.path ? `${why.path}: ` : ''}${why?.detail ?? ''}`;
  if (check.status === 'open') return { stdout: 'E_DIGEST_OPEN\n', stderr: `${reason}\n` };
  return {
    stdout: 'E_DIGEST_OPEN\n',
    stderr: [
      reason,
      'Changed inputs lines (- sealed, + current, ! cannot be hashed):',
      ...check.changes.map((c) => `  ${c}`),
      'Credit, cases, results and logs were deleted and the status set back to open. Seal again under a new runner job.',
      '',
    ].join('\n'),
  };
}

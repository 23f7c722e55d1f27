import { relative, resolve, sep } from 'node:path';
import { usageError } from '../../core/errors.js';
import { LAYOUT } from '../../core/layout.js';
import { checkClock, checkLocale, checkSeed } from '../../seal/inputs.js';
import { reopenSeal, sealFixtures, verifySeal, readSealParams } from '../../seal/seal.js';
import { parseCommandArgs, parseJobOption } from '../args.js';
import type { Command } from '../context.js';
import { policyFor, recordBase, treeFor } from '../policy.js';

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
      const check = await verifySeal(repo, { policy, ...(ctx.runner ? { tree: ctx.runner.tree } : {}) });
      if (check.status === 'match') {
        ctx.stdout(`${check.digest}\n`);
        return 0;
      }
      if (check.status === 'open') {
        ctx.stdout('E_DIGEST_OPEN\n');
        ctx.stderr(`sealgate: E_DIGEST_OPEN: ${LAYOUT.status}: not sealed\n`);
        return 1;
      }
      const sealedBy = readSealParams(repo)?.runner_job;
      await reopenSeal(repo, job ?? sealedBy ?? 'unknown', {
        now: ctx.clock(),
        reason: `fixture drift: ${check.changes.length} inputs line(s) changed`,
      });
      ctx.stdout('E_DIGEST_OPEN\n');
      ctx.stderr(
        [
          `sealgate: E_DIGEST_OPEN: the fixtures drifted from sealed digest ${check.expected}${check.digest ? ` (now ${check.digest})` : ''}.`,
          'Changed inputs lines (- sealed, + current, ! cannot be hashed):',
          ...check.changes.map((c) => `  ${c}`),
          'Credit, cases, results and logs were deleted and the status set back to open. Seal again under a new runner job.',
          '',
        ].join('\n'),
      );
      return 1;
    }

    const runnerJob = parseJobOption(values['runner-job'], 'runner-job');
    const recordRel =
      values.record === undefined ? undefined : relative(repo, resolve(ctx.cwd, values.record)).split(sep).join('/');
    const policy = policyFor(ctx, repo, values.policy, recordBase(repo, recordRel));
    const config = policy.config;
    const fixtures = values.fixtures ?? config?.fixtures;
    if (fixtures === undefined)
      throw usageError(
        'no fixtures: pass --fixtures GLOB or set "fixtures" in sealgate.config.json (`[]` for a project without fixtures)',
      );
    const envSeed = ctx.env['SEED'];
    if (values.seed !== undefined && envSeed !== undefined && envSeed !== '' && envSeed !== values.seed) {
      throw usageError('--seed and $SEED disagree; pass one seed');
    }
    const seed = values.seed ?? (envSeed === '' ? undefined : envSeed);
    if (seed === undefined) throw usageError('no seed: pass --seed S or set $SEED');
    const clock = values.clock ?? config?.clock;
    if (clock === undefined)
      throw usageError('no clock mode: pass --clock MODE or set "clock" in sealgate.config.json');
    const locale = values.locale ?? config?.locale;
    if (locale === undefined) throw usageError('no locale: pass --locale L or set "locale" in sealgate.config.json');
    for (const [name, problem] of [
      ['seed', checkSeed(seed)],
      ['clock', checkClock(clock)],
      ['locale', checkLocale(locale)],
    ] as const) {
      if (problem) throw usageError(`--${name}: ${problem}`);
    }
    const { tree, release } = treeFor(ctx, repo, recordRel, true);
    let outcome;
    try {
      outcome = await sealFixtures({
        repo,
        tree,
        policy,
        runnerJob,
        fixtures,
        seed,
        clock,
        locale,
        ...(values.record === undefined ? {} : { record: resolve(ctx.cwd, values.record) }),
        now: ctx.clock(),
      });
    } finally {
      release();
    }
    ctx.stdout(`${outcome.digest}\n`);
    const what = outcome.written ? 'sealed' : 'already sealed (nothing changed)';
    ctx.stderr(
      `sealgate: ${what}: ${outcome.files} fixture file(s) under runner job ${runnerJob}; tree ${tree.treeId} (base ${tree.baseCommit}); policy ${policy.digest} (${policy.source}); digest in ${LAYOUT.digest}\n`,
    );
    if (outcome.replaced)
      ctx.stderr(`sealgate: the earlier seal by ${outcome.replaced} was reopened: its credit and logs were deleted\n`);
    return 0;
  },
};

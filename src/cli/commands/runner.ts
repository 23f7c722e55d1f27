import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { writeRunnerAttestation } from '../../attest/write.js';
import { CODE_INFO, isDecisionCode, type DecisionCode } from '../../core/codes.js';
import { readDocument } from '../../core/document.js';
import { SealgateError, usageError } from '../../core/errors.js';
import { LAYOUT, layoutPath } from '../../core/layout.js';
import { isInstant, parseInstant, type Instant } from '../../core/time.js';
import { visible } from '../../core/text.js';
import { RecordSchema } from '../../record/schema.js';
import { auditReview } from '../../verify/audit.js';
import { flaggedSymbols } from '../../report/model.js';
import { COMMANDS } from './index.js';
import { parseCommandArgs, parseCommitOption, parseJobOption } from '../args.js';
import { expectedBaseFinding } from '../../gate/base.js';
import type { Command, CommandContext, RunnerShared } from '../context.js';
import { policyFor } from '../policy.js';
import { buildRecordTree } from '../../tree/build.js';
import { main } from '../main.js';
import { VERSION } from '../../core/version.js';
import { readSigningKey, signingKeyPath, SIGNING_KEY_ENV } from '../keys.js';

export interface StepOutcome {
  readonly step: string;
  readonly exit: number;
  /** The code the step printed, or null when it printed something else (a digest, a summary). */
  readonly code: DecisionCode | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A code at the start of a reason line, as formatReasons writes it (`sealgate: CODE: ...`). */
const CODE_PREFIX = /^(?:sealgate: )?([A-Z][A-Z_]+): /;

/** The reason a step gave, without the `sealgate:` prefix or the code (the caller states it once). */
export function stepReason(stderr: string, code: DecisionCode): string {
  for (const line of stderr.split('\n')) {
    const m = CODE_PREFIX.exec(line);
    if (m !== null && m[1] === code) return line.slice(m[0].length).trim();
  }
  return firstLine(stderr.replace(/^sealgate: /gm, ''));
}

/** Progress lines a step writes for a person watching (the credit oracle's); they go out live. */
const PROGRESS_LINE = /^credit: \S+ \d+\/\d+ runs/;

/**
 * Run one sealgate command in-process, as its own CLI invocation would, capturing both
 * streams; the step's progress lines are passed to `live` as they come, not held to the end.
 */
async function step(
  ctx: CommandContext,
  shared: RunnerShared,
  name: string,
  argv: readonly string[],
  live: (text: string) => void,
): Promise<StepOutcome> {
  let stdout = '';
  let stderr = '';
  let pending = '';
  const onStderr = (t: string): void => {
    stderr += t;
    // A terminal's live line comes as one "\r\x1b[2K..." write without a newline.
    // eslint-disable-next-line no-control-regex
    if (t.startsWith('\r') && PROGRESS_LINE.test(t.replace(/^\r(?:\x1b\[2K)?/, ''))) return live(t);
    const lines = (pending + t).split('\n');
    pending = lines.pop() ?? '';
    for (const l of lines) if (PROGRESS_LINE.test(l)) live(`${l}\n`);
  };
  const exit = await main(
    { ...ctx, runner: shared, argv: [name, ...argv], stdout: (t) => (stdout += t), stderr: onStderr },
    COMMANDS,
  );
  const last = stdout.trim().split('\n').pop() ?? '';
  return { step: name, exit, code: isDecisionCode(last) ? last : null, stdout, stderr };
}

const firstLine = (s: string): string => s.trim().split('\n')[0] ?? '';

const fmtS = (ms: number): string =>
  ms >= 60_000
    ? `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`
    : `${(ms / 1000).toFixed(1)}s`;

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
    const line = `runner: ${label.padEnd(8)} step ${index}/${total} running, ${fmtS(ctx.clock().getTime() - startedAt)} elapsed`;
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
    const runner = parseJobOption(values['runner-job'], 'runner-job');
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const nowText = values.now ?? ctx.clock().toISOString();
    const now = parseInstant(nowText);
    if (!isInstant(now)) throw usageError(`--now: ${now.problem}`);
    if (values.workers !== undefined && !/^[1-9][0-9]{0,2}$/.test(values.workers))
      throw usageError('--workers: a whole number from 1 to 999');
    if (values.quiet && values.verbose) throw usageError('--quiet and --verbose contradict each other');
    // The key is read before anything runs, and its variable leaves the steps' environment.
    const keyPath = signingKeyPath(values['signing-key'], ctx.env);
    const signingKey: KeyObject | null = keyPath === null ? null : readSigningKey(resolve(ctx.cwd, keyPath)).key;
    const env = Object.fromEntries(Object.entries(ctx.env).filter(([k]) => k !== SIGNING_KEY_ENV));
    const inner: CommandContext = { ...ctx, env };
    const expected =
      values['expect-base'] === undefined ? null : parseCommitOption(values['expect-base'], 'expect-base');
    const record = readDocument(layoutPath(repo, 'record'), RecordSchema, 'json', LAYOUT.record);
    // Names the patch chose (its path, test ids in a step's reason) print escaped: a CI log is read too.
    const say = (label: string, text: string): void => ctx.stderr(`runner: ${label.padEnd(8)} ${visible(text)}\n`);
    // The base decides the policy every step reads: a record naming another base stops here, before any of it is used.
    const mismatch =
      expected === null ? null : expectedBaseFinding(record.base_commit ?? null, expected, LAYOUT.record);
    if (mismatch !== null) {
      say('base', `E_INPUT_INVALID: ${mismatch.path}: ${mismatch.detail}`);
      ctx.stdout('E_INPUT_INVALID\n');
      return CODE_INFO.E_INPUT_INVALID.exit;
    }
    let shared: RunnerShared;
    try {
      const policy = policyFor(ctx, repo, values.policy, record.base_commit ?? null);
      if (signingKey === null && policy.config.trust !== undefined)
        throw usageError(
          'the policy trusts runner keys (trust.runnerKeys): give --signing-key FILE so the evidence is signed',
        );
      const t0 = performance.now();
      const tree = buildRecordTree(repo);
      shared = { tree, policy, creditPrelude: { current: null } };
      say(
        'tree',
        `ok  ${tree.treeId} = base ${tree.baseCommit} + ${record.patch_path} (sha256 ${tree.patchSha256}), built in ${Math.round(performance.now() - t0)} ms`,
      );
      say(
        'policy',
        `ok  ${policy.digest} (${policy.source}); test command ${JSON.stringify(policy.config.test.command ?? null)}`,
      );
    } catch (err) {
      // Bad arguments (the trust policy with no key to sign with) are the CLI's: exit 2, before anything runs.
      if (!(err instanceof SealgateError) || err.usage) throw err;
      say('tree', `${err.code}: ${err.message}`);
      ctx.stdout(`${err.code}\n`);
      return CODE_INFO[err.code].exit;
    }
    try {
      return await runSteps(inner, shared, repo, runner, now, say, signingKey, {
        seed: values.seed,
        verbose: values.verbose === true,
        quiet: values.quiet === true,
        workers: values.workers,
        noCache: values['no-cache'] === true,
      });
    } finally {
      // The credit prelude's copy of the tree (Python byte code) goes too, whether or not the credit step ran.
      const prelude = shared.creditPrelude?.current;
      if (prelude) await (await import('../../credit/run.js')).disposePrelude(prelude);
      shared.tree.dispose();
    }
  },
};

interface StepOptions {
  readonly seed: string | undefined;
  readonly verbose: boolean;
  readonly quiet: boolean;
  readonly workers: string | undefined;
  readonly noCache: boolean;
}

async function runSteps(
  ctx: CommandContext,
  shared: RunnerShared,
  repo: string,
  runner: string,
  now: Instant,
  say: (label: string, text: string) => void,
  signingKey: KeyObject | null,
  o: StepOptions,
): Promise<number> {
  const { seed, verbose } = o;
  const job = ['--runner-job', runner, '--repo', repo];
  const plan: [string, string, string[]][] = [
    // The seal creates review/runner (and refuses one it did not create); symbols then refuses a
    // patch that touches the policy surface (E_POLICY_CHANGED) before any test runs.
    ['seal', 'seal', [...job, ...(seed !== undefined ? ['--seed', seed] : [])]],
    ['symbols', 'symbols', ['--repo', repo]],
    ['verify', 'seal', ['--verify', '--repo', repo]],
    ['run', 'run', job],
    [
      'credit',
      'credit',
      [...job, ...(o.workers !== undefined ? ['--workers', o.workers] : []), ...(o.noCache ? ['--no-cache'] : [])],
    ],
    ['publish', 'publish', job],
  ];
  const jobStart = ctx.clock().getTime();
  let lastLive = -Infinity;
  const live = (text: string): void => {
    if (o.quiet) return;
    lastLive = ctx.clock().getTime();
    ctx.stderr(text);
  };
  let refused: DecisionCode | null = null;
  for (const [k, [label, name, argv]] of plan.entries()) {
    // The credit step's mutants are drafted and checked (seconds of TypeScript where the runner
    // type-checks) while the sealed run goes on: they need the tree, the seal and changed.json, no test result.
    // So is the oracle's first round, made as the credit step will make it (its cache, its bubblewrap, its workers).
    if (name === 'run' && shared.creditPrelude !== undefined) {
      const credit = await import('../../credit/run.js');
      const bwrap = ctx.env.SEALGATE_BWRAP;
      const workers = o.workers !== undefined ? Number(o.workers) : availableParallelism();
      shared.creditPrelude.current = credit.startCreditPrelude(repo, shared.tree, shared.policy.config, {
        env: ctx.env,
        cacheDir: o.noCache ? null : credit.defaultCacheDir(ctx.env),
        workers,
        ...(bwrap !== undefined && bwrap !== '' ? { bwrap } : {}),
      });
    }
    const started = ctx.clock().getTime();
    const stop = o.quiet
      ? () => undefined
      : heartbeat(ctx, label, k + 1, plan.length, started, 10_000, () => ctx.clock().getTime() - lastLive < 3000);
    let raw: StepOutcome;
    try {
      raw = await step(ctx, shared, name, argv, live);
    } finally {
      stop();
    }
    const took = fmtS(ctx.clock().getTime() - started);
    const out = name === 'run' ? { ...raw, stdout: raw.stdout.replace(/^run: \[.*?\] /, 'tests ') } : raw;
    if (verbose) {
      if (out.stdout.trim()) ctx.stderr(out.stdout.replace(/^/gm, '  | '));
      if (out.stderr.trim()) ctx.stderr(out.stderr.replace(/^/gm, '  | '));
    }
    const softMiss = name === 'credit' && out.code === 'E_CREDIT_MISSING';
    if (out.exit !== 0 && !softMiss) {
      refused = out.code ?? 'E_INTERNAL';
      say(label, `${refused}: ${stepReason(out.stderr, refused) || CODE_INFO[refused].condition}`);
      break;
    }
    say(
      label,
      softMiss
        ? `E_CREDIT_MISSING: ${
            firstLine(
              out.stderr
                .split('\n')
                .filter((l) => /^credit: \d+ of /.test(l))
                .join('\n'),
            ) || 'a changed symbol lacks credit'
          } (${took})`
        : `ok  ${firstLine(out.stdout) || firstLine(out.stderr)} (${took})`,
    );
    // Why each symbol lacks credit, as the credit step says it (one line each).
    if (softMiss)
      for (const l of out.stderr.split('\n'))
        if (/^ {2}missing /.test(l)) ctx.stderr(`runner:          ${visible(l.trim())}\n`);
  }
  if (refused !== null) {
    ctx.stdout(`${refused}\n`);
    return CODE_INFO[refused].exit;
  }
  let code: DecisionCode;
  try {
    if (signingKey !== null) {
      const signed = writeRunnerAttestation(repo, signingKey, shared.policy.config, VERSION, {
        base_commit: shared.tree.baseCommit,
        tree_id: shared.tree.treeId,
        policy_digest: shared.policy.digest,
        sandbox: shared.policy.config.sandbox,
      });
      say('attest', `ok  ${signed.subjects} evidence file(s) signed by ${signed.envelope.signatures[0]?.keyid ?? '?'}`);
    }
    const audit = await auditReview({ repo, policy: shared.policy, now, tree: shared.tree });
    code = audit.code;
    const missing = audit.inputs.credit?.missing ?? [];
    const because = audit.decisive
      ? `${audit.decisive.path ? `${audit.decisive.path}: ` : ''}${audit.decisive.detail}`
      : '';
    // The default policy's flag: credited, though every reaching test passes on the base version too.
    const flagged = audit.inputs.credit ? flaggedSymbols(audit.inputs.credit) : [];
    say(
      'audit',
      `${code}${because ? `: ${because}` : ''}${missing.length > 0 ? `; missing (${missing.length}): ${missing.join(', ')}` : ''}${flagged.length > 0 ? `; flagged, revert survived or invalid (${flagged.length}): ${flagged.join(', ')}` : ''} (job ${fmtS(ctx.clock().getTime() - jobStart)})`,
    );
  } catch (err) {
    if (!(err instanceof SealgateError)) throw err;
    code = err.code;
    say('audit', `${code}: ${err.message}`);
  }
  ctx.stdout(`${code}\n`);
  return CODE_INFO[code].exit;
}

import { resolve } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { writeRunnerAttestation } from '../../attest/write.js';
import { CODE_INFO, isDecisionCode, type DecisionCode } from '../../core/codes.js';
import { readDocument } from '../../core/document.js';
import { SealgateError, usageError } from '../../core/errors.js';
import { LAYOUT, layoutPath } from '../../core/layout.js';
import { isInstant, parseInstant, type Instant } from '../../core/time.js';
import { RecordSchema } from '../../record/schema.js';
import { auditReview } from '../../verify/audit.js';
import { COMMANDS } from './index.js';
import { parseCommandArgs, parseJobOption } from '../args.js';
import type { Command, CommandContext, RunnerShared } from '../context.js';
import { policyFor } from '../policy.js';
import { buildRecordTree } from '../../tree/build.js';
import { main, VERSION } from '../main.js';
import { readSigningKey, signingKeyPath, SIGNING_KEY_ENV } from '../keys.js';

export interface StepOutcome {
  readonly step: string;
  readonly exit: number;
  /** The code the step printed, or null when it printed something else (a digest, a summary). */
  readonly code: DecisionCode | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run one sealgate command in-process, as its own CLI invocation would, capturing both streams. */
async function step(ctx: CommandContext, shared: RunnerShared, name: string, argv: readonly string[]): Promise<StepOutcome> {
  let stdout = '';
  let stderr = '';
  const exit = await main({ ...ctx, runner: shared, argv: [name, ...argv], stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, COMMANDS);
  const last = stdout.trim().split('\n').pop() ?? '';
  return { step: name, exit, code: isDecisionCode(last) ? last : null, stdout, stderr };
}

const firstLine = (s: string): string => s.trim().split('\n')[0] ?? '';

export const command: Command = {
  usage: `Usage: sealgate runner --runner-job R [--repo DIR] [--policy FILE] [--seed S] [--now T] [--signing-key FILE] [--verbose]

The runner job in one command. It first builds its own tree from the record's base_commit
and patch (a temporary git index: read-tree, apply --cached once, write-tree, checkout-
index into a fresh folder) and reads the policy at base_commit; the work tree and the
index are never read or changed, so it does not matter whether the patch is applied,
committed or absent there. Then, in the spec's order, a line per step on stderr:
  symbols   sealgate symbols on the record's base and patch: review/runner/changed.json;
            first, so a patch that touches the policy surface (E_POLICY_CHANGED) never runs
  seal      sealgate seal (fixtures, clock, locale from the policy; seed from
            --seed or $SEED); resealing identical bytes changes nothing
  verify    sealgate seal --verify: the digest recomputed right before the tests
  run       sealgate run: the tests on the sealed digest, in a fresh copy of the tree
  credit    sealgate credit: the mutation oracle; cases.json and credit.json
  publish   sealgate publish: the logs become readable, after the seal only
  attest    sealgate attest: with a signing key, every evidence file and the predicate
            signed into review/runner/attestation.dsse.json (docs/attest.md)
then the full audit (sealgate verify) on the files it wrote, whose code is printed on
stdout. A step that refuses stops the job and its code is the result; missing credit
(E_CREDIT_MISSING) is a result, not a refusal, so the logs are still published.
Each step stays available as its own command.

  --runner-job R  the record's runner job
  --repo DIR      the repository holding the record and the patch (default: .)
  --policy FILE   a sealgate config outside the repository (default: the one at base_commit)
  --seed S        the seed to seal (default: $SEED)
  --now T         the clock for the closing audit (default: the current time)
  --signing-key FILE  the runner's Ed25519 private key (default: the file $${SIGNING_KEY_ENV}
                  names). Read before any test runs; the variable is removed from every
                  child's environment. Required when the config has a trust section.
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
      verbose: { type: 'boolean' },
      'signing-key': { type: 'string' },
    });
    const runner = parseJobOption(values['runner-job'], 'runner-job');
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const nowText = values.now ?? ctx.clock().toISOString();
    const now = parseInstant(nowText);
    if (!isInstant(now)) throw usageError(`--now: ${now.problem}`);
    // The key is read before anything runs, and its variable leaves the steps' environment.
    const keyPath = signingKeyPath(values['signing-key'], ctx.env);
    const signingKey: KeyObject | null = keyPath === null ? null : readSigningKey(resolve(ctx.cwd, keyPath)).key;
    const env = Object.fromEntries(Object.entries(ctx.env).filter(([k]) => k !== SIGNING_KEY_ENV));
    const inner: CommandContext = { ...ctx, env };
    const record = readDocument(layoutPath(repo, 'record'), RecordSchema, 'json', LAYOUT.record);
    const say = (label: string, text: string): void => ctx.stderr(`runner: ${label.padEnd(8)} ${text}\n`);
    let shared: RunnerShared;
    try {
      const policy = policyFor(ctx, repo, values.policy, record.base_commit ?? null);
      if (signingKey === null && policy.config.trust !== undefined) throw usageError('the policy trusts runner keys (trust.runnerKeys): give --signing-key FILE so the evidence is signed');
      const t0 = performance.now();
      const tree = buildRecordTree(repo);
      shared = { tree, policy };
      say('tree', `ok  ${tree.treeId} = base ${tree.baseCommit} + ${record.patch_path} (sha256 ${tree.patchSha256}), built in ${Math.round(performance.now() - t0)} ms`);
      say('policy', `ok  ${policy.digest} (${policy.source}); test command ${JSON.stringify(policy.config.test.command ?? null)}`);
    } catch (err) {
      if (!(err instanceof SealgateError)) throw err;
      say('tree', `${err.code}: ${err.message}`);
      ctx.stdout(`${err.code}\n`);
      return CODE_INFO[err.code].exit;
    }
    try {
      return await runSteps(inner, shared, repo, runner, values.seed, now, values.verbose === true, say, signingKey);
    } finally {
      shared.tree.dispose();
    }
  },
};

async function runSteps(ctx: CommandContext, shared: RunnerShared, repo: string, runner: string, seed: string | undefined, now: Instant, verbose: boolean, say: (label: string, text: string) => void, signingKey: KeyObject | null): Promise<number> {
    const job = ['--runner-job', runner, '--repo', repo];
    const plan: [string, string, string[]][] = [
      ['symbols', 'symbols', ['--repo', repo]],
      ['seal', 'seal', [...job, ...(seed !== undefined ? ['--seed', seed] : [])]],
      ['verify', 'seal', ['--verify', '--repo', repo]],
      ['run', 'run', job],
      ['credit', 'credit', job],
      ['publish', 'publish', job],
    ];
    let refused: DecisionCode | null = null;
    for (const [label, name, argv] of plan) {
      const raw = await step(ctx, shared, name, argv);
      const out = name === 'run' ? { ...raw, stdout: raw.stdout.replace(/^run: \[.*?\] /, 'tests ') } : raw;
      if (verbose) {
        if (out.stdout.trim()) ctx.stderr(out.stdout.replace(/^/gm, '  | '));
        if (out.stderr.trim()) ctx.stderr(out.stderr.replace(/^/gm, '  | '));
      }
      const softMiss = name === 'credit' && out.code === 'E_CREDIT_MISSING';
      if (out.exit !== 0 && !softMiss) {
        refused = out.code ?? 'E_INTERNAL';
        say(label, `${refused}: ${firstLine(out.stderr.replace(/^sealgate: /gm, '')) || CODE_INFO[refused].condition}`);
        break;
      }
      say(label, softMiss ? `E_CREDIT_MISSING: ${firstLine(out.stderr.split('\n').filter((l) => l.includes('missing')).join('\n')) || 'a changed symbol lacks credit'}` : `ok  ${firstLine(out.stdout) || firstLine(out.stderr)}`);
    }
    if (refused !== null) {
      ctx.stdout(`${refused}\n`);
      return CODE_INFO[refused].exit;
    }
    let code: DecisionCode;
    try {
      if (signingKey !== null) {
        const signed = writeRunnerAttestation(repo, signingKey, shared.policy.config, VERSION, { base_commit: shared.tree.baseCommit, tree_id: shared.tree.treeId, policy_digest: shared.policy.digest, sandbox: shared.policy.config.sandbox });
        say('attest', `ok  ${signed.subjects} evidence file(s) signed by ${signed.envelope.signatures[0]?.keyid ?? '?'}`);
      }
      const audit = await auditReview({ repo, policy: shared.policy, now, tree: shared.tree });
      code = audit.code;
      say('audit', `${code}${audit.decisive ? `: ${audit.decisive.path ? `${audit.decisive.path}: ` : ''}${audit.decisive.detail}` : ''}`);
    } catch (err) {
      if (!(err instanceof SealgateError)) throw err;
      code = err.code;
      say('audit', `${code}: ${err.message}`);
    }
    ctx.stdout(`${code}\n`);
    return CODE_INFO[code].exit;
}

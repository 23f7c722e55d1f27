import { resolve } from 'node:path';
import { CODE_INFO } from '../../core/codes.js';
import { readDocument } from '../../core/document.js';
import { usageError } from '../../core/errors.js';
import { DIGEST_PATTERN } from '../../core/ids.js';
import { writeFileAtomic } from '../../core/io.js';
import { toJsonText } from '../../core/json.js';
import { LAYOUT } from '../../core/layout.js';
import { propertyCredit, toCreditId } from '../../credit/score/rule.js';
import { CaseFileSchema } from '../../credit/schema.js';
import type { Progress } from '../../credit/oracle/types.js';
import type { ScoreOutcome } from '../../credit/step/credit-step.js';
import { bwrapOverride } from '../../sandbox/host.js';
import { parseCommandArgs, parseJobOption, requireOption } from '../args.js';
import type { Command, CommandContext } from '../context.js';
import { policyFor, recordBase, treeFor } from '../policy.js';
import { formatDuration } from '../report.js';
import { readSealParams } from '../../seal/seal.js';

/** Progress on stderr: a live line on a terminal, a plain line every few seconds otherwise. */
export function progressPrinter(ctx: Pick<CommandContext, 'stderr' | 'isTTY'>, everyMs = 5000): (p: Progress) => void {
  let lastPrinted = -Infinity;
  let lastPhase = '';
  return (p) => {
    const line = `credit: ${p.phase} ${p.done}/${p.total} runs, ${p.kills} killed, ${formatDuration(p.elapsedMs)} elapsed${p.etaMs !== null && p.phase !== 'done' ? `, ~${formatDuration(p.etaMs)} left` : ''}`;
    if (ctx.isTTY) {
      ctx.stderr(`\r\x1b[2K${line}${p.phase === 'done' ? '\n' : ''}`);
      return;
    }
    if (p.phase === 'done' || p.phase !== lastPhase || p.elapsedMs - lastPrinted >= everyMs) {
      ctx.stderr(`${line}\n`);
      lastPrinted = p.elapsedMs;
      lastPhase = p.phase;
    }
  };
}

export const command: Command = {
  usage: `Usage: sealgate credit --runner-job J [--repo DIR] [--policy FILE] [--workers N] [--cache DIR | --no-cache] [--json]
       sealgate credit --cases FILE --digest D [--out FILE]

Runner: score property credit on the sealed digest. Reads the record, review/runner/
{changed.json,results.json} and the patch; refuses unless the digest is sealed and still
matches (drift reopens the seal) and J is the record's runner, not its author. Classifies
every test statically (tautologies earn nothing), then runs a mutation oracle per changed
symbol in fresh copies of the runner's tree (base_commit + the record's patch; the
classifier reads the pristine tree, never one a test ran in): a probe finds the tests that
reach the symbol (or the trace, where it names each reaching pytest test); its revert (the base version put back), one null mutant (bytes changed,
behaviour kept) and behavioural mutants on the tokens the patch changed (chosen from the
sealed seed, credit.mutantBudget per symbol) find which of them notice the change; the
control runs again after them. A test failing a control or the null mutant earns nothing.
The null mutant's words come from a secret no test sees (noise.key in the cache folder; a
fresh one per process with --no-cache), and every real mutant carries the same changes.
credit.require "revert" credits a modified symbol only by a kill of its revert (its
behavioural mutants then do not run). Every control, trace, probe and mutant run gets a
fresh copy of the tree at /sealgate/work inside the bubblewrap sandbox, as \`sealgate run\`
does (E_SANDBOX_UNAVAILABLE where it cannot be had, unless the policy says sandbox "none";
SEALGATE_BWRAP names another bwrap program).
Writes review/runner/cases.json and credit.json, both recording the isolation used.

With --cases: apply the spec's property_credit rule to a case file from another runner
(cases on another digest or not passed are ignored, tautologies earn nothing) and print
the credit (or write it to --out).

  --runner-job J  the record's runner job
  --repo DIR      the repository (default: .)
  --policy FILE   a sealgate config outside the repository (default: the one at base_commit)
  --workers N     parallel mutant runs (default: the number of cores)
  --cache DIR     mutant result cache and noise key (default: $XDG_CACHE_HOME/sealgate/credit)
  --no-cache      neither read nor write the cache
  --json          also print a JSON summary (credit id, pass, counts) on stderr
  --cases FILE    a case file: {"changed": [...], "cases": [{id, digest, kind, status, symbols}]}
  --digest D      the sealed digest the cases must carry (with --cases)
  --out FILE      where to write the credit (with --cases; default: stdout)

Prints PASS, or E_CREDIT_MISSING when a changed symbol has no credit; progress and the
missing symbols' reasons go to stderr.
Exit: 0 PASS, 1 E_CREDIT_MISSING or a refusal (its code on stdout), 2 bad arguments.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      'runner-job': { type: 'string' },
      repo: { type: 'string' },
      policy: { type: 'string' },
      workers: { type: 'string' },
      cache: { type: 'string' },
      'no-cache': { type: 'boolean' },
      cases: { type: 'string' },
      digest: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (values.cases !== undefined) {
      if (values['runner-job'] !== undefined)
        throw usageError('--cases and --runner-job are two different modes; give one');
      const digest = requireOption(values.digest, 'digest');
      if (!DIGEST_PATTERN.test(digest)) throw usageError('--digest: digests are 6-128 lowercase hex digits');
      const path = resolve(ctx.cwd, requireOption(values.cases, 'cases'));
      const file = readDocument(path, CaseFileSchema, 'json', values.cases);
      const body = propertyCredit('pending', file.changed, file.cases, digest, file.uncreditable ?? []);
      const { credit_id: _pending, ...rest } = body;
      const credit = {
        ...body,
        credit_id: toCreditId({ ...rest, changed: file.changed, uncreditable: file.uncreditable ?? [] }),
      };
      const text = toJsonText({
        ...credit,
        changed: file.changed,
        ...(file.uncreditable ? { uncreditable: file.uncreditable } : {}),
      });
      if (values.out !== undefined) {
        writeFileAtomic(resolve(ctx.cwd, values.out), text);
        ctx.stdout(credit.pass ? 'PASS\n' : 'E_CREDIT_MISSING\n');
      } else ctx.stdout(text);
      if (!credit.pass)
        ctx.stderr(
          `sealgate credit: missing: ${credit.missing.join(', ') || '(none)'}${(file.uncreditable ?? []).length > 0 ? `; uncreditable: ${(file.uncreditable ?? []).join(', ')}` : ''}${file.changed.length === 0 ? '; no changed symbol' : ''}\n`,
        );
      return credit.pass ? 0 : CODE_INFO.E_CREDIT_MISSING.exit;
    }
    if (values.digest !== undefined || values.out !== undefined) throw usageError('--digest and --out go with --cases');
    const runnerJob = parseJobOption(values['runner-job'], 'runner-job');
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    let workers: number | undefined;
    if (values.workers !== undefined) {
      if (!/^[1-9][0-9]{0,2}$/.test(values.workers)) throw usageError('--workers: a whole number from 1 to 999');
      workers = Number(values.workers);
    }
    if (values.cache !== undefined && values['no-cache'])
      throw usageError('--cache and --no-cache contradict each other');
    const recordRel = readSealParams(repo)?.record;
    const policy = policyFor(ctx, repo, values.policy, recordBase(repo, recordRel));
    const { scoreCredit } = await import('../../credit/step/credit-step.js');
    const cacheDir = values['no-cache']
      ? null
      : values.cache !== undefined
        ? resolve(ctx.cwd, values.cache)
        : undefined;
    const tree = treeFor(repo, recordRel, false);
    let out;
    try {
      const bwrap = bwrapOverride(ctx.env);
      out = await scoreCredit({
        repo,
        runnerJob,
        config: policy.config,
        policy,
        tree,
        env: ctx.env,
        ...(cacheDir !== undefined ? { cacheDir } : {}),
        ...(workers !== undefined ? { workers } : {}),
        progress: progressPrinter(ctx),
        now: ctx.clock(),
        prelude: null,
        ...(bwrap !== undefined ? { bwrap } : {}),
      });
    } finally {
      tree.dispose();
    }
    const c = out.credit;
    ctx.stderr(formatCreditReport(out));
    if (values.json)
      ctx.stderr(
        toJsonText({
          credit_id: c.credit_id,
          pass: c.pass,
          credited: c.credited,
          missing: c.missing,
          stats: out.stats,
        }),
      );
    ctx.stdout(c.pass ? 'PASS\n' : 'E_CREDIT_MISSING\n');
    return c.pass ? 0 : CODE_INFO.E_CREDIT_MISSING.exit;
  },
};

/** The first line of the credit step's report: how many changed symbols were credited, and how. */
export function formatCreditSummary(out: ScoreOutcome): string {
  const c = out.credit;
  const s = out.stats;
  return `credit: ${c.credited.length} of ${c.changed?.length ?? 0} changed symbol(s) credited; ${s.mutantsRun} mutant run(s), ${s.mutantsCached} from cache, ${s.mutantsSettled} not needed (credit settled)${s.mutantsAhead > 0 ? `, ${s.mutantsAhead} run ahead and not needed` : ''}, ${s.kills} behavioural kill(s), ${formatDuration(s.wallMs)}; ${c.sandbox === 'none' ? 'UNSANDBOXED (policy sandbox "none")' : 'sandboxed (bubblewrap)'}; wrote ${LAYOUT.cases} and ${LAYOUT.credit} (${c.credit_id})`;
}

/** Why a symbol lacks credit, one line each, as the credit step says it (indented under its report). */
export function missingLines(out: ScoreOutcome): string[] {
  const c = out.credit;
  return c.missing.map((m) => `  missing ${m}: ${c.evidence?.[m]?.reason ?? ''}`);
}

/** The report `sealgate credit` prints on stderr after its runs. */
export function formatCreditReport(out: ScoreOutcome): string {
  const c = out.credit;
  const s = out.stats;
  const lines = [formatCreditSummary(out)];
  if (s.typeCheckStalled !== null) lines.push(`credit: ${s.typeCheckStalled}`);
  const bc = s.bytecode;
  if (bc)
    lines.push(
      bc.skipped === null
        ? `credit: byte code for the Python files no run changes was made before the runs (${bc.files} file(s), ${bc.rewritten} of them pytest's rewritten test modules); every run found the same, none for a changed file`
        : `credit: no byte code was made before the runs: ${bc.skipped}`,
    );
  if (s.ahead === 'used')
    lines.push(
      'credit: the first round of runs (the control, with the trace or the probes) ran beside the sealed run (sealgate runner), made as the credit step makes them',
    );
  if (s.ahead === 'ended')
    lines.push(
      'credit: the control and the trace started beside the sealed run were made from other inputs than this step uses, so they were ended and made again',
    );
  const fe = s.fastEnvDetail;
  if (s.fastEnv === 'kept' && fe)
    lines.push(
      `credit: in the credit runs ${fe.skips} (${fe.vars.join(', ')}): the first control passed every test the sealed run passed`,
    );
  if (s.fastEnv === 'dropped' && fe)
    lines.push(
      `credit: with ${fe.vars.join(', ')} (where ${fe.skips}) the first control failed a test the sealed run passed, so every credit run went without it, as the sealed run did`,
    );
  lines.push(...missingLines(out));
  if ((c.uncreditable ?? []).length > 0) lines.push(`  uncreditable files: ${(c.uncreditable ?? []).join(', ')}`);
  return lines.map((l) => `${l}\n`).join('');
}

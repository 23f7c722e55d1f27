import { resolve } from 'node:path';
import { CODE_INFO } from '../../core/codes.js';
import { decide } from '../../gate/decide.js';
import { readGateInputs } from '../../gate/read.js';
import { explainDecision } from '../../report/explain.js';
import { parseCommandArgs, parseNowOption, requireOption } from '../args.js';
import type { Command } from '../context.js';
import { policyFor, recordBase } from '../policy.js';
import { formatJson, formatReasons } from '../report.js';

export const command: Command = {
  usage: `Usage: sealgate gate --record R --credit C [--freeze F] [--results FILE] --now T [--repo DIR] [--policy FILE] [--explain | --json]

Decides one proposal and prints exactly one code on stdout: ALLOW or a reject code.

  --record R     the proposal record (JSON, or YAML by .yaml/.yml extension)
  --credit C     the runner's credit file (JSON); a missing file is E_CREDIT_MISSING
  --freeze F     a flake freeze (JSON), optional
  --results FILE the sealed run's results.json, bound by the credit's results_sha256
                 (default: results.json beside the credit file); ALLOW needs every case
                 passed or skipped but the one a freeze waives
  --now T        the review clock, RFC 3339 with an offset, e.g. 2026-10-12T12:00:00Z
  --repo DIR     the repository the record's patch_path is inside (default: .)
  --policy FILE  a sealgate config outside --repo (default: sealgate.config.json|yaml|yml
                 at the record's base_commit in --repo; a record without base_commit is
                 classified with the defaults and never allowed: E_CREDIT_UNBOUND)
  --explain      a full human account on stderr
  --json         a machine-readable account on stderr

Exit: 0 ALLOW, 1 reject, 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      record: { type: 'string' },
      credit: { type: 'string' },
      freeze: { type: 'string' },
      results: { type: 'string' },
      now: { type: 'string' },
      repo: { type: 'string' },
      policy: { type: 'string' },
      explain: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const now = parseNowOption(values.now);
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const record = resolve(ctx.cwd, requireOption(values.record, 'record'));
    // The base side of mixed policy files (package.json, pyproject.toml) is the record's base commit.
    const base = recordBase(repo, record);
    const paths = {
      record,
      credit: resolve(ctx.cwd, requireOption(values.credit, 'credit')),
      freeze: values.freeze === undefined ? undefined : resolve(ctx.cwd, requireOption(values.freeze, 'freeze')),
      repo,
      ...(values.results === undefined ? {} : { results: resolve(ctx.cwd, requireOption(values.results, 'results')) }),
      ...(base === null ? {} : { base }),
    };
    const policy = policyFor(ctx, repo, values.policy, base);
    const inputs = readGateInputs(paths, policy.config, now);
    const decision = decide(inputs);
    ctx.stdout(`${decision.code}\n`);
    if (values.json) ctx.stderr(formatJson(decision.code, decision.findings, { now: now.text }));
    else if (values.explain) ctx.stderr(explainDecision(inputs, decision));
    else if (decision.code !== 'ALLOW') ctx.stderr(formatReasons(decision.code, decision.decisive ? [decision.decisive] : []));
    return CODE_INFO[decision.code].exit;
  },
};

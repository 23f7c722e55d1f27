import { resolve } from 'node:path';
import { readConfig } from '../../config/read.js';
import { CODE_INFO } from '../../core/codes.js';
import { decide } from '../../gate/decide.js';
import { readGateInputs } from '../../gate/read.js';
import { explainDecision } from '../../report/explain.js';
import { parseCommandArgs, parseNowOption, requireOption } from '../args.js';
import type { Command } from '../context.js';
import { formatJson, formatReasons } from '../report.js';

export const command: Command = {
  usage: `Usage: sealgate gate --record R --credit C [--freeze F] [--results FILE] --now T [--repo DIR] [--base REV] [--config FILE] [--explain | --json]

Decides one proposal and prints exactly one code on stdout: ALLOW or a reject code.

  --record R     the proposal record (JSON, or YAML by .yaml/.yml extension)
  --credit C     the runner's credit file (JSON); a missing file is E_CREDIT_MISSING
  --freeze F     a flake freeze (JSON), optional
  --results FILE the sealed run's results.json, bound by the credit's results_sha256
                 (default: results.json beside the credit file); ALLOW needs every case
                 passed or skipped but the one a freeze waives
  --now T        the review clock, RFC 3339 with an offset, e.g. 2026-10-12T12:00:00Z
  --repo DIR     the repository the record's patch_path is inside (default: .)
  --base REV     the commit the patch applies to, read for the test sections of a changed
                 package.json, pyproject.toml or setup.cfg (default: HEAD of --repo)
  --config FILE  a sealgate config (default: sealgate.config.json|yaml in --repo)
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
      base: { type: 'string' },
      now: { type: 'string' },
      repo: { type: 'string' },
      config: { type: 'string' },
      explain: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const now = parseNowOption(values.now);
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const paths = {
      record: resolve(ctx.cwd, requireOption(values.record, 'record')),
      credit: resolve(ctx.cwd, requireOption(values.credit, 'credit')),
      freeze: values.freeze === undefined ? undefined : resolve(ctx.cwd, requireOption(values.freeze, 'freeze')),
      repo,
      ...(values.results === undefined ? {} : { results: resolve(ctx.cwd, requireOption(values.results, 'results')) }),
      ...(values.base === undefined ? {} : { base: requireOption(values.base, 'base') }),
    };
    const config = readConfig(repo, values.config === undefined ? undefined : resolve(ctx.cwd, values.config));
    const inputs = readGateInputs(paths, config, now);
    const decision = decide(inputs);
    ctx.stdout(`${decision.code}\n`);
    if (values.json) ctx.stderr(formatJson(decision.code, decision.findings, { now: now.text }));
    else if (values.explain) ctx.stderr(explainDecision(inputs, decision));
    else if (decision.code !== 'ALLOW') ctx.stderr(formatReasons(decision.code, decision.decisive ? [decision.decisive] : []));
    return CODE_INFO[decision.code].exit;
  },
};

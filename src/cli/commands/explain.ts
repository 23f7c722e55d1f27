import { resolve } from 'node:path';
import { CODE_INFO } from '../../core/codes.js';
import { usageError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/io.js';
import { toJsonText } from '../../core/json.js';
import { jsonVisible } from '../../core/text.js';
import { isInstant, parseInstant } from '../../core/time.js';
import { toHtmlReport } from '../../report/html.js';
import { toMarkdownReport } from '../../report/md.js';
import { toReviewReport } from '../../report/model.js';
import { toTextReport } from '../../report/text.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../context.js';
import { auditWithBase, repoFromReviewOption } from './verify.js';

const FORMATS = ['text', 'md', 'html', 'json'] as const;

export const command: Command = {
  usage: `Usage: sealgate explain [--format text|md|html|json] [--out FILE] [--review DIR | --repo DIR] [--now T] [--policy FILE]
                       [--expect-base SHA]

The reviewer's report, from the files alone: the decision (the same audit as verify)
with the merge-table row that produced it, then the spec's four questions:
  1. which job wrote the patch,
  2. which job wrote digest.status,
  3. which changed symbols have non-tautological credit on that digest, with the tests
     and mutants behind each (and what is missing, moved, deleted, tautological),
  4. whether a freeze cites that digest, a passing credit id, a different test and a
     future expiry, field by field.

  --format F     text (default, for a terminal), md (for a CI job summary), html
                 (one self-contained page: no script, no external request; long
                 lists collapsed), or json (the whole report: every test, mutant
                 and finding). text and md are concise: per symbol the decisive
                 mutant and test, the number of reaching tests and at most 3 names
  --out FILE     write the report there instead of stdout; stdout then gets the decision
                 code (like verify) and stderr the path
  --review DIR   the review folder (default: ./review); the repository is its parent
  --repo DIR     the repository instead (default: .)
  --now T        the review clock (default: the current time)
  --policy FILE  a sealgate config outside the repository (default: sealgate.config.
                 json|yaml|yml at the record's base_commit); must be the sealed policy
  --expect-base SHA  the full commit id the evidence must be made on (as verify)

Exit: the decision's status (0 ALLOW, 1 reject), 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      format: { type: 'string' },
      out: { type: 'string' },
      review: { type: 'string' },
      repo: { type: 'string' },
      now: { type: 'string' },
      policy: { type: 'string' },
      'expect-base': { type: 'string' },
    });
    const format = values.format ?? 'text';
    if (!(FORMATS as readonly string[]).includes(format))
      throw usageError(`--format: "${format}" is not one of ${FORMATS.join(', ')}`);
    const nowText = values.now ?? ctx.clock().toISOString();
    const now = parseInstant(nowText);
    if (!isInstant(now)) throw usageError(`--now: ${now.problem}`);
    const repo = repoFromReviewOption(ctx.cwd, values.review, values.repo);
    const report = toReviewReport((await auditWithBase(ctx, repo, values.policy, now, values['expect-base'])).audit);
    const text =
      format === 'json'
        ? jsonVisible(toJsonText(report))
        : format === 'html'
          ? toHtmlReport(report)
          : format === 'md'
            ? toMarkdownReport(report)
            : toTextReport(report);
    if (values.out !== undefined) {
      const out = resolve(ctx.cwd, values.out);
      writeFileAtomic(out, text);
      ctx.stdout(`${report.decision.code}\n`);
      ctx.stderr(`explain: wrote ${out}\n`);
    } else ctx.stdout(text);
    return CODE_INFO[report.decision.code].exit;
  },
};

import { resolve } from 'node:path';
import { usageError } from '../../core/errors.js';
import { LAYOUT } from '../../core/layout.js';
import { readPublishedLog, readPublishedLogs } from '../../runner/logs.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../context.js';

const MAX_SHOW_BYTES = 256 * 1024 * 1024;

export const command: Command = {
  usage: `Usage: sealgate logs [--repo DIR] [NAME]

The author job's reader (spec section 3). Refuses before publication: E_DIGEST_OPEN when
the digest is not sealed, E_LOGS_EARLY while the record's log_visibility is not
"published" (the runner's \`sealgate publish\`). After publication it lists the files in
${LAYOUT.publishedLogs}/ (name and size), or prints the one named. Where the journal is
readable it also checks that the published files are the ones the journal published.

  --repo DIR   the repository root (default: .)
  NAME         a file name from the list (e.g. stdout.log)

Exit: 0 shown, 1 a reject code, 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values, positionals } = parseCommandArgs(ctx.argv, { repo: { type: 'string' } }, true);
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const [name, ...extra] = positionals;
    if (extra.length > 0) throw usageError('give at most one log name');
    if (name === undefined) {
      const { files } = await readPublishedLogs(repo);
      ctx.stdout(files.map((f) => `${f.name}\t${f.bytes}\n`).join(''));
      return 0;
    }
    ctx.stdout((await readPublishedLog(repo, name, MAX_SHOW_BYTES)).toString('utf8'));
    return 0;
  },
};

import { resolve } from 'node:path';
import { LAYOUT } from '../../core/layout.js';
import { discardLogs } from '../../runner/logs.js';
import { parseCommandArgs, parseJobOption } from '../args.js';
import type { Command } from '../context.js';

export const command: Command = {
  usage: `Usage: sealgate discard-logs --runner-job J [--repo DIR]

The spec's "Discard logs", the next step after E_LOGS_EARLY: removes the hidden store
${LAYOUT.logs}/, the published copy ${LAYOUT.publishedLogs}/ and ${LAYOUT.results}, journals a
discard event, and sets the record's log fields from what is left (no logs). Refused for
the author job (E_SHARED_JOB) and for a job the record does not name as its runner.

  --runner-job J   the runner job (required)
  --repo DIR       the repository root (default: .)

Exit: 0 discarded, 1 a reject code, 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, { 'runner-job': { type: 'string' }, repo: { type: 'string' } });
    const runnerJob = parseJobOption(values['runner-job'], 'runner-job');
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const { files, journaled } = await discardLogs(repo, runnerJob, ctx.clock);
    ctx.stdout(
      `discarded ${files.length} log file(s)${files.length > 0 ? `: ${files.join(', ')}` : ''}${journaled ? '' : ' (no digest known, so no journal event)'}\n`,
    );
    return 0;
  },
};

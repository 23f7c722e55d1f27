import { resolve } from 'node:path';
import { LAYOUT } from '../../core/layout.js';
import { publishLogs } from '../../runner/logs.js';
import { parseCommandArgs, parseJobOption } from '../args.js';
import type { Command } from '../context.js';
import { readSealParams } from '../../seal/seal.js';
import { policyFor, recordBase } from '../policy.js';

export const command: Command = {
  usage: `Usage: sealgate publish --runner-job J [--repo DIR] [--policy FILE]

The runner makes its logs readable (spec section 3). Only when the record names J as its
runner job, the digest is sealed and still matches the bytes, and every file in the
hidden store ${LAYOUT.logs}/ was written by a run after the current seal (as the journal
says). Then: a publish event is journaled, the logs are copied to ${LAYOUT.publishedLogs}/
(0755; files 0644), ${LAYOUT.results} becomes readable, and the record gets
log_visibility: published. Otherwise it refuses with the code (E_LOGS_EARLY for logs not
written after the seal, E_DIGEST_OPEN for an open or drifted seal).

  --runner-job J   the runner job (required)
  --repo DIR       the repository root (default: .)
  --policy FILE    a sealgate config outside the repository (default: the one at base_commit)

Exit: 0 published, 1 a reject code, 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      'runner-job': { type: 'string' },
      repo: { type: 'string' },
      policy: { type: 'string' },
    });
    const runnerJob = parseJobOption(values['runner-job'], 'runner-job');
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const policy = policyFor(ctx, repo, values.policy, recordBase(repo, readSealParams(repo)?.record));
    const { files } = await publishLogs(repo, runnerJob, ctx.clock, { policy });
    ctx.stdout(formatPublished(files));
    return 0;
  },
};

/** What `sealgate publish` prints on stdout. */
export function formatPublished(files: readonly { readonly name: string }[]): string {
  return `published ${files.length} log file(s) to ${LAYOUT.publishedLogs}/: ${files.map((f) => f.name).join(', ')}\n`;
}

import { relative, resolve, sep } from 'node:path';
import { SealgateError, usageError } from '../../core/errors.js';
import { readDocument } from '../../core/document.js';
import { fileExists } from '../../core/io.js';
import { layoutPath, LAYOUT } from '../../core/layout.js';
import { formatInstant } from '../../core/time.js';
import { readRepoRoot, resolveCommit } from '../../diff/git.js';
import { RecordSchema } from '../../record/schema.js';
import {
  checkProposal,
  newProposalId,
  PROPOSAL_ID_PATTERN,
  readLedger,
  readPatchForProposal,
  writeProposal,
} from '../../record/propose.js';
import { parseCommandArgs, parseJobOption, requireOption } from '../args.js';
import type { Command } from '../context.js';

export const command: Command = {
  usage: `Usage: sealgate propose --author-job A --runner-job R --patch P [--base REV] [--proposal-id ID] [--repo DIR]

The author's step: records a proposal in review/proposal.json before any test runs, with
both job ids, the patch path and its SHA-256, the base commit the patch applies to, and
digest_status "open". Prints the proposal id on stdout. The runner builds its own tree
from that base and this patch, and reads the policy at that base.

  --author-job A     the job that wrote the patch
  --runner-job R     the job that will seal, run and score it (must differ from A)
  --patch P          the git patch, inside the repository (e.g. patches/014.diff)
  --base REV         the commit the patch applies to (default: HEAD), recorded as a
                     full commit id; a revision git cannot resolve is E_INPUT_INVALID
  --proposal-id ID   default: a new id, p-<date>-<random>
  --repo DIR         the repository (default: .)

A proposal id is bound to its patch bytes: the same id with other bytes is refused
(a follow-up edit needs a new proposal id). The same id and bytes with a new runner
job records a rerun; the record starts open again.

Exit: 0 recorded, 1 refused (E_SHARED_JOB, E_INPUT_INVALID), 2 bad arguments.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      'author-job': { type: 'string' },
      'runner-job': { type: 'string' },
      patch: { type: 'string' },
      base: { type: 'string' },
      'proposal-id': { type: 'string' },
      repo: { type: 'string' },
    });
    const author = parseJobOption(values['author-job'], 'author-job');
    const runner = parseJobOption(values['runner-job'], 'runner-job');
    const patchArg = requireOption(values.patch, 'patch');
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const now = ctx.clock();
    const id = values['proposal-id'] ?? newProposalId(now);
    if (!PROPOSAL_ID_PATTERN.test(id))
      throw usageError(
        `--proposal-id: "${id}" is not a proposal id (letters, digits and ._:@-, no whitespace or slashes)`,
      );
    const patch = readPatchForProposal(repo, relative(repo, resolve(ctx.cwd, patchArg)).split(sep).join('/'));
    const baseCommit = resolveCommit(readRepoRoot(repo), values.base ?? 'HEAD');
    const ledger = readLedger(repo);
    const recordPath = layoutPath(repo, 'record');
    const current = fileExists(recordPath) ? readDocument(recordPath, RecordSchema, 'json', LAYOUT.record) : null;
    const outcome = checkProposal(
      {
        proposalId: id,
        authorJob: author,
        runnerJob: runner,
        patchPath: patch.relPath,
        patchSha256: patch.sha256,
        baseCommit,
        at: formatInstant(now),
      },
      ledger,
      current,
    );
    if (!outcome.ok) throw new SealgateError(outcome.findings[0]?.code ?? 'E_INPUT_INVALID', outcome.findings);
    writeProposal(repo, outcome.value);
    ctx.stdout(`${id}\n`);
    const what =
      outcome.value.kind === 'new'
        ? 'recorded'
        : outcome.value.kind === 'rerun'
          ? 'recorded a rerun of'
          : 'already recorded';
    ctx.stderr(
      `propose: ${what} ${id}: author ${author}, runner ${runner}, ${patch.relPath} (sha256 ${patch.sha256}), base ${baseCommit}, digest open\n`,
    );
    return 0;
  },
};

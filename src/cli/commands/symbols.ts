import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { toJsonText } from '../../core/json.js';
import { readBoundedFile } from '../../core/io.js';
import { LAYOUT } from '../../core/layout.js';
import { readRepoRoot, resolveCommit } from '../../diff/git.js';
import { usageError } from '../../core/errors.js';
import { readPolicy } from '../../policy/read.js';
import { readSealParams } from '../../seal/seal.js';
import { policyFor, recordBase, treeFor } from '../policy.js';
import { extractChanged } from '../../symbols/extract.js';
import type { Changed } from '../../symbols/schema.js';
import { extractRecordSymbols, MAX_PATCH_BYTES, writeChangedFile } from '../../symbols/step.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../context.js';

export const command: Command = {
  usage: `Usage: sealgate symbols [--repo DIR] [--out FILE] [--policy FILE]
       sealgate symbols --patch P [--base REV] [--repo DIR] [--out FILE] [--policy FILE]

Lists the files and production symbols a git patch changes, and writes changed.json.
The patch is applied to the base in a temporary index; the work tree, the index and
the object database are left alone. A patch that does not apply exactly is refused.

Without --patch (the runner's step): the record's patch (checked against patch_sha256)
on the record's base_commit; the runner's tree is built from them and, once sealed, its
tree id must be the sealed one (else E_DIGEST_OPEN).

  --patch P      another patch (git diff or git format-patch output), as a tool
  --base REV     with --patch: the commit it applies to (default: HEAD)
  --repo DIR     the repository (default: .)
  --out FILE     where to write changed.json (default: ${LAYOUT.changed} in the
                 repository); "-" prints it on stdout
  --policy FILE  a sealgate config outside the repository (default: the one at the base)

Prints a one-line summary on stderr. Exit: 0 written, 1 E_INPUT_INVALID (bad or
non-applying patch), 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      patch: { type: 'string' },
      repo: { type: 'string' },
      base: { type: 'string' },
      out: { type: 'string' },
      policy: { type: 'string' },
    });
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const root = readRepoRoot(repo);
    let changed: Changed;
    if (values.patch !== undefined) {
      const patchBytes = readBoundedFile(resolve(ctx.cwd, values.patch), MAX_PATCH_BYTES, values.patch);
      const base = resolveCommit(root, values.base ?? 'HEAD');
      const policy =
        values.policy !== undefined
          ? policyFor(ctx, root, values.policy, base)
          : readPolicy({ repo: root, baseCommit: base });
      changed = await extractChanged({
        repo: root,
        patchBytes,
        base,
        config: policy.config,
        label: values.patch,
        // This thread and, given a second core, one worker thread (see docs/symbols.md, Performance).
        workers: Math.min(2, availableParallelism()),
      });
    } else {
      if (values.base !== undefined)
        throw usageError("--base goes with --patch; the runner step uses the record's base_commit");
      const params = readSealParams(root);
      const recordRel = params?.record;
      const policy = policyFor(ctx, root, values.policy, recordBase(root, recordRel));
      const tree = treeFor(root, recordRel, params === null);
      try {
        changed = await extractRecordSymbols({
          repo: root,
          config: policy.config,
          tree,
          sealedTree: params?.tree ?? null,
          record: recordRel,
        });
      } finally {
        tree.dispose();
      }
    }
    if (values.out === '-') ctx.stdout(toJsonText(changed));
    else
      writeChangedFile(
        values.out === undefined ? resolve(root, LAYOUT.changed) : resolve(ctx.cwd, values.out),
        changed,
      );
    ctx.stderr(formatChangedSummary(changed));
    return 0;
  },
};

/** The one-line summary `sealgate symbols` prints on stderr. */
export function formatChangedSummary(changed: Changed): string {
  return (
    `sealgate: ${changed.files.length} files, ${changed.changed.length} changed, ${changed.moved.length} moved, ${changed.deleted.length} deleted, ` +
    `${changed.typeOnly.length} type-only symbols, ${changed.uncreditable.length} uncreditable files\n`
  );
}

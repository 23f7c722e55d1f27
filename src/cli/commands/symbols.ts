import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { toJsonText } from '../../core/json.js';
import { readBoundedFile, writeFileAtomic } from '../../core/io.js';
import { LAYOUT } from '../../core/layout.js';
import { readRepoRoot, resolveCommit } from '../../diff/git.js';
import { SealgateError, inputInvalid, usageError } from '../../core/errors.js';
import { resolveInRepo } from '../../core/io.js';
import { readRecordFile } from '../../record/file.js';
import { readPolicy } from '../../policy/read.js';
import { readSealParams } from '../../seal/seal.js';
import { policyFor, recordBase, treeFor } from '../policy.js';
import { extractChanged } from '../../symbols/extract.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../context.js';

/** Patches can be large; refuse anything past this. */
const MAX_PATCH_BYTES = 256 * 1024 * 1024;

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
    // This thread and, given a second core, one worker thread (see docs/symbols.md, Performance).
    const workers = Math.min(2, availableParallelism());
    let changed;
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
        workers,
      });
    } else {
      if (values.base !== undefined)
        throw usageError("--base goes with --patch; the runner step uses the record's base_commit");
      const params = readSealParams(root);
      const recordRel = params?.record;
      const policy = policyFor(ctx, root, values.policy, recordBase(root, recordRel));
      const { tree, release } = treeFor(ctx, root, recordRel, params === null);
      try {
        if (params !== null && params.tree !== tree.treeId) {
          throw new SealgateError('E_DIGEST_OPEN', [
            {
              code: 'E_DIGEST_OPEN',
              path: `${LAYOUT.sealParams}#tree`,
              detail: `the seal is of tree ${params.tree}, the record's base and patch give ${tree.treeId}`,
            },
          ]);
        }
        const patchBytes = readBoundedFile(
          resolveInRepo(
            root,
            readRecordFile(resolve(root, recordRel ?? LAYOUT.record), recordRel ?? LAYOUT.record).record.patch_path,
            'record#patch_path',
          ),
          MAX_PATCH_BYTES,
          'patch',
        );
        changed = await extractChanged({
          repo: root,
          patchBytes,
          base: tree.baseCommit,
          config: policy.config,
          label: 'patch',
          workers,
        });
        if (changed.patch_sha256 !== tree.patchSha256)
          throw inputInvalid('patch', 'the patch changed while the symbols were read');
      } finally {
        release();
      }
    }
    const text = toJsonText(changed);
    if (values.out === '-') ctx.stdout(text);
    else {
      const out = values.out === undefined ? resolve(root, LAYOUT.changed) : resolve(ctx.cwd, values.out);
      mkdirSync(dirname(out), { recursive: true });
      writeFileAtomic(out, text);
    }
    ctx.stderr(
      `sealgate: ${changed.files.length} files, ${changed.changed.length} changed, ${changed.moved.length} moved, ${changed.deleted.length} deleted, ` +
        `${changed.typeOnly.length} type-only symbols, ${changed.uncreditable.length} uncreditable files\n`,
    );
    return 0;
  },
};

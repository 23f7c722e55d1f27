import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { readConfig } from '../../config/read.js';
import { toJsonText } from '../../core/json.js';
import { readBoundedFile, writeFileAtomic } from '../../core/io.js';
import { LAYOUT } from '../../core/layout.js';
import { readRepoRoot } from '../../diff/git.js';
import { extractChanged } from '../../symbols/extract.js';
import { parseCommandArgs, requireOption } from '../args.js';
import type { Command } from '../context.js';

/** Patches can be large; refuse anything past this. */
const MAX_PATCH_BYTES = 256 * 1024 * 1024;

export const command: Command = {
  usage: `Usage: sealgate symbols --patch P [--repo DIR] [--base REV] [--out FILE] [--config FILE]

Lists the files and production symbols a git patch changes, and writes changed.json.
The patch is applied to the base in a temporary index; the work tree, the index and
the object database are left alone. A patch that does not apply exactly is refused.

  --patch P      the patch (git diff or git format-patch output)
  --repo DIR     the repository (default: .)
  --base REV     the commit the patch applies to (default: HEAD)
  --out FILE     where to write changed.json (default: ${LAYOUT.changed} in the
                 repository); "-" prints it on stdout
  --config FILE  a sealgate config (default: sealgate.config.json|yaml in the repository)

Prints a one-line summary on stderr. Exit: 0 written, 1 E_INPUT_INVALID (bad or
non-applying patch), 2 bad arguments, 3 internal error.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      patch: { type: 'string' },
      repo: { type: 'string' },
      base: { type: 'string' },
      out: { type: 'string' },
      config: { type: 'string' },
    });
    const patchPath = resolve(ctx.cwd, requireOption(values.patch, 'patch'));
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    const root = readRepoRoot(repo);
    const config = readConfig(root, values.config === undefined ? undefined : resolve(ctx.cwd, values.config));
    const patchBytes = readBoundedFile(patchPath, MAX_PATCH_BYTES, values.patch);
    // This thread and, given a second core, one worker thread (see docs/symbols.md, Performance).
    const workers = Math.min(2, availableParallelism());
    const changed = await extractChanged({ repo: root, patchBytes, base: values.base ?? 'HEAD', config, label: values.patch ?? 'patch', workers });
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

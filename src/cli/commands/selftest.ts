import { join, resolve } from 'node:path';
import { packageRoot } from '../../core/package-root.js';
import { runAcceptance } from '../acceptance.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../context.js';

export const command: Command = {
  usage: `Usage: sealgate selftest [--dir DIR] [--verbose]

Runs every acceptance case (one folder each, with its inputs and an \`expected\` code)
through the gate, in-process, and exits 1 naming each case whose code drifts.
By default it runs the cases installed with the package. Prints the tally on stdout.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, { dir: { type: 'string' }, verbose: { type: 'boolean' } });
    const dir = values.dir === undefined ? join(packageRoot(), 'acceptance') : resolve(ctx.cwd, values.dir);
    const results = await runAcceptance(dir);
    const failed = results.filter((r) => !r.pass);
    for (const r of results) {
      if (!r.pass || values.verbose)
        ctx.stderr(
          `${r.pass ? 'ok  ' : 'FAIL'} ${r.name}: expected ${r.expected}, got ${r.got} (exit ${r.exit})${r.pass ? '' : `\n     ${r.detail}`}\n`,
        );
    }
    if (results.length === 0) {
      ctx.stderr(`selftest: no acceptance cases in ${dir}\n`);
      ctx.stdout('selftest: 0 cases\n');
      return 1;
    }
    ctx.stdout(`selftest: ${results.length - failed.length} passed, ${failed.length} failed\n`);
    return failed.length === 0 ? 0 : 1;
  },
};

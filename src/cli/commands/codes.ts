import { CODE_INFO, DECISION_CODES } from '../../core/codes.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../context.js';

export const command: Command = {
  usage: `Usage: sealgate codes [--json]

Lists every code sealgate can print, with its condition, next step and exit status.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, { json: { type: 'boolean' } });
    if (values.json) {
      ctx.stdout(
        JSON.stringify(
          DECISION_CODES.map((code) => ({ code, ...CODE_INFO[code] })),
          null,
          2,
        ) + '\n',
      );
      return 0;
    }
    for (const code of DECISION_CODES) {
      const info = CODE_INFO[code];
      ctx.stdout(`${code} (exit ${info.exit})\n  when: ${info.condition}\n  next: ${info.nextStep}\n`);
    }
    return 0;
  },
};

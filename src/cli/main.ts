import { CODE_INFO, USAGE_EXIT, type DecisionCode } from '../core/codes.js';
import { SealgateError, usageError } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import type { Command, CommandContext } from './context.js';
import { formatJson, formatReasons } from './report.js';

/** One command of the table: its `--help` summary and a lazy loader. */
export interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<Command>;
}
/** The command table, by name (src/cli/commands/index.ts has the full one). */
export type Commands = Readonly<Record<string, CommandEntry>>;

function topUsage(commands: Commands): string {
  const width = Math.max(...Object.keys(commands).map((k) => k.length));
  const rows = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: sealgate <command> [options]',
    '',
    "Decides whether an AI agent's patch may go to human review. Every command prints",
    'a stable code on stdout when it refuses; reasons go to stderr.',
    '',
    'Commands:',
    ...rows,
    '',
    'Exit status: 0 ALLOW or success, 1 a reject code, 2 bad arguments (E_INPUT_INVALID),',
    "3 E_INTERNAL. Run `sealgate <command> --help` for a command's options.",
    '',
  ].join('\n');
}

/**
 * The context with other arguments. Property descriptors, not a spread: a spread would call
 * the `isTTY` getter, whose first use creates the stderr stream, a cost most runs never need.
 */
function withArgv(ctx: CommandContext, argv: readonly string[]): CommandContext {
  return Object.defineProperties(
    {},
    { ...Object.getOwnPropertyDescriptors(ctx), argv: { value: argv, enumerable: true } },
  ) as CommandContext;
}

/** The CLI's one catch site: every path ends in one code line on stdout and a defined exit status. */
export async function main(ctx: CommandContext, commands: Commands): Promise<number> {
  const [name, ...rest] = ctx.argv;
  // Options end at `--`; what follows (e.g. `sealgate run -- COMMAND --help`) belongs to the command.
  const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  const json = own.includes('--json');
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      ctx.stdout(topUsage(commands));
      return name === undefined ? USAGE_EXIT : 0;
    }
    if (name === '--version' || name === '-V') {
      ctx.stdout(`${VERSION}\n`);
      return 0;
    }
    const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
    if (!entry) throw usageError(`unknown command "${name}"; run sealgate --help`);
    const command = await entry.load();
    if (own.includes('--help') || own.includes('-h')) {
      ctx.stdout(command.usage);
      return 0;
    }
    return await command.run(withArgv(ctx, rest));
  } catch (err) {
    const known = err instanceof SealgateError;
    const code: DecisionCode = known ? err.code : 'E_INTERNAL';
    const findings = known
      ? err.findings
      : [
          {
            code: 'E_INTERNAL' as const,
            path: '',
            detail: err instanceof Error ? (err.stack ?? err.message) : String(err),
          },
        ];
    ctx.stdout(`${code}\n`);
    ctx.stderr(json ? formatJson(code, findings) : formatReasons(code, findings));
    if (known && err.usage) {
      if (!json) ctx.stderr('sealgate: run `sealgate --help` for usage\n');
      return USAGE_EXIT;
    }
    return CODE_INFO[code].exit;
  }
}

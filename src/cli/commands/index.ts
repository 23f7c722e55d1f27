import type { Command } from '../context.js';

/** Every subcommand, loaded only when called so that `gate` starts without the heavy parsers. */
export const COMMANDS: Readonly<Record<string, { readonly summary: string; readonly load: () => Promise<Command> }>> = {
  gate: { summary: 'decide: print one code for a record, credit and optional freeze', load: async () => (await import('./gate.js')).command },
  selftest: { summary: "run the bundled acceptance cases and the spec's sample files", load: async () => (await import('./selftest.js')).command },
  codes: { summary: 'list every decision code with its condition, next step and exit status', load: async () => (await import('./codes.js')).command },
};

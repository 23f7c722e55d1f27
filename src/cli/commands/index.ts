import type { CommandEntry } from '../main.js';
import { SUMMARIES } from './summaries.js';

/** Every subcommand, loaded only when called so that `gate` starts without the heavy parsers. */
export const COMMANDS: Readonly<Record<keyof typeof SUMMARIES, CommandEntry>> = {
  gate: { summary: SUMMARIES.gate, load: async () => (await import('./gate.js')).command },
  selftest: { summary: SUMMARIES.selftest, load: async () => (await import('./selftest.js')).command },
  propose: { summary: SUMMARIES.propose, load: async () => (await import('./propose.js')).command },
  seal: { summary: SUMMARIES.seal, load: async () => (await import('./seal.js')).command },
  freeze: { summary: SUMMARIES.freeze, load: async () => (await import('./freeze.js')).command },
  verify: { summary: SUMMARIES.verify, load: async () => (await import('./verify.js')).command },
  explain: { summary: SUMMARIES.explain, load: async () => (await import('./explain.js')).command },
  symbols: { summary: SUMMARIES.symbols, load: async () => (await import('./symbols.js')).command },
  run: { summary: SUMMARIES.run, load: async () => (await import('./run.js')).command },
  publish: { summary: SUMMARIES.publish, load: async () => (await import('./publish.js')).command },
  logs: { summary: SUMMARIES.logs, load: async () => (await import('./logs.js')).command },
  'discard-logs': { summary: SUMMARIES['discard-logs'], load: async () => (await import('./discard-logs.js')).command },
  credit: { summary: SUMMARIES.credit, load: async () => (await import('./credit.js')).command },
  runner: { summary: SUMMARIES.runner, load: async () => (await import('./runner.js')).command },
  keygen: { summary: SUMMARIES.keygen, load: async () => (await import('./keygen.js')).command },
  attest: { summary: SUMMARIES.attest, load: async () => (await import('./attest.js')).command },
  init: { summary: SUMMARIES.init, load: async () => (await import('./init.js')).command },
  codes: { summary: SUMMARIES.codes, load: async () => (await import('./codes.js')).command },
};

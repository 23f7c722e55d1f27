import type { Command } from '../context.js';

/** Every subcommand, loaded only when called so that `gate` starts without the heavy parsers. */
export const COMMANDS: Readonly<Record<string, { readonly summary: string; readonly load: () => Promise<Command> }>> = {
  gate: { summary: 'decide: print one code for a record, credit and optional freeze', load: async () => (await import('./gate.js')).command },
  selftest: { summary: "run the bundled acceptance cases and the spec's sample files", load: async () => (await import('./selftest.js')).command },
  propose: { summary: "author: record a proposal (both job ids, the patch and its hash) before tests run", load: async () => (await import('./propose.js')).command },
  seal: { summary: 'seal the fixture inputs (sha256sum-reproducible digest); --verify checks for drift', load: async () => (await import('./seal.js')).command },
  freeze: { summary: 'reviewer: write a flake freeze bound to the digest and credit, only if the gate would accept it', load: async () => (await import('./freeze.js')).command },
  verify: { summary: 'gate job: the full audit from the files (digest, patch hash, journal, credit) then the decision', load: async () => (await import('./verify.js')).command },
  explain: { summary: "the reviewer's report (text, Markdown or one HTML page): the four questions and the decision", load: async () => (await import('./explain.js')).command },
  symbols: { summary: 'list the files and production symbols a patch changes (writes changed.json)', load: async () => (await import('./symbols.js')).command },
  run: { summary: 'runner: run the tests on the sealed digest; logs stay hidden, results recorded', load: async () => (await import('./run.js')).command },
  publish: { summary: 'runner: make the logs readable (only when sealed and every log is from after the seal)', load: async () => (await import('./publish.js')).command },
  logs: { summary: "author: read the published logs (refused before publication)", load: async () => (await import('./logs.js')).command },
  'discard-logs': { summary: 'runner: remove logs that are not from a run after the seal (after E_LOGS_EARLY)', load: async () => (await import('./discard-logs.js')).command },
  credit: { summary: 'runner: score property credit with a mutation oracle per changed symbol (writes cases.json, credit.json)', load: async () => (await import('./credit.js')).command },
  runner: { summary: 'runner: seal, verify, run, symbols, credit and publish in one job, a line per step', load: async () => (await import('./runner.js')).command },
  init: { summary: 'write a starting sealgate.config.json and the GitHub Actions workflow into a repository', load: async () => (await import('./init.js')).command },
  codes: { summary: 'list every decision code with its condition, next step and exit status', load: async () => (await import('./codes.js')).command },
};

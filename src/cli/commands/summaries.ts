/** One line per subcommand, for `sealgate --help`; shared by the full CLI and the one-command bundles. */
export const SUMMARIES = {
  gate: 'decide: print one code for a record, credit and optional freeze',
  selftest: "run the bundled acceptance cases and the spec's sample files",
  propose: "author: record a proposal (both job ids, the patch and its hash) before tests run",
  seal: 'seal the fixture inputs (sha256sum-reproducible digest); --verify checks for drift',
  freeze: 'reviewer: write a flake freeze bound to the digest and credit, only if the gate would accept it',
  verify: 'gate job: the full audit from the files (digest, patch hash, journal, credit) then the decision',
  explain: "the reviewer's report (text, Markdown or one HTML page): the four questions and the decision",
  symbols: 'list the files and production symbols a patch changes (writes changed.json)',
  run: 'runner: run the tests on the sealed digest; logs stay hidden, results recorded',
  publish: 'runner: make the logs readable (only when sealed and every log is from after the seal)',
  logs: "author: read the published logs (refused before publication)",
  'discard-logs': 'runner: remove logs that are not from a run after the seal (after E_LOGS_EARLY)',
  credit: 'runner: score property credit with a mutation oracle per changed symbol (writes cases.json, credit.json)',
  runner: 'runner: seal, verify, run, symbols, credit and publish in one job, a line per step',
  init: 'write a starting sealgate.config.json and the GitHub Actions workflow into a repository',
  codes: 'list every decision code with its condition, next step and exit status',
} as const satisfies Readonly<Record<string, string>>;

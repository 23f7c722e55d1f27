import { join } from 'node:path';

/**
 * Where every file of the workflow lives, relative to the repository root. One place, so
 * the seal, the runner, the gate and verify agree on what "the credit file" or "the logs" are.
 */
export const LAYOUT = {
  record: 'review/proposal.json',
  /** Every proposal id recorded here with its patch hash: a reused id with other bytes is refused. */
  proposals: 'review/proposals.jsonl',
  freeze: 'review/freeze.json',
  runnerDir: 'review/runner',
  inputs: 'review/runner/inputs.sha256',
  digest: 'review/runner/digest.txt',
  /** What `sealgate seal` was asked to hash (globs, seed, clock, locale, record), so `seal --verify` needs no arguments. */
  sealParams: 'review/runner/seal.json',
  status: 'review/runner/digest.status',
  journal: 'review/runner/journal.jsonl',
  /** `<seq> <sha256 of the last journal line>`: anchors the chain's head, so a cut or edited last line shows. */
  journalHead: 'review/runner/journal.head',
  results: 'review/runner/results.json',
  changed: 'review/runner/changed.json',
  cases: 'review/runner/cases.json',
  credit: 'review/runner/credit.json',
  /** The hidden log store: mode 0700, files 0600, until publish. */
  logs: 'review/runner/logs',
  /** Published (readable) copy of the logs, written by `sealgate publish` only. */
  publishedLogs: 'review/logs',
} as const;

export type LayoutKey = keyof typeof LAYOUT;

export function layoutPath(repo: string, key: LayoutKey): string {
  return join(repo, LAYOUT[key]);
}

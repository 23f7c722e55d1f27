import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { isDecisionCode } from '../core/codes.js';
import { main } from './main.js';
import { SUMMARIES } from './commands/summaries.js';

/** The acceptance cases run the gate alone. */
const GATE_ONLY = { gate: { summary: SUMMARIES.gate, load: async () => (await import('./commands/gate.js')).command } };

export interface CaseResult {
  readonly name: string;
  readonly expected: string;
  readonly got: string;
  readonly exit: number;
  readonly pass: boolean;
  readonly detail: string;
}

/** The review clock every case uses unless its folder has a `now` file. */
export const ACCEPTANCE_NOW = '2026-10-12T12:00:00+00:00';

/**
 * One acceptance case: a folder with record.json or record.yaml, credit.json (absent means
 * no property run), optional freeze.json, the patch and runner files the record names, and
 * `expected` holding the code, and optionally `reason`: a
 * text the stderr must contain. The policy is `<case>.policy.json` or else `policy.json`, beside the case folders. The gate runs in-process through the CLI's own main().
 */
export async function runAcceptanceCase(dir: string, name: string): Promise<CaseResult> {
  const expected = readFileSync(join(dir, 'expected'), 'utf8').trim();
  const now = existsSync(join(dir, 'now')) ? readFileSync(join(dir, 'now'), 'utf8').trim() : ACCEPTANCE_NOW;
  const record = ['record.json', 'record.yaml', 'record.yml'].find((r) => existsSync(join(dir, r))) ?? 'record.json';
  // The cases' policy is the defaults (policy.json), or the case's own <case>.policy.json, kept
  // outside every case folder (each is its own --repo).
  const own = `${dir}.policy.json`;
  const argv = [
    'gate',
    '--repo',
    dir,
    '--record',
    join(dir, record),
    '--credit',
    join(dir, 'credit.json'),
    '--policy',
    existsSync(own) ? own : join(dir, '..', 'policy.json'),
    '--now',
    now,
  ];
  if (existsSync(join(dir, 'freeze.json'))) argv.push('--freeze', join(dir, 'freeze.json'));
  let out = '';
  let err = '';
  const exit = await main(
    {
      argv,
      cwd: dir,
      env: {},
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      clock: () => new Date(0),
      isTTY: false,
    },
    GATE_ONLY,
  );
  const lines = out.split('\n').filter((l) => l !== '');
  const got = lines.length === 1 && isDecisionCode(lines[0]) ? lines[0] : `(bad stdout: ${JSON.stringify(out)})`;
  const exitOk = got === 'ALLOW' ? exit === 0 : exit !== 0;
  // A case may pin its reason too, so a reject for the wrong reason is a drift.
  const reason = existsSync(join(dir, 'reason')) ? readFileSync(join(dir, 'reason'), 'utf8').trim() : '';
  const reasonOk = reason === '' || err.includes(reason);
  const detail = (reasonOk ? '' : `stderr lacks "${reason}": `) + err.trim().split('\n').slice(0, 3).join(' | ');
  return { name, expected, got, exit, pass: got === expected && exitOk && reasonOk, detail };
}

export async function runAcceptance(root: string): Promise<CaseResult[]> {
  const names = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, d.name, 'expected')))
    .map((d) => d.name)
    .sort();
  const out: CaseResult[] = [];
  for (const name of names) out.push(await runAcceptanceCase(join(root, name), name));
  return out;
}

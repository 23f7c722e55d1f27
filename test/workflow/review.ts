import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { toJsonText } from '../../src/core/json.js';
import { sha256Hex } from '../../src/core/ids.js';
import { LAYOUT } from '../../src/core/layout.js';
import { propertyCredit } from '../../src/credit/score/rule.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo } from '../helpers/git.js';

/** The bundled example, as the tests and `npm start` use it. */
export const EXAMPLE_DIR = resolve('examples/pricing');
export const AGENT_PATCH = 'agent/001-clamp-discount-refund-tax.diff';
export const FOLLOW_UP_PATCH = 'agent/002-bound-tax.diff';
export const NOW = '2026-10-12T12:00:00Z';
export const AUTHOR = 'model-session-17';
export const RUNNER = 'server-job-88';

export const DISCOUNT = 'src/pricing.ts::applyDiscount';
export const TAX = 'src/pricing.ts::taxCents';
export const PROP_DISCOUNT = 'pricing::discount stays within bounds';
export const TAUTOLOGY_TAX = 'pricing::tax is computed';
export const PROP_TAX = 'pricing::tax is bounded by the rate';
export const FLAKE = 'receipt::report timezone';

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? listFiles(p) : [p];
  });
}

/** The example project's files (without the agent's patches), keyed by repository path. */
export function exampleFiles(): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const f of listFiles(EXAMPLE_DIR)) {
    const rel = relative(EXAMPLE_DIR, f).split('\\').join('/');
    if (!rel.startsWith('agent/')) out[rel] = readFileSync(f);
  }
  return out;
}

export interface Review {
  readonly dir: string;
  readonly dispose: () => void;
  readonly digest: string;
  readonly base: string;
  readonly patchSha256: string;
}

async function cli(argv: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const r = await runCli(argv, { cwd, env, now: new Date(NOW) });
  if (r.exit !== 0) throw new Error(`sealgate ${argv.join(' ')} -> exit ${r.exit}: ${r.stdout} ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * A repository with the example committed, the agent's patch proposed by the author and
 * sealed by the runner with the real `propose` and `seal` commands. No credit yet.
 */
/** `prepare` runs on the new repository before the base is taken (e.g. commits a trust policy). */
export async function proposedAndSealed(
  patch = AGENT_PATCH,
  proposalId = 'p-2026-10-12-014',
  prepare?: (dir: string) => void,
): Promise<Review> {
  const repo = makeRepo(exampleFiles());
  prepare?.(repo.dir);
  const base = git(repo.dir, 'rev-parse', 'HEAD').trim();
  const bytes = readFileSync(join(EXAMPLE_DIR, patch));
  writeFileSync(join(repo.dir, 'patches.diff'), bytes);
  await cli(
    ['propose', '--author-job', AUTHOR, '--runner-job', RUNNER, '--patch', 'patches.diff', '--proposal-id', proposalId],
    repo.dir,
  );
  const digest = await cli(['seal', '--runner-job', RUNNER, '--seed', '42'], repo.dir);
  return { ...repo, digest, base, patchSha256: sha256Hex(bytes) };
}

/**
 * What the runner's symbols and credit steps write, by hand, for the example: changed.json,
 * cases.json and credit.json (the credit by the spec's rule over the case file).
 * `taxTest` says what covers taxCents: the tautology (first proposal) or the real bound.
 */
export function writeScoring(r: Review, taxTest: 'tautology' | 'property', runner = RUNNER): { creditId: string } {
  const changedIds = [DISCOUNT, TAX];
  writeFileSync(
    join(r.dir, LAYOUT.changed),
    toJsonText({
      base: r.base,
      patch_sha256: r.patchSha256,
      files: [
        {
          path: 'src/pricing.ts',
          old_path: 'src/pricing.ts',
          status: 'modified',
          class: 'production',
          language: 'typescript',
        },
      ],
      changed: changedIds,
      moved: [],
      deleted: [],
      typeOnly: [],
      uncreditable: [],
      locations: {
        [DISCOUNT]: {
          path: 'src/pricing.ts',
          language: 'typescript',
          start_line: 4,
          end_line: 8,
          changed_lines: [[5, 7]],
        },
        [TAX]: {
          path: 'src/pricing.ts',
          language: 'typescript',
          start_line: 11,
          end_line: 15,
          changed_lines: [[12, 14]],
        },
      },
    }),
  );
  const cases = [
    { id: PROP_DISCOUNT, digest: r.digest, kind: 'property' as const, status: 'passed' as const, symbols: [DISCOUNT] },
    taxTest === 'tautology'
      ? {
          id: TAUTOLOGY_TAX,
          digest: r.digest,
          kind: 'tautology' as const,
          status: 'passed' as const,
          symbols: [TAX],
          rule: 'same-expression',
        }
      : { id: PROP_TAX, digest: r.digest, kind: 'property' as const, status: 'passed' as const, symbols: [TAX] },
    { id: FLAKE, digest: r.digest, kind: 'property' as const, status: 'passed' as const, symbols: [] },
  ];
  writeFileSync(
    join(r.dir, LAYOUT.cases),
    toJsonText({ changed: changedIds, cases, digest: r.digest, runner_job: runner, sandbox: 'bwrap' }),
  );
  // The sealed run the credit was scored on: every case passed.
  const results = toJsonText({
    runner_job: runner,
    digest: r.digest,
    command: ['node', '--test'],
    exit_code: 0,
    signal: null,
    timed_out: false,
    started_at: '2026-10-12T11:00:00Z',
    ended_at: '2026-10-12T11:01:00Z',
    sandbox: 'bwrap',
    cwd: '/sealgate/work',
    junit: [{ path: 'junit.xml', sha256: 'e'.repeat(64), status: 'ok' }],
    cases: cases.map((c) => {
      const [suite, name] = c.id.split('::') as [string, string];
      return { id: c.id, file: null, suite, name, status: 'passed', duration_ms: 1 };
    }),
  });
  writeFileSync(join(r.dir, LAYOUT.results), results);
  const creditId = `credit-${taxTest}`;
  const credit = propertyCredit(creditId, changedIds, cases, r.digest);
  writeFileSync(
    join(r.dir, LAYOUT.credit),
    toJsonText({
      ...credit,
      runner_job: runner,
      proposal_id: 'p-2026-10-12-014',
      patch_sha256: r.patchSha256,
      results_sha256: sha256Hex(results),
      changed: changedIds,
      uncreditable: [],
      sandbox: 'bwrap',
    }),
  );
  return { creditId };
}

export async function verify(dir: string, now = NOW): Promise<{ code: string; exit: number; stderr: string }> {
  const r = await runCli(['verify', '--repo', dir, '--now', now], { cwd: dir, now: new Date(NOW) });
  return { code: r.stdout.trim(), exit: r.exit, stderr: r.stderr };
}

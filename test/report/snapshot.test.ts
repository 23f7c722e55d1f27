import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { FLAKE, NOW, proposedAndSealed, writeScoring } from '../workflow/review.js';

// Golden files for the reviewer's reports on the example's hand-scored review (every input
// is deterministic: fixed files, commit dates, seed and clock). Rewrite with UPDATE_SNAPSHOTS=1.
const DIR = 'test/report/snapshots';

function golden(name: string, actual: string): void {
  const path = join(DIR, name);
  if (process.env['UPDATE_SNAPSHOTS'] === '1' || !existsSync(path)) {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(path, actual);
  }
  assert.equal(
    actual,
    readFileSync(path, 'utf8'),
    `${path} differs; rewrite with UPDATE_SNAPSHOTS=1 if the change is intended`,
  );
}

test('golden reports: missing credit (text, md) and a bound freeze (text, md)', async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'tautology');
    for (const format of ['text', 'md'] as const) {
      const out = await runCli(['explain', '--repo', r.dir, '--now', NOW, '--format', format], { cwd: r.dir });
      golden(`credit-missing.${format === 'text' ? 'txt' : 'md'}`, `${out.stdout}(exit ${out.exit})\n`);
    }
    writeScoring(r, 'property');
    const fz = await runCli(
      [
        'freeze',
        '--repo',
        r.dir,
        '--author-job',
        'reviewer-job-2',
        '--test-id',
        FLAKE,
        '--expires-at',
        '2026-10-19T00:00:00Z',
        '--freeze-id',
        'fz-014',
        '--now',
        NOW,
      ],
      { cwd: r.dir },
    );
    assert.equal(fz.exit, 0, fz.stderr);
    for (const format of ['text', 'md'] as const) {
      const out = await runCli(['explain', '--repo', r.dir, '--now', NOW, '--format', format], { cwd: r.dir });
      golden(`allow-with-freeze.${format === 'text' ? 'txt' : 'md'}`, `${out.stdout}(exit ${out.exit})\n`);
    }
  } finally {
    r.dispose();
  }
});

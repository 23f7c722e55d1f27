import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { followUpFiles, NOW, propose, REVIEWER, runnerJob, verify } from './example.js';

// The honest follow-up (ALLOW), plus a test that fails in the sealed run. Nothing read
// results.json before: a red suite with full credit was ALLOW.
const FAILING =
  "\n  test('report footer', () => {\n    assert.equal(receiptDate(new Date(clock.now), clock.storeTimeZone), '1999-01-01');\n  });\n";

test(
  'adversarial: a failing test without a freeze is E_TESTS_FAILED naming it; a reviewer freeze on it gives ALLOW',
  { timeout: 300_000 },
  async () => {
    const files = followUpFiles();
    const t = files['test/pricing.test.ts'] ?? '';
    const at = t.lastIndexOf('});');
    const s = await propose({
      ...files,
      'test/pricing.test.ts': t.slice(0, at) + FAILING.trimStart().replace(/^/, '  ') + t.slice(at),
    });
    try {
      const out = await runnerJob(s);
      assert.equal(out.code, 'E_TESTS_FAILED', out.stderr);
      assert.match(out.stderr, /runner: audit +E_TESTS_FAILED: .*"receipt::report footer" \(failed\)/);
      const credit = JSON.parse(readFileSync(join(s.dir, LAYOUT.credit), 'utf8')) as {
        pass: boolean;
        test_ids: string[];
      };
      assert.equal(credit.pass, true, 'the credit itself passes: only the failing test holds it back');
      assert.equal((await verify(s)).code, 'E_TESTS_FAILED');
      // A freeze exists exactly for this: a noisy test that bears no credit.
      const fz = await s.cli([
        'freeze',
        '--author-job',
        REVIEWER,
        '--test-id',
        'receipt::report footer',
        '--expires-at',
        '2026-10-19T00:00:00Z',
        '--now',
        NOW,
      ]);
      assert.equal(fz.exit, 0, fz.stdout + fz.stderr);
      const v = await verify(s);
      assert.equal(v.code, 'ALLOW', v.stderr);
    } finally {
      s.dispose();
    }
  },
);

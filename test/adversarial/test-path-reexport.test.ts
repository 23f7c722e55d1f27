import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseText, propose, runnerJob } from './example.js';

// The agent moves the changed taxCents into src/spec/tax.ts (a default test pattern) and
// re-exports it from production: by its path it would be a test file, exempt from credit.
test(
  'adversarial: production code under a test path, re-exported, still needs credit (E_CREDIT_MISSING)',
  { timeout: 300_000 },
  async () => {
    const pricing = baseText('src/pricing.ts');
    const start = pricing.indexOf('/** Sales tax');
    const end = pricing.indexOf('/** The receipt');
    const s = await propose({
      'src/pricing.ts': pricing.slice(0, start) + "export { taxCents } from './spec/tax.js';\n\n" + pricing.slice(end),
      'src/spec/tax.ts':
        '/** Sales tax, refunds mirrored. */\nexport function taxCents(amountCents: number, rateBasisPoints: number): number {\n  const exact = (Math.abs(amountCents) * rateBasisPoints) / 10_000;\n  return Math.sign(amountCents) * Math.round(exact);\n}\n',
    });
    try {
      const out = await runnerJob(s);
      assert.equal(out.code, 'E_CREDIT_MISSING', out.stderr);
      assert.match(out.stderr, /runner: audit +E_CREDIT_MISSING/);
      const changed = JSON.parse(readFileSync(join(s.dir, 'review/runner/changed.json'), 'utf8')) as {
        changed: string[];
        files: { path: string; class: string }[];
        imported_tests?: { path: string; imported_by: string }[];
      };
      assert.deepEqual(changed.imported_tests, [{ path: 'src/spec/tax.ts', imported_by: 'src/pricing.ts' }]);
      assert.equal(changed.files.find((f) => f.path === 'src/spec/tax.ts')?.class, 'production');
      assert.ok(changed.changed.includes('src/spec/tax.ts::taxCents'), JSON.stringify(changed.changed));
      const credit = JSON.parse(readFileSync(join(s.dir, 'review/runner/credit.json'), 'utf8')) as {
        missing: string[];
      };
      assert.ok(credit.missing.includes('src/spec/tax.ts::taxCents'), JSON.stringify(credit.missing));
    } finally {
      s.dispose();
    }
  },
);

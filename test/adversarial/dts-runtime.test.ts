import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseText, propose, runnerJob } from './example.js';

// The agent moves taxCents (changed) into a declaration file, which the classifier would
// count as type-only, yet tsx runs it: the patch's runtime code must still need credit.
test(
  'adversarial: runtime code in a .d.ts still needs credit (E_CREDIT_MISSING, taxCents named)',
  { timeout: 300_000 },
  async () => {
    const pricing = baseText('src/pricing.ts');
    const start = pricing.indexOf('/** Sales tax');
    const end = pricing.indexOf('/** The receipt');
    const s = await propose({
      'src/pricing.ts': pricing.slice(0, start) + "export { taxCents } from './tax.d.ts';\n\n" + pricing.slice(end),
      'src/tax.d.ts':
        'export function taxCents(amountCents: number, rateBasisPoints: number): number {\n  const exact = (Math.abs(amountCents) * rateBasisPoints) / 10_000;\n  return Math.sign(amountCents) * Math.round(exact);\n}\n',
    });
    try {
      const out = await runnerJob(s);
      assert.equal(out.code, 'E_CREDIT_MISSING', out.stderr);
      assert.match(out.stderr, /E_CREDIT_MISSING/);
      const changed = JSON.parse(readFileSync(join(s.dir, 'review/runner/changed.json'), 'utf8')) as {
        changed: string[];
        typeOnly: string[];
      };
      assert.ok(changed.changed.includes('src/tax.d.ts::taxCents'), JSON.stringify(changed));
      const credit = JSON.parse(readFileSync(join(s.dir, 'review/runner/credit.json'), 'utf8')) as {
        missing: string[];
      };
      assert.ok(credit.missing.includes('src/tax.d.ts::taxCents'), JSON.stringify(credit.missing));
    } finally {
      s.dispose();
    }
  },
);

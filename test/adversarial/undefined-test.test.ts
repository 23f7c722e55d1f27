import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { followUpFiles, NOW, propose, runnerJob } from './example.js';

// The follow-up's real bound on taxCents, but its JUnit case carries a name no test file
// defines: the name is computed with no literal text, on a call that runs once, so it would fit
// any reported name (a reporter's made-up case, or a test the classifier cannot see, would be
// taken for it). Such a call defines no name (docs/credit.md, "Computed test names"): the case
// earns nothing, and the credit and the report list it.
test(
  'adversarial: a JUnit case no test file defines earns no credit, and the report lists it',
  { timeout: 300_000 },
  async () => {
    const files = followUpFiles();
    const made = "test(['tax', 'is', 'bounded', 'by', 'the', 'rate'].join(' ') + ' (generated)', () => {";
    const testFile = (files['test/pricing.test.ts'] ?? '').replace("test('tax is bounded by the rate', () => {", made);
    assert.notEqual(testFile, files['test/pricing.test.ts']);
    const s = await propose({ ...files, 'test/pricing.test.ts': testFile });
    try {
      const out = await runnerJob(s);
      assert.equal(out.code, 'E_CREDIT_MISSING', out.stderr);
      const credit = JSON.parse(readFileSync(join(s.dir, LAYOUT.credit), 'utf8')) as {
        missing: string[];
        undefined_tests: string[];
      };
      assert.deepEqual(credit.missing, ['src/pricing.ts::taxCents']);
      assert.deepEqual(credit.undefined_tests, ['pricing::tax is bounded by the rate (generated)']);
      const report = await s.cli(['verify', '--now', NOW, '--explain']);
      assert.match(
        report.stderr,
        /undefined tests \(no test file defines them; no credit\): pricing::tax is bounded by the rate \(generated\)/,
      );
    } finally {
      s.dispose();
    }
  },
);

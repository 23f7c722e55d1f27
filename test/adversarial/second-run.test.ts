import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';

// Tests that pass on their first run in a folder and fail after: a run that reused a folder
// would "kill" every mutant. Every judging run gets a fresh copy, and the control runs again
// after the mutants, where such a test fails: it earns nothing.
test(
  'a test that passes on its first run in a folder (a marker file in the folder) earns no credit',
  { timeout: 600_000 },
  async () => {
    const o = await runScenario({
      [PRICING]: refundTax(),
      [TESTS]: replaceTaxTest(
        `  test('tax once', () => {
    taxCents(1999, 800);
    if (existsSync('.tax-seen')) assert.fail('not the first run here');
    writeFileSync('.tax-seen', '');
  });
`,
        "import { existsSync, writeFileSync } from 'node:fs';\n",
      ),
    });
    assertNoCredit(o, TAX);
  },
);

test(
  'a test that passes on its first run in a folder (a marker outside it, keyed by the folder) earns no credit',
  { timeout: 600_000 },
  async () => {
    const tag = `sealgate-adv-${process.pid}`;
    try {
      const o = await runScenario({
        [PRICING]: refundTax(),
        [TESTS]: replaceTaxTest(
          `  test('tax once', () => {
    taxCents(1999, 800);
    const marker = join(tmpdir(), '${tag}-' + createHash('sha256').update(process.cwd()).digest('hex').slice(0, 16));
    if (existsSync(marker)) assert.fail('not the first run in this folder');
    writeFileSync(marker, '');
  });
`,
          "import { existsSync, writeFileSync } from 'node:fs';\nimport { tmpdir } from 'node:os';\nimport { join } from 'node:path';\nimport { createHash } from 'node:crypto';\n",
        ),
      });
      assertNoCredit(o, TAX);
      const ev = o.credit.evidence?.[TAX];
      // Each run has a fresh /tmp in the sandbox, so the marker never survives: the test passes in
      // every run, kills nothing and is insensitive (without the sandbox the control run after the
      // mutants catches it as sensitive). Either way it earns nothing.
      const flagged =
        (ev?.sensitive ?? []).some(
          (s) => s.test === 'pricing::tax once' && s.reason.includes('control run after the mutants'),
        ) || (ev?.insensitive ?? []).includes('pricing::tax once');
      assert.ok(flagged, `neither insensitive nor reported as passing only the first time: ${JSON.stringify(ev)}`);
    } finally {
      const { readdirSync } = await import('node:fs');
      for (const f of readdirSync(tmpdir())) if (f.startsWith(tag)) rmSync(join(tmpdir(), f), { force: true });
    }
  },
);

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';

// Every credit run after the first round starts with the first control's transform caches in
// its /tmp (tsx's here: the example runs node:test through tsx). A test can write into them
// during the first control and look for what it wrote later: then it passes the first control
// and fails every run after it. It "kills" the revert and every behavioural mutant that way, but
// it fails the null mutant and the control again too, so it earns nothing.
test(
  'a test that leaves a marker in the runner cache to tell the first control from later runs earns no credit',
  { timeout: 600_000 },
  async () => {
    const o = await runScenario({
      [PRICING]: refundTax(),
      [TESTS]: replaceTaxTest(
        `  test('tax is the first run', () => {
    const dir = join(tmpdir(), 'tsx-' + String(process.getuid?.() ?? 0));
    const marker = join(dir, 'seen');
    const seen = existsSync(marker);
    mkdirSync(dir, { recursive: true });
    writeFileSync(marker, 'x');
    assert.equal(taxCents(1999, 800), 160);
    assert.equal(seen, false);
  });
`,
        "import { existsSync, mkdirSync, writeFileSync } from 'node:fs';\nimport { tmpdir } from 'node:os';\nimport { join } from 'node:path';\n",
      ),
    });
    assertNoCredit(o, TAX);
    const ev = o.credit.evidence?.[TAX];
    const id = 'pricing::tax is the first run';
    assert.ok(ev?.reached.includes(id), `the test reaches taxCents: ${JSON.stringify(ev)}`);
    // It tells runs apart by the cache: it fails the real mutants, the null mutant and the control again alike.
    assert.ok(
      ev?.mutants?.some((m) => m.kind === 'null' && m.killed_by.includes(id)),
      `it fails the null mutant: ${JSON.stringify(ev?.mutants)}`,
    );
    assert.ok(
      ev?.sensitive?.some((s) => s.test === id),
      `it is reported sensitive: ${JSON.stringify(ev?.sensitive)}`,
    );
  },
);

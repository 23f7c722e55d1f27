import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toJsonText } from '../../src/core/json.js';
import { LAYOUT } from '../../src/core/layout.js';
import { propertyCredit } from '../../src/credit/score/rule.js';
import type { Evidence } from '../../src/credit/schema.js';
import { runCli } from '../helpers/cli.js';
import { NOW, RUNNER, proposedAndSealed } from '../workflow/review.js';

// A large project's review: 1,200 tests, 120 changed symbols, each reached by hundreds of
// tests with several kills. The concise reports (text, md) stay under 50 KB; json has it all.
const TESTS = 1200;
const SYMBOLS = 120;
const LIMIT = 50 * 1024;

test("a large project's report stays concise: text and md under 50 KB, every name still in --format json, html collapses long lists", async () => {
  const r = await proposedAndSealed();
  try {
    const symbols = Array.from(
      { length: SYMBOLS },
      (_, i) =>
        `src/module${String(Math.floor(i / 10)).padStart(2, '0')}/file${i % 10}.ts::function_with_a_realistic_name_${i}`,
    );
    const tests = Array.from(
      { length: TESTS },
      (_, i) =>
        `test/module${String(i % 12).padStart(2, '0')}/suite${i % 40}.test.ts::describe block ${i % 7} > nested ${i % 3}::behaves as documented for input class ${i}`,
    );
    const cases = tests.map((id, i) => ({
      id,
      digest: r.digest,
      kind: 'property' as const,
      status: 'passed' as const,
      symbols: symbols.filter((_, k) => (i + k) % 4 === 0 && k % 2 === 0),
    }));
    const evidence: Record<string, Evidence> = Object.fromEntries(
      symbols.map((s, k): [string, Evidence] => {
        const reached = tests.filter((_, i) => (i + k) % 4 === 0);
        const killers = reached.slice(0, 12);
        if (k % 2 === 1)
          return [
            s,
            {
              status: 'missing' as const,
              killed: [],
              reached,
              insensitive: reached,
              tautologies: [],
              reason: 'no reaching test killed a behavioural mutant',
            },
          ];
        return [
          s,
          {
            status: 'credited' as const,
            killed: killers.flatMap((t, j) => [
              { test: t, mutant: `${s}#m${j}` },
              { test: t, mutant: `${s}#m${j + 12}` },
            ]),
            reached,
            insensitive: reached.slice(12),
            tautologies: [],
            mutants: killers.map((t, j) => ({
              id: `${s}#m${j}`,
              kind: 'behavioural' as const,
              description: `a + b -> a - b at line ${j + 3}`,
              outcome: 'killed' as const,
              killed_by: [t],
            })),
          },
        ];
      }),
    );
    writeFileSync(
      join(r.dir, LAYOUT.cases),
      toJsonText({ changed: symbols, cases, digest: r.digest, runner_job: RUNNER }),
    );
    const credit = propertyCredit('credit-large', symbols, cases, r.digest);
    // Half the symbols lack credit (the oracle's evidence says so): the report must name a few reaching tests for each.
    assert.equal(credit.missing.length, SYMBOLS / 2);
    writeFileSync(
      join(r.dir, LAYOUT.credit),
      toJsonText({
        ...credit,
        runner_job: RUNNER,
        proposal_id: 'p-2026-10-12-014',
        patch_sha256: r.patchSha256,
        changed: symbols,
        uncreditable: [],
        evidence,
      }),
    );
    const out = async (format: string) =>
      (await runCli(['explain', '--repo', r.dir, '--now', NOW, '--format', format], { cwd: r.dir })).stdout;
    const text = await out('text');
    const md = await out('md');
    for (const [name, body] of [
      ['text', text],
      ['md', md],
    ] as const) {
      const bytes = Buffer.byteLength(body);
      assert.ok(bytes < LIMIT, `${name} report is ${bytes} bytes`);
      for (const s of symbols) assert.ok(body.includes(s), `${name} names ${s}`);
    }
    // Per symbol: the decisive mutant and test, the count of reaching tests, at most a few names.
    assert.match(text, /decisive: mutant m0 \(a \+ b -> a - b at line 3\) killed by test\/module00\//);
    assert.match(text, /reached by 300 test\(s\); 24 mutant kill\(s\) by 12 test\(s\); 288 insensitive/);
    assert.match(md, /\| 300 \|/);
    assert.match(
      text,
      /MISSING {2}src\/module00\/file1\.ts::function_with_a_realistic_name_1\n +reached by 300 test\(s\): test\/[^\n,]+ and 299 more, all insensitive \(killed nothing\)\n/,
    );
    // Everything else is in the JSON report.
    const json = JSON.parse(await out('json')) as { symbols: { reached: string[]; killed: unknown[] }[] };
    assert.equal(json.symbols.length, SYMBOLS);
    assert.equal(json.symbols[0]?.reached.length, 300);
    assert.equal(json.symbols[0]?.killed.length, 24);
    const html = await out('html');
    assert.match(html, /<details><summary>all 300<\/summary>/);
  } finally {
    r.dispose();
  }
});

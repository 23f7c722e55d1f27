import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { propertyCredit } from '../../src/credit/score/rule.js';
import type { Case } from '../../src/credit/schema.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/git.js';

const SAMPLE = {
  changed: ['apply_discount', 'tax_cents'],
  cases: [
    { id: 'prop-discount-bounds', digest: 'abc123', kind: 'property', status: 'passed', symbols: ['apply_discount'] },
    { id: 'prop-tax-identity', digest: 'abc123', kind: 'tautology', status: 'passed', symbols: ['tax_cents'] },
  ],
} as const;

describe('propertyCredit: the spec rule', () => {
  it("reproduces the spec's trace: apply_discount credited, tax_cents missing, pass false", () => {
    const c = propertyCredit(
      'credit-014',
      [...SAMPLE.changed],
      SAMPLE.cases.map((x) => ({ ...x, symbols: [...x.symbols] })),
      'abc123',
    );
    assert.deepEqual(c, {
      credit_id: 'credit-014',
      digest: 'abc123',
      credited: ['apply_discount'],
      test_ids: ['prop-discount-bounds'],
      missing: ['tax_cents'],
      tautologies: ['prop-tax-identity'],
      pass: false,
    });
  });
  it('a real bound on tax_cents on the same digest makes it pass', () => {
    const cases: Case[] = [
      ...SAMPLE.cases.map((x) => ({ ...x, symbols: [...x.symbols] })),
      { id: 'prop-tax-bound', digest: 'abc123', kind: 'property', status: 'passed', symbols: ['tax_cents'] },
    ];
    const c = propertyCredit('credit-015', ['apply_discount', 'tax_cents'], cases, 'abc123');
    assert.equal(c.pass, true);
    assert.deepEqual(c.test_ids, ['prop-discount-bounds', 'prop-tax-bound']);
  });
  it('fails closed: empty changed, uncreditable files, other digests and failed cases never pass', () => {
    assert.equal(propertyCredit('c', [], [], 'abc123').pass, false);
    const good: Case = { id: 't', digest: 'abc123', kind: 'property', status: 'passed', symbols: ['f'] };
    assert.equal(propertyCredit('c', ['f'], [good], 'abc123').pass, true);
    assert.equal(propertyCredit('c', ['f'], [good], 'abc123', ['Makefile']).pass, false);
    assert.equal(propertyCredit('c', ['f'], [{ ...good, digest: 'abc124' }], 'abc123').pass, false);
    for (const status of ['failed', 'error', 'skipped'] as const)
      assert.equal(propertyCredit('c', ['f'], [{ ...good, status }], 'abc123').pass, false);
  });

  const sym = fc.constantFrom('a', 'b', 'c', 'd');
  const arbCase = fc.record({
    id: fc.string({ minLength: 1, maxLength: 4 }),
    digest: fc.constantFrom('abc123', 'def456'),
    kind: fc.constantFrom('property', 'tautology'),
    status: fc.constantFrom('passed', 'failed', 'error', 'skipped'),
    symbols: fc.uniqueArray(sym, { maxLength: 3 }),
  }) as fc.Arbitrary<Case>;
  const arbInput = fc.record({
    changed: fc.uniqueArray(sym, { maxLength: 4 }),
    cases: fc.array(arbCase, { maxLength: 8 }),
    uncreditable: fc.uniqueArray(fc.constantFrom('x.lock', 'Makefile'), { maxLength: 1 }),
  });

  it('property: pass holds exactly when changed is non-empty, nothing is missing and nothing is uncreditable', () => {
    fc.assert(
      fc.property(arbInput, ({ changed, cases, uncreditable }) => {
        const c = propertyCredit('id', changed, cases, 'abc123', uncreditable);
        assert.equal(c.pass, changed.length > 0 && c.missing.length === 0 && uncreditable.length === 0);
        assert.deepEqual([...c.credited, ...c.missing].sort(), [...changed].sort());
      }),
    );
  });
  it('property: only passed non-tautology cases on the digest earn credit, and only for changed symbols', () => {
    fc.assert(
      fc.property(arbInput, ({ changed, cases }) => {
        const c = propertyCredit('id', changed, cases, 'abc123');
        const earning = cases.filter((x) => x.digest === 'abc123' && x.status === 'passed' && x.kind === 'property');
        const expected = new Set(earning.flatMap((x) => x.symbols).filter((s) => (changed as string[]).includes(s)));
        assert.deepEqual(c.credited, [...expected].sort());
        for (const t of c.test_ids) assert.ok(earning.some((x) => x.id === t));
        for (const t of c.tautologies)
          assert.ok(
            cases.some((x) => x.id === t && x.kind === 'tautology' && x.status === 'passed' && x.digest === 'abc123'),
          );
      }),
    );
  });
  it('property: adding a tautology never changes the credit', () => {
    fc.assert(
      fc.property(arbInput, arbCase, ({ changed, cases }, extra) => {
        const before = propertyCredit('id', changed, cases, 'abc123');
        const after = propertyCredit('id', changed, [...cases, { ...extra, kind: 'tautology' }], 'abc123');
        assert.deepEqual(
          [after.credited, after.missing, after.pass, after.test_ids],
          [before.credited, before.missing, before.pass, before.test_ids],
        );
      }),
    );
  });
});

describe('sealgate credit --cases: the strict case file', () => {
  const run = async (text: string | Uint8Array, ...extra: string[]) => {
    const t = tempDir();
    try {
      writeFileSync(join(t.dir, 'cases.json'), text);
      return await runCli(['credit', '--cases', 'cases.json', ...extra], { cwd: t.dir });
    } finally {
      t.dispose();
    }
  };
  const sample = JSON.stringify(SAMPLE, null, 2) + '\n';

  it("applies the rule to the spec's sample and exits 1 with the missing symbol", async () => {
    const r = await run(sample, '--digest', 'abc123');
    assert.equal(r.exit, 1);
    const c = JSON.parse(r.stdout) as { credited: string[]; missing: string[]; pass: boolean; credit_id: string };
    assert.deepEqual([c.credited, c.missing, c.pass], [['apply_discount'], ['tax_cents'], false]);
    assert.match(c.credit_id, /^credit-[0-9a-f]{16}$/);
    assert.match(r.stderr, /missing: tax_cents/);
  });
  it('cases on another digest earn nothing', async () => {
    const r = await run(sample, '--digest', 'def456');
    assert.deepEqual((JSON.parse(r.stdout) as { credited: string[] }).credited, []);
  });
  it('--out writes the credit and prints PASS or E_CREDIT_MISSING', async () => {
    const t = tempDir();
    try {
      writeFileSync(
        join(t.dir, 'cases.json'),
        JSON.stringify({
          changed: ['f'],
          cases: [{ id: 't', digest: 'abc123', kind: 'property', status: 'passed', symbols: ['f'] }],
        }) + '\n',
      );
      const r = await runCli(['credit', '--cases', 'cases.json', '--digest', 'abc123', '--out', 'credit.json'], {
        cwd: t.dir,
      });
      assert.deepEqual([r.exit, r.stdout], [0, 'PASS\n']);
    } finally {
      t.dispose();
    }
  });

  const j = (v: unknown): string => `${JSON.stringify(v)}\n`;
  const hostile: [string, string | Uint8Array, RegExp][] = [
    ['truncated', sample.slice(0, sample.length - 20), /not valid JSON/],
    ['trailing garbage', `${sample}{}\n`, /trailing content/],
    ['duplicate key', sample.replace('"changed":', '"changed": [], "changed":'), /duplicate key "changed"/],
    [
      'duplicate case id',
      j({
        changed: ['a'],
        cases: [
          { id: 't', digest: 'abc123', kind: 'property', status: 'passed', symbols: ['a'] },
          { id: 't', digest: 'abc123', kind: 'property', status: 'failed', symbols: ['a'] },
        ],
      }),
      /case ids must not repeat/,
    ],
    ['unknown key', j({ ...SAMPLE, extra: 1 }), /extra/],
    [
      'unknown case key',
      j({
        changed: ['a'],
        cases: [{ id: 't', digest: 'abc123', kind: 'property', status: 'passed', symbols: ['a'], credited: true }],
      }),
      /credited/,
    ],
    ['kind the spec does not have', sample.replace('"tautology"', '"property-ish"'), /cases\.1\.kind/],
    ['status as a boolean', sample.replace('"passed"', 'true'), /cases\.0\.status/],
    [
      'symbols repeated',
      j(SAMPLE).replace('["apply_discount"]', '["apply_discount","apply_discount"]'),
      /symbols must not repeat/,
    ],
    ['a digest that is not hex', sample.replace('"abc123"', '"ABC123"'), /cases\.0\.digest/],
    ['BOM', new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from(sample)]), /byte-order mark/],
    ['deep nesting', `${'['.repeat(100)}${']'.repeat(100)}\n`, /nesting/],
    ['not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d, 0x0a]), /UTF-8/],
    ['oversized', Buffer.alloc(17 * 1024 * 1024, 0x20), /cap/],
    ['empty', '', /./],
    ['cut before its closing brace', JSON.stringify(SAMPLE).slice(0, -1), /not valid JSON/],
  ];
  for (const [name, text, why] of hostile) {
    it(`refuses ${name} with E_INPUT_INVALID`, async () => {
      const r = await run(text, '--digest', 'abc123');
      assert.equal(r.stdout, 'E_INPUT_INVALID\n', r.stderr);
      assert.equal(r.exit, 1);
      assert.match(r.stderr, /cases\.json/);
      assert.match(r.stderr, why);
    });
  }
  it('JSON without a final newline is accepted (as most writers save it)', async () => {
    const r = await run(JSON.stringify(SAMPLE), '--digest', 'abc123');
    assert.equal(r.exit, 1, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as { missing: string[] }).missing, ['tax_cents']);
  });
  it('CRLF line ends are fine JSON whitespace', async () => {
    const r = await run(sample.replace(/\n/g, '\r\n'), '--digest', 'abc123');
    assert.equal(r.exit, 1);
    assert.deepEqual((JSON.parse(r.stdout) as { missing: string[] }).missing, ['tax_cents']);
  });
  it('argument mistakes are usage errors', async () => {
    for (const argv of [
      ['credit', '--cases', 'x.json'],
      ['credit', '--cases', 'x.json', '--digest', 'XYZ'],
      ['credit', '--cases', 'x.json', '--digest', 'abc123', '--runner-job', 'r'],
      ['credit'],
      ['credit', '--runner-job', 'has space'],
    ]) {
      const r = await runCli(argv);
      assert.equal(r.exit, 2, argv.join(' '));
      assert.equal(r.stdout, 'E_INPUT_INVALID\n');
    }
  });
});

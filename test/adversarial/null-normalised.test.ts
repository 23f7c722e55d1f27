import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRICING, TAX, TESTS, assertNoCredit, refundTax, replaceTaxTest, runScenario } from './scenario.js';

// Tests that read taxCents's source and compare it, normalised, with a pinned copy. Each one
// "kills" the revert and every behavioural mutant (they change the tokens) while checking no
// behaviour. When each null change had a run of its own, a test that normalised one kind of
// change away was still caught by the others. Now one null mutant makes every change at once:
// - `comments stripped` ignores comments (with the empty statement a comment null leaves) and
//   sees every other change;
// - each `only <kind>` test normalises away all but one kind, so it passes the null mutant, and
//   earns credit, if the null mutant leaves that kind out.
// None may earn anything: each fails the null mutant and is reported source-sensitive.

/** Normalisers over the function's source text, as JS source (the test file and this file both use them). */
const STRIP_COMMENTS = String.raw`.replace(/\s*\/\*[\s\S]*?\*\/;?/g, '').replace(/\/\/[^\n]*/g, '')`;
// The renamed local is the old name and six letters drawn from a secret (noiseFor): this undoes any such suffix.
const UNRENAME = String.raw`.replace(/([A-Za-z]\w*?)_[a-z]{6}\b/g, '$1')`;
const NO_NOOP = String.raw`.replace(/void\s*0/g, '')`;
const NO_SEMI = String.raw`.replace(/;/g, '')`;
const NO_SPACE = String.raw`.replace(/\s+/g, '')`;
const NO_BLANKS = String.raw`.replace(/[ \t]+/g, '')`;

const NORMALISED: Record<string, string> = {
  'comments stripped': STRIP_COMMENTS,
  'only a comment': NO_SPACE + NO_NOOP + NO_SEMI + UNRENAME,
  'only a line break': STRIP_COMMENTS + NO_NOOP + NO_SEMI + NO_BLANKS + UNRENAME,
  'only a no-op statement': STRIP_COMMENTS + NO_SPACE + NO_SEMI + UNRENAME,
  'only a renamed local': STRIP_COMMENTS + NO_SPACE + NO_NOOP + NO_SEMI,
};

/** taxCents's text in a file's source. */
function region(text: string): string {
  const start = text.indexOf('export function taxCents');
  return text.slice(start, text.indexOf('\n}', start) + 2);
}

/** The same normaliser applied here, to the patched source, gives the pinned value. */
function normalise(chain: string, s: string): string {
  // Each chain is a list of .replace calls with literal regexes: apply them one by one.
  let out = s;
  for (const m of chain.matchAll(/\.replace\(\/(.+?)\/g, '(.*?)'\)/g))
    out = out.replace(new RegExp(m[1] as string, 'g'), m[2] as string);
  return out;
}

test(
  'tests that normalise away some kinds of null change still fail the one null mutant (no credit)',
  { timeout: 600_000 },
  async () => {
    const production = refundTax();
    assert.ok(
      production.includes('const exact = ') && production.includes('// Refunds'),
      'taxCents has a local to rename and a comment',
    );
    const tests = Object.entries(NORMALISED)
      .map(([name, chain]) => {
        const pinned = normalise(chain, region(production));
        // The file's name is built at run time, past the classifier's static rule (a test file that
        // reads a production file by name: test/adversarial/reads-production-file.test.ts), so that
        // what catches these tests here is the null mutant.
        // Checks that the pinned value differs from the base's (so the revert fails it) are below.
        return `  test('tax source, ${name}', () => {
    const text = readFileSync(new URL(['..', 'src', 'pri' + 'cing.ts'].join('/'), import.meta.url), 'utf8');
    const start = text.indexOf('export function taxCents');
    const got = text.slice(start, text.indexOf('\\n}', start) + 2)${chain};
    taxCents(1999, 800);
    assert.equal(got, ${JSON.stringify(pinned)});
  });
`;
      })
      .join('');
    const o = await runScenario({ [PRICING]: production, [TESTS]: replaceTaxTest(tests) });
    assertNoCredit(o, TAX);
    const ev = o.credit.evidence?.[TAX];
    const nulls = ev?.mutants?.filter((m) => m.kind === 'null') ?? [];
    assert.equal(nulls.length, 1, `one null mutant: ${JSON.stringify(ev?.mutants)}`);
    assert.match(
      nulls[0]?.description ?? '',
      /^null: a no-op statement, a comment, a line break and a renamed local \(exact -> exact_[a-z]{6}\) added$/,
    );
    for (const name of Object.keys(NORMALISED)) {
      const id = `pricing::tax source, ${name}`;
      // It passed the baseline and the control (it reached the symbol) and would have earned credit:
      assert.ok(ev?.reached.includes(id), `${id} reaches taxCents: ${JSON.stringify(ev)}`);
      assert.ok(
        !ev?.tautologies.includes(id),
        `${id} is not caught by the classifier: only the null mutant can catch it`,
      );
      assert.ok(
        ev?.mutants?.some((m) => m.kind !== 'null' && m.kind !== 'probe' && m.killed_by.includes(id)),
        `${id} kills a revert or behavioural mutant: ${JSON.stringify(ev?.mutants)}`,
      );
      // but it fails the null mutant, so it earns nothing.
      assert.ok(nulls[0]?.killed_by.includes(id), `${id} fails the null mutant: ${JSON.stringify(nulls)}`);
      assert.ok(
        ev?.sensitive?.some((s) => s.test === id && s.reason.includes('null mutant')),
        `${id} is reported source-sensitive: ${JSON.stringify(ev?.sensitive)}`,
      );
    }
  },
);

test('each normaliser sees exactly the kinds of change it claims to (checked without a run)', () => {
  const source = region(refundTax());
  // The single changes the null mutant combines, made by hand on the region.
  const open = source.indexOf('{') + 1;
  const insert = (s: string): string => source.slice(0, open) + s + source.slice(open);
  const single: Record<string, string> = {
    comment: insert(' /* kvorlixa */;'),
    'line break': insert(' \n;'),
    'no-op statement': insert(' void 0;'),
    'renamed local': source.replace(/\bexact\b/g, 'exact_qmztbw'),
  };
  const sees: Record<string, string[]> = {
    'comments stripped': ['line break', 'no-op statement', 'renamed local'],
    'only a comment': ['comment'],
    'only a line break': ['line break'],
    'only a no-op statement': ['no-op statement'],
    'only a renamed local': ['renamed local'],
  };
  for (const [name, chain] of Object.entries(NORMALISED)) {
    const pinned = normalise(chain, source);
    const seen = Object.entries(single)
      .filter(([, text]) => normalise(chain, text) !== pinned)
      .map(([kind]) => kind);
    assert.deepEqual(seen, sees[name], name);
  }
  // The base version differs under every normaliser (so each test fails the revert).
  const baseRegion = region(
    refundTax().replace(
      /\/\/ Refunds[^\n]*\n {2}const exact = [^\n]*\n {2}return Math\.sign\(amountCents\) \* Math\.round\(exact\);/,
      '  return Math.round((amountCents * rateBasisPoints) / 10_000);',
    ),
  );
  assert.ok(baseRegion.includes('return Math.round((amountCents * rateBasisPoints)'));
  for (const chain of Object.values(NORMALISED))
    assert.notEqual(normalise(chain, baseRegion), normalise(chain, source));
});

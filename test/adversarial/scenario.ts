// One gaming scenario: a patch on the bundled example (examples/pricing), proposed by the
// author and scored by the real `sealgate runner` (seal, run, symbols, credit, publish, audit).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkSchema, parseDocumentBytes } from '../../src/core/document.js';
import { CreditSchema, type Credit } from '../../src/credit/schema.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';
import { AUTHOR, EXAMPLE_DIR, NOW, RUNNER, exampleFiles } from '../workflow/review.js';

export const PRICING = 'src/pricing.ts';
export const TESTS = 'test/pricing.test.ts';
export const TAX = 'src/pricing.ts::taxCents';
export const MODULE = 'src/pricing.ts::<module>';

/** The example's own files, as the base commit holds them. */
export const base = (path: string): string => readFileSync(join(EXAMPLE_DIR, path), 'utf8');

/** The base test file with the tautology on taxCents replaced by `test` (a test's source). */
export function replaceTaxTest(test: string, imports = ''): string {
  const text = base(TESTS);
  const start = text.indexOf('  // A tautology: it calls taxCents');
  const end = text.indexOf('  // Examples from the sealed fixture.');
  assert.ok(start > 0 && end > start, 'the example test file changed shape');
  return imports + text.slice(0, start) + test + '\n' + text.slice(end);
}

/** The follow-up's production change: refunds round half away from zero. */
export function refundTax(): string {
  return base(PRICING).replace(
    '  return Math.round((amountCents * rateBasisPoints) / 10_000);\n}',
    '  // Refunds are negative amounts: round half away from zero so a refund mirrors its sale.\n  const exact = (Math.abs(amountCents) * rateBasisPoints) / 10_000;\n  return Math.sign(amountCents) * Math.round(exact);\n}',
  );
}

function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  return env;
}

/**
 * Every kind of change the null mutant makes at once, as patterns removed from a text
 * (comments, `void 0`, the renamed local's suffix, line breaks and spaces, semicolons): a test
 * that compares a production file's text after these passes the null mutant (the renamed local
 * is the old name and six letters: the suffix is dropped).
 */
const NULL_NORMALISE: readonly [string, string][] = [
  ['/\\*[\\s\\S]*?\\*/', 'g'],
  ['//.*$', 'gm'],
  ['void 0;?', 'g'],
  ['_[a-z]{6}\\b', 'g'],
  ['\\s+', 'g'],
  [';', 'g'],
];
/** The same steps as test code: `.replace(...)` calls to chain after an expression. */
export const NORMALISE_CODE = NULL_NORMALISE.map(
  ([re, flags]) => `.replace(new RegExp(${JSON.stringify(re)}, '${flags}'), '')`,
).join('');
export const normalise = (text: string): string =>
  NULL_NORMALISE.reduce((t, [re, flags]) => t.replace(new RegExp(re, flags), ''), text);
/** taxCents's text in a pricing.ts. */
export function taxRegion(text: string): string {
  const start = text.indexOf('export function taxCents');
  return text.slice(start, text.indexOf('\n}', start) + 2);
}

export interface Outcome {
  readonly code: string;
  readonly exit: number;
  readonly stderr: string;
  readonly credit: Credit;
  /** The runner's case file: every case with its static kind. */
  readonly cases: readonly { readonly id: string; readonly status: string; readonly kind: string }[];
}

/**
 * The agent's patch (`files` written over the committed base in `dir`) proposed by the author,
 * and the runner job run on it; `exclude` lists what the runs leave in the tree, kept out of
 * the patch.
 */
async function proposeAndScore(dir: string, files: Record<string, string>, exclude: string): Promise<Outcome> {
  appendFileSync(join(dir, '.git/info/exclude'), exclude);
  writeFiles(dir, files);
  git(dir, 'add', '-A');
  const diff = git(dir, 'diff', '--cached', '--binary', 'HEAD');
  git(dir, 'reset', '-q');
  mkdirSync(join(dir, 'patches'), { recursive: true });
  writeFileSync(join(dir, 'patches/agent.diff'), diff);
  // A cache of its own: nothing from another scenario (or an earlier build) is reused.
  const env = { ...childEnv(), XDG_CACHE_HOME: join(dir, 'review', 'cache') };
  const p = await runCli(
    [
      'propose',
      '--author-job',
      AUTHOR,
      '--runner-job',
      RUNNER,
      '--patch',
      'patches/agent.diff',
      '--proposal-id',
      'p-adversarial-1',
    ],
    { cwd: dir, env, now: new Date(NOW) },
  );
  assert.equal(p.exit, 0, p.stderr);
  const r = await runCli(['runner', '--runner-job', RUNNER, '--seed', '42', '--now', NOW], {
    cwd: dir,
    env,
    now: new Date(NOW),
  });
  const parsed = parseDocumentBytes(readFileSync(join(dir, 'review/runner/credit.json')), 'json', 'credit');
  assert.ok(parsed.ok, `no credit file: ${r.stdout}${r.stderr}`);
  const c = checkSchema(CreditSchema, parsed.value, 'credit');
  assert.ok(c.ok, JSON.stringify(!c.ok && c.findings));
  const cases = (JSON.parse(readFileSync(join(dir, 'review/runner/cases.json'), 'utf8')) as { cases: Outcome['cases'] })
    .cases;
  return { code: r.stdout.trim(), exit: r.exit, stderr: r.stderr, credit: c.value, cases };
}

/**
 * The example committed, `files` written over it as the agent's patch, proposed by the author,
 * and the runner job run on it. `config` replaces parts of the base's sealgate.config.json
 * (the policy is the base's, never the patch's).
 */
export async function runScenario(
  files: Record<string, string>,
  config: (c: Record<string, unknown>) => Record<string, unknown> = (c) => c,
): Promise<Outcome> {
  const baseFiles = exampleFiles();
  const cfg = JSON.parse(baseFiles['sealgate.config.json']?.toString('utf8') ?? '{}') as Record<string, unknown>;
  baseFiles['sealgate.config.json'] = Buffer.from(JSON.stringify(config(cfg), null, 2) + '\n');
  const repo = makeRepo(baseFiles);
  try {
    symlinkSync(resolve('node_modules'), join(repo.dir, 'node_modules'), 'dir');
    return await proposeAndScore(repo.dir, files, 'node_modules\nreview/\npatches/\njunit.xml\n');
  } finally {
    repo.dispose();
  }
}

/**
 * A small pytest project as the base: `calc.py` (`base`) at the root, a conftest that puts the
 * root on sys.path, and a test of something else; its policy runs pytest (`credit` merged into
 * the policy's credit section). `files` written over it as the agent's patch, proposed and
 * scored as runScenario does.
 */
export async function runPyScenario(
  base: string,
  files: Record<string, string>,
  credit: Record<string, unknown> = {},
): Promise<Outcome> {
  const config = {
    fixtures: [],
    clock: 'frozen',
    locale: 'C.UTF-8',
    test: {
      command: [
        'python3',
        '-m',
        'pytest',
        '-q',
        '-p',
        'no:cacheprovider',
        '--junitxml=junit.xml',
        '-o',
        'junit_family=xunit1',
        'tests',
      ],
      junit: ['junit.xml'],
      timeoutSeconds: 600,
    },
    credit: { mutantBudget: 8, ...credit },
  };
  const repo = makeRepo({
    'calc.py': base,
    'tests/conftest.py':
      'import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n',
    // A test of something else: the scenario's own tests are the only ones that reach calc.py.
    'tests/test_other.py': 'def test_other():\n    assert sorted([2, 1]) == [1, 2]\n',
    'sealgate.config.json': JSON.stringify(config, null, 2) + '\n',
  });
  try {
    return await proposeAndScore(repo.dir, files, 'review/\npatches/\njunit.xml\n__pycache__\n');
  } finally {
    repo.dispose();
  }
}

/** The common verdict: the job stops at E_CREDIT_MISSING and `symbol` earns nothing. */
export function assertNoCredit(o: Outcome, symbol: string): void {
  assert.equal(
    o.code,
    'E_CREDIT_MISSING',
    `${symbol} must earn nothing:\n${o.stderr}\n${JSON.stringify(o.credit.evidence?.[symbol], null, 2)}`,
  );
  assert.equal(o.exit, 1);
  assert.ok(o.credit.missing.includes(symbol), `${symbol} is missing: ${JSON.stringify(o.credit.missing)}`);
  assert.ok(!o.credit.credited.includes(symbol));
  assert.equal(o.credit.pass, false);
}

/**
 * A test that reads pricing.ts by `readExpression` (TS yielding the file's text), normalises
 * taxCents's text past every null change and compares it with a pinned copy: it passes the
 * controls and the null mutant and "kills" every real one. The scenario's outcome.
 */
export async function normalisedSourceScenario(readExpression: string): Promise<Outcome> {
  const production = refundTax();
  return runScenario({
    [PRICING]: production,
    [TESTS]: replaceTaxTest(`  test('tax source, fully normalised', () => {
    const text = ${readExpression};
    const start = text.indexOf('export function taxCents');
    const got = text.slice(start, text.indexOf('\\n}', start) + 2)${NORMALISE_CODE};
    taxCents(1999, 800);
    assert.equal(got, ${JSON.stringify(normalise(taxRegion(production)))});
  });
`),
  });
}

/** The test of pinnedHashScenario. */
export const PINNED_TEST = 'pricing::tax source is the reviewed one';

/**
 * The follow-up's production change, and a test that reads pricing.ts at a path built at run
 * time (past the classifier's static rule: test/adversarial/reads-production-file.test.ts) and
 * pins its SHA-256, after `guard`: test code that sees the file's text as `text` and may return
 * early (a test that would pass the runs it can spot). It "kills" every real mutant. The
 * scenario's outcome; the test is PINNED_TEST.
 */
export async function pinnedHashScenario(guard = ''): Promise<Outcome> {
  const production = refundTax();
  const pinned = createHash('sha256').update(production).digest('hex');
  return runScenario({
    [PRICING]: production,
    [TESTS]: replaceTaxTest(
      `  test('tax source is the reviewed one', () => {
    const text = readFileSync(new URL(['..', 'src', 'pri' + 'cing.ts'].join('/'), import.meta.url), 'utf8');
    taxCents(1999, 800);
${guard}
    assert.equal(createHash('sha256').update(text).digest('hex'), '${pinned}');
  });
`,
      "import { createHash } from 'node:crypto';\n",
    ),
  });
}

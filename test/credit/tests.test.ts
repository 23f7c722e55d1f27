import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readTestSources } from '../../src/credit/lang/tests.js';
import { readsProductionSource } from '../../src/credit/tests/source-text.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { tempDir, writeFiles } from '../helpers/git.js';

// A test file that reads the text of a production file of the patch earns nothing: a comparison
// of that text can be normalised past the null mutant (test/adversarial/reads-production-file).

describe('readsProductionSource', () => {
  const prod = ['src/pricing.ts', 'parse.py'];
  it('a file-reading call and the file named in a string: flagged (Node fs, URL, path.join; Python open, pathlib)', () => {
    for (const text of [
      "const t = readFileSync(new URL('../src/pricing.ts', import.meta.url), 'utf8');",
      "const t = await readFile(join(__dirname, '..', 'src', \"pricing.ts\"));",
      'const s = fs.createReadStream(`${root}/src/pricing.ts`);',
      "with open(os.path.join(os.path.dirname(__file__), '..', 'parse.py')) as f:\n    src = f.read()",
      "src = (Path(__file__).parent.parent / 'parse.py').read_text()",
      // A reader named like a mock or require is not a module specifier: only jest./vi. mocks, require( and import( are.
      "const mock = (p) => readFileSync(p, 'utf8');\nconst t = mock('../src/pricing.ts');",
      "const t = readFileSync(require.resolve('../src/pricing.ts'), 'utf8');",
    ])
      assert.match(readsProductionSource(text, prod) ?? '', /reads the text of (src\/pricing\.ts|parse\.py)/, text);
  });
  it('imports, requires and mocks name production files without reading them: not flagged', () => {
    for (const text of [
      "import { readFileSync } from 'node:fs';\nimport { taxCents } from '../src/pricing.ts';\nconst f = readFileSync(new URL('../fixtures/orders.json', import.meta.url));",
      "const { readFileSync } = require('fs');\nconst p = require('../src/pricing.ts');\nreadFileSync('x.json');",
      "vi.mock('../src/pricing.ts', () => ({}));\nreadFileSync('data.txt');",
      'jest.mock("../src/pricing.ts");\nopen(\'log.txt\');',
      "export { taxCents } from './pricing.ts';\nreadFileSync('a.json');",
      "const m = await import('../src/pricing.ts');\nreadFileSync('a.json');",
    ])
      assert.equal(readsProductionSource(text, prod), null, text);
  });
  it('a TS file named as an import names it (pricing.js), or by a path without its extension: flagged', () => {
    for (const text of [
      "readFileSync(new URL(import.meta.resolve('../src/pricing.js')), 'utf8')",
      'readFileSync(require.resolve("../src/pricing"))',
      "readFileSync(require.resolve('./pricing.js'))",
    ])
      assert.match(readsProductionSource(text, prod) ?? '', /reads the text of src\/pricing\.ts/, text);
    assert.match(
      readsProductionSource("readFileSync(require.resolve('./app.mjs'))", ['lib/app.mts']) ?? '',
      /lib\/app\.mts/,
    );
    // A test's name, another stem or a URL route is not a module path: not flagged.
    assert.equal(
      readsProductionSource("readFileSync(f); describe('pricing', () => {}); readFileSync('src/pricing.py')", prod),
      null,
    );
    assert.equal(
      readsProductionSource(
        "const body = readFileSync('test/fixture/order.json'); await request(app).get('/pricing');",
        prod,
      ),
      null,
    );
    assert.match(
      readsProductionSource("readFileSync(require.resolve('../../app/src/pricing'))", prod) ?? '',
      /src\/pricing\.ts/,
      'a relative path through several folders',
    );
  });
  it('the name without a read call, or another file whose name ends the same, is not flagged', () => {
    assert.equal(readsProductionSource("const label = 'src/pricing.ts';", prod), null);
    assert.equal(readsProductionSource("readFileSync('src/mypricing.ts'); readFileSync('pricing.tsx')", prod), null);
    assert.equal(readsProductionSource("open('parse.pyc')", prod), null);
    assert.equal(readsProductionSource("readFileSync('src/pricing.ts')", []), null);
  });
  it('property: a read of any production file by a quoted path ending in its name is flagged, whatever surrounds it', () => {
    const seg = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
    fc.assert(
      fc.property(
        fc.array(seg, { maxLength: 3 }),
        seg,
        fc.constantFrom('.ts', '.js', '.py', '.mjs'),
        fc.constantFrom("'", '"', '`'),
        fc.constantFrom('readFileSync', 'readFile', 'open', 'read_text'),
        fc.string({ maxLength: 30 }),
        (dirs, stem, ext, q, call, noise) => {
          const file = [...dirs, stem + ext].join('/');
          const text = `${noise.replace(/[`'"]/g, '')}\nconst x = ${call}(${q}../${file}${q});\n`;
          return readsProductionSource(text, [file]) !== null;
        },
      ),
    );
  });
});

describe('readTestSources with production files', () => {
  it('every test of a file that reads a production file is source-text; skipped ones stay skipped; other files are untouched', async () => {
    const t = tempDir();
    try {
      writeFiles(t.dir, {
        'src/pricing.ts': 'export const f = (a: number): number => a + 1;\n',
        'test/reads.test.ts':
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { readFileSync } from 'node:fs';\nimport { f } from '../src/pricing.ts';\ntest('a', () => { assert.equal(f(1), 2); });\ntest.skip('b', () => { assert.equal(f(2), 3); });\ntest('c', () => { assert.ok(readFileSync(new URL('../src/pricing.ts', import.meta.url), 'utf8').length > 0); });\n",
        'test/plain.test.ts':
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { f } from '../src/pricing.ts';\ntest('d', () => { assert.equal(f(1), 2); });\n",
      });
      const files = ['src/pricing.ts', 'test/plain.test.ts', 'test/reads.test.ts'];
      const before = await readTestSources(t.dir, DEFAULT_CONFIG, [], files);
      const after = await readTestSources(t.dir, DEFAULT_CONFIG, [], files, ['src/pricing.ts']);
      const verdict = (xs: typeof before, name: string) => xs.find((x) => x.name === name)?.verdict;
      assert.deepEqual(verdict(before, 'a'), { kind: 'property' });
      assert.equal(verdict(after, 'a')?.kind, 'tautology');
      assert.match(JSON.stringify(verdict(after, 'a')), /source-text.*src\/pricing\.ts/);
      assert.match(JSON.stringify(verdict(after, 'c')), /source-text/);
      assert.deepEqual(verdict(after, 'b'), verdict(before, 'b'));
      assert.match(JSON.stringify(verdict(after, 'b')), /skipped/);
      assert.deepEqual(verdict(after, 'd'), { kind: 'property' });
    } finally {
      t.dispose();
    }
  });
});

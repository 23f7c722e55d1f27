import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { lostNames, topLevelNames } from '../../src/credit/lang/index.js';

// A mutant (a revert above all) that takes away a top-level name it still uses cannot run: its
// ReferenceError or NameError "kills" every test that calls it. dayjs 8fda602b renamed
// `durationRegex` to `DURATION_REGEX_PARSE`, and the constructor's revert, which says
// `durationRegex`, was credited as if its tests told the two versions apart.

const sorted = (s: Set<string> | null): string[] | null => (s === null ? null : [...s].sort());

describe('top-level names', () => {
  it('TS/JS: imports (default, namespace, named, aliased), functions, classes, enums, every binding of a pattern; not a local', async () => {
    const text = [
      "import def, { a, b as bee } from './x.js';",
      "import * as ns from './y.js';",
      'export function f() { const local = 1; return local; }',
      'class K {}',
      'enum E { A }',
      'const { p, q: [r, , s] } = obj, t = 1;',
      'let u;',
      'export default function g() {}',
    ].join('\n');
    assert.deepEqual(sorted(await topLevelNames('typescript', 'a.ts', text)), [
      'E',
      'K',
      'a',
      'bee',
      'def',
      'f',
      'g',
      'ns',
      'p',
      'r',
      's',
      't',
      'u',
    ]);
  });
  it("Python: imports, definitions (decorated too), assignments (tuples), and those inside a top-level try or if; not a function's locals", async () => {
    const text =
      [
        'import os, json as j',
        'import a.b.c',
        'from .m import x, y as why',
        'try:',
        '    import fast as impl',
        'except ImportError:',
        '    impl = None',
        'if True:',
        '    FLAG = 1',
        'A, (B, C) = 1, (2, 3)',
        'N: int = 3',
        '@decorator',
        'def f():',
        '    local = 1',
        'class K:',
        '    attr = 2',
      ].join('\n') + '\n';
    // And a class's members as Class.member: K's class-level field.
    assert.deepEqual(sorted(await topLevelNames('python', 'm.py', text)), [
      'A',
      'B',
      'C',
      'FLAG',
      'K',
      'K.attr',
      'N',
      'a',
      'f',
      'impl',
      'j',
      'os',
      'why',
      'x',
    ]);
  });
});

describe('lostNames', () => {
  it('TS: a revert that says a renamed constant is invalid; a property, a key, a type or a declaration of that name is no use of it', async () => {
    const declared = new Set(['SCALE', 'FACTOR', 'total']);
    const revert = 'const FACTOR = 100;\nexport function total(xs: number[]): number { return sum(xs) * SCALE; }\n';
    assert.match(
      (await lostNames('typescript', 'calc.ts', declared, revert)) ?? '',
      /refers to SCALE, which the file no longer declares/,
    );
    const harmless =
      'const FACTOR = 100;\ntype T = SCALE;\nexport function total(o: { SCALE: number }): number { const k = { SCALE: 1 }; return o.SCALE * FACTOR + k.SCALE; }\n';
    assert.equal(await lostNames('typescript', 'calc.ts', declared, harmless), null);
    assert.match(
      (await lostNames(
        'typescript',
        'calc.ts',
        declared,
        'const FACTOR = 1;\nexport const total = () => ({ SCALE });\n',
      )) ?? '',
      /SCALE/,
      'a shorthand property uses the name',
    );
    // Every declared name still declared: nothing lost.
    assert.equal(
      await lostNames(
        'typescript',
        'calc.ts',
        declared,
        'const SCALE = 1, FACTOR = 2;\nexport function total() { return SCALE * FACTOR; }\n',
      ),
      null,
    );
  });
  it('Python: a revert that says a renamed constant is invalid; an attribute, a keyword argument or a parameter of that name is no use of it', async () => {
    const declared = new Set(['SCALE', 'FACTOR', 'total']);
    assert.match(
      (await lostNames(
        'python',
        'calc.py',
        declared,
        'FACTOR = 100\n\n\ndef total(xs):\n    return sum(xs) * SCALE // 100\n',
      )) ?? '',
      /refers to SCALE/,
    );
    assert.equal(
      await lostNames(
        'python',
        'calc.py',
        declared,
        'FACTOR = 100\n\n\ndef total(xs, SCALE=1):\n    return cfg.SCALE * FACTOR + f(SCALE=2)\n',
      ),
      null,
    );
    // A `<module>` revert that takes away what the patched function uses.
    assert.match(
      (await lostNames(
        'python',
        'calc.py',
        declared,
        'SCALE = 100\n\n\ndef total(xs):\n    return sum(xs) * FACTOR // 100\n',
      )) ?? '',
      /refers to FACTOR/,
    );
  });
  it("class members: a method or attribute of its own class the patch renamed, used as self.x or this.x, is lost; another object's attribute of that name is not", async () => {
    const pyBase =
      'class Cart:\n    def __init__(self):\n        self.items = []\n\n    def _scale(self):\n        return 100\n\n    def total(self):\n        return sum(self.items) * self._scale()\n';
    const pyPatched = pyBase.replace(/_scale/g, '_factor');
    const py = new Set([
      ...((await topLevelNames('python', 'c.py', pyBase)) ?? []),
      ...((await topLevelNames('python', 'c.py', pyPatched)) ?? []),
    ]);
    assert.ok(py.has('Cart._scale') && py.has('Cart._factor') && py.has('Cart.items'), JSON.stringify([...py]));
    // total's revert in the patched file: it calls self._scale(), which the class no longer has.
    const pyRevert = pyPatched.replace('self._factor()', 'self._scale()');
    assert.match((await lostNames('python', 'c.py', py, pyRevert)) ?? '', /refers to Cart\._scale, which/);
    assert.equal(
      await lostNames('python', 'c.py', py, pyPatched.replace('self._factor()', 'other._scale() + self._factor()')),
      null,
    );
    const tsBase =
      'export class Cart {\n  items: number[] = [];\n  #rate = 1;\n  constructor(private readonly scale: number) { this.extra = 0; }\n  total(): number { return this.items.length * this.scale * this.#rate + this.extra; }\n}\n';
    const tsPatched = tsBase.replace(/scale/g, 'factor').replace(/#rate/g, '#ratio');
    const ts = new Set([
      ...((await topLevelNames('typescript', 'c.ts', tsBase)) ?? []),
      ...((await topLevelNames('typescript', 'c.ts', tsPatched)) ?? []),
    ]);
    assert.ok(
      ['Cart.items', 'Cart.#rate', 'Cart.scale', 'Cart.extra', 'Cart.total'].every((n) => ts.has(n)),
      JSON.stringify([...ts]),
    );
    const tsRevert = tsPatched.replace('this.factor * this.#ratio', 'this.scale * this.#rate');
    assert.match(
      (await lostNames('typescript', 'c.ts', ts, tsRevert)) ?? '',
      /refers to Cart\.#rate, Cart\.scale, which/,
    );
    assert.equal(
      await lostNames('typescript', 'c.ts', ts, tsPatched.replace('this.items.length', 'other.scale')),
      null,
    );
  });

  it('property: a file that declares every name it uses loses none; taking one declaration away loses exactly that name', async () => {
    const ident = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/).map((s) => `v_${s}`);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(ident, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.boolean(),
        async (names, pick, python) => {
          const gone = names[pick % names.length] as string;
          const lang = python ? 'python' : 'typescript';
          const path = python ? 'm.py' : 'm.ts';
          const decl = (n: string): string => (python ? `${n} = 1\n` : `const ${n} = 1;\n`);
          const use = python
            ? `def use():\n    return ${names.join(' + ')}\n`
            : `export function use() { return ${names.join(' + ')}; }\n`;
          const whole = names.map(decl).join('') + use;
          const declared = (await topLevelNames(lang, path, whole)) ?? new Set<string>();
          assert.equal(await lostNames(lang, path, declared, whole), null);
          const less =
            names
              .filter((n) => n !== gone)
              .map(decl)
              .join('') + use;
          assert.match((await lostNames(lang, path, declared, less)) ?? '', new RegExp(`refers to ${gone}, which`));
        },
      ),
      { numRuns: 40 },
    );
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareFile, finishComparison, newComparison } from '../../src/symbols/compare.js';
import { MODULE, type FileSymbols } from '../../src/symbols/model.js';
import { extractWithTreeSitter } from '../../src/symbols/sitter.js';
import { extractTypeScript, loadTypeScript } from '../../src/symbols/lang/typescript.js';

type Lang = 'typescript' | 'python' | 'go' | 'java' | 'rust';

async function symbolsOf(lang: Lang, path: string, text: string, docstringChanges = false): Promise<FileSymbols> {
  if (lang === 'typescript') return extractTypeScript(await loadTypeScript(), path, text);
  return extractWithTreeSitter(lang, text, { docstringChanges });
}

async function names(lang: Lang, path: string, text: string): Promise<string[]> {
  const s = await symbolsOf(lang, path, text);
  assert.ok(s.parsed, `${path} parses`);
  return [...s.symbols.keys()].sort();
}

/** Compare two versions of one file, as a modified file, without git. */
async function diff(lang: Lang, path: string, before: string, after: string, docstringChanges = false) {
  const state = newComparison();
  const a = await symbolsOf(lang, path, before, docstringChanges);
  const b = await symbolsOf(lang, path, after, docstringChanges);
  compareFile(state, { path, oldPath: null, language: lang, oldSymbols: a, newSymbols: b, touched: [] });
  a.dispose?.();
  b.dispose?.();
  return finishComparison(state);
}

test('TypeScript naming: classes, members, accessors, fields, object literals, namespaces, defaults', async () => {
  const src = `
export class Cart {
  total = 0;
  handler = () => 1;
  constructor(private a: number) {}
  get n() { return 1 } set n(v) {}
  #secret() {}
  static make() {}
  method(): void;
  method(x?: number) {}
}
const obj = { m() {}, k: 1, sub: { z: () => 2 } };
export default function () {}
namespace N.M { export function g() {} }
function outer() { function inner() {} const arrow = () => 1; [1].map((x) => x); }
export const wrapped = memo(() => 1);
interface I { a: 1 }
type T = string;
exports.cjs = function () {};
`;
  assert.deepEqual(
    await names('typescript', 'a.ts', src),
    [
      MODULE,
      'Cart',
      'Cart.#secret',
      'Cart.constructor',
      'Cart.handler',
      'Cart.make',
      'Cart.method',
      'Cart.n',
      'I',
      'N.M',
      'N.M.g',
      'T',
      'default',
      'exports.cjs',
      'obj.m',
      'obj.sub.z',
      'outer',
      'outer.arrow',
      'outer.inner',
      'wrapped',
    ].sort(),
  );
  const s = await symbolsOf('typescript', 'a.ts', src);
  assert.equal(s.symbols.get('Cart.n')?.length, 2, 'getter and setter are one symbol');
  assert.deepEqual(
    s.symbols.get('Cart.method')?.map((p) => p.typeOnly),
    [true, false],
    'overload signature is type-only',
  );
  assert.deepEqual(
    s.symbols.get('I')?.map((p) => p.typeOnly),
    [true],
  );
  assert.deepEqual(await names('typescript', 'd.ts', 'export default class { m() {} }\n'), [
    MODULE,
    'default',
    'default.m',
  ]);
  assert.deepEqual(await names('typescript', 'n.ts', 'export default function render() {}\n'), [MODULE, 'render']);
});

test('Python naming: decorated functions, methods, properties, nested functions, __main__', async () => {
  const src = `import os
@decorator
def f():
    def inner():
        pass
class C:
    @property
    def p(self): return 1
    @p.setter
    def p(self, v): pass
    class D:
        def m(self): pass
if True:
    def conditional(): pass
g = lambda: 1
if __name__ == "__main__":
    def main(): pass
`;
  assert.deepEqual(
    await names('python', 'a.py', src),
    [MODULE, 'C', 'C.D', 'C.D.m', 'C.p', 'conditional', 'f', 'f.inner', 'g'].sort(),
  );
});

test('Python: symbols deep in bodies are found; bodies that spell no def, class or lambda hold none', async () => {
  const src = `def outer():
    x = 1
    for i in range(3):
        try:
            with open(p) as f:
                h = lambda: i
        except E:
            class Local:
                pass
    while x:
        if x > 2:
            async def deep(): pass
        else:
            return "default classify"
def plain():
    y = [undefined for v in w]
    return y
class Empty: pass
`;
  assert.deepEqual(
    await names('python', 'a.py', src),
    [MODULE, 'Empty', 'outer', 'outer.Local', 'outer.deep', 'outer.h', 'plain'].sort(),
  );
  assert.deepEqual(await names('python', 'b.py', 'x = 1\nprint(x)\n'), [MODULE]);
});

test('Go, Java and Rust naming', async () => {
  assert.deepEqual(
    await names(
      'go',
      'a.go',
      'package a\ntype T struct{}\nfunc (t *T) M() {}\nfunc (t G[K]) N() {}\nfunc F() {}\nvar h = func() {}\n',
    ),
    [MODULE, 'G.N', 'F', 'T', 'T.M', 'h'].sort(),
  );
  assert.deepEqual(
    await names(
      'java',
      'A.java',
      'class A { A() {} void m() {} void m(int x) {} class B { void n() {} } Runnable r = () -> {}; }\ninterface I { void s(); }\n',
    ),
    [MODULE, 'A', 'A.B', 'A.B.n', 'A.constructor', 'A.m', 'A.r', 'I', 'I.s'].sort(),
  );
  assert.deepEqual(
    await names(
      'rust',
      'a.rs',
      'struct S;\nimpl S { fn a() { fn nested() {} } }\nimpl X for S { fn a() {} }\ntrait Tr { fn req(&self); fn d(&self) {} }\nmod m { fn f() {} }\n#[cfg(test)]\nmod tests { fn t() {} }\nmacro_rules! mac { () => {} }\n',
    ),
    [MODULE, 'S', 'S.a', 'S.a.nested', 'Tr', 'Tr.d', 'Tr.req', 'm', 'm.f', 'mac'].sort(),
  );
});

test('a file that does not parse is reported, and counts as a changed module', async () => {
  for (const [lang, path, text] of [
    ['typescript', 'a.ts', 'function ('],
    ['python', 'a.py', 'def f(:\n'],
    ['go', 'a.go', 'package\nfunc {'],
    ['java', 'A.java', 'class {'],
    ['rust', 'a.rs', 'fn f( {'],
  ] as const) {
    const s = await symbolsOf(lang, path, text);
    assert.equal(s.parsed, false, path);
  }
  const r = await diff('python', 'a.py', 'def f():\n    return 1\n', 'def f(:\n    return 1\n');
  assert.deepEqual(r.changed, [`a.py::${MODULE}`]);
});

test('Python: indentation that moves a statement is a change; docstrings count only when configured', async () => {
  const a = 'def f(x):\n    if x:\n        x += 1\n        x *= 2\n    return x\n';
  const b = 'def f(x):\n    if x:\n        x += 1\n    x *= 2\n    return x\n';
  assert.deepEqual((await diff('python', 'a.py', a, b)).changed, ['a.py::f']);
  const d1 = 'def f():\n    """One."""\n    return 1\n';
  const d2 = 'def f():\n    """Two."""\n    return 1\n';
  assert.deepEqual((await diff('python', 'a.py', d1, d2)).changed, []);
  assert.deepEqual((await diff('python', 'a.py', d1, d2, true)).changed, ['a.py::f']);
  // A string that is not the first statement is code, not a docstring.
  assert.deepEqual(
    (await diff('python', 'a.py', 'def f():\n    x = 1\n    "a"\n', 'def f():\n    x = 1\n    "b"\n')).changed,
    ['a.py::f'],
  );
});

test('string contents are compared exactly; quote style in TypeScript is not behaviour', async () => {
  assert.deepEqual(
    (await diff('typescript', 'a.ts', 'export const f = () => "a  b";\n', 'export const f = () => "a b";\n')).changed,
    ['a.ts::f'],
  );
  assert.deepEqual(
    (await diff('typescript', 'a.ts', "export const f = () => 'x';\n", 'export const f = () => "x";\n')).changed,
    [],
  );
  assert.deepEqual(
    (
      await diff(
        'go',
        'a.go',
        'package a\nfunc F() string { return "a  b" }\n',
        'package a\nfunc F() string { return "a b" }\n',
      )
    ).changed,
    ['a.go::F'],
  );
  assert.deepEqual(
    (await diff('typescript', 'a.ts', 'export const r = () => /a b/;\n', 'export const r = () => /ab/;\n')).changed,
    ['a.ts::r'],
  );
  assert.deepEqual(
    (
      await diff(
        'typescript',
        'a.ts',
        'export const t = (x: number) => `a ${x}  b`;\n',
        'export const t = (x: number) => `a ${x} b`;\n',
      )
    ).changed,
    ['a.ts::t'],
  );
});

test('TypeScript: a newline that automatic semicolon insertion reads is a change', async () => {
  const r = await diff(
    'typescript',
    'a.ts',
    'export function f(x: number) {\n  return x;\n}\n',
    'export function f(x: number) {\n  return\n  x;\n}\n',
  );
  assert.deepEqual(r.changed, ['a.ts::f']);
});

test('moves: a unique body match is a move; two candidates are not', async () => {
  const r = await diff('typescript', 'a.ts', 'function a() { return 1 }\n', 'function b() { return 1 }\n');
  assert.deepEqual(r.moved, [{ from: 'a.ts::a', to: 'a.ts::b' }]);
  assert.deepEqual(r.changed, []);
  const amb = await diff(
    'typescript',
    'a.ts',
    'function a() { return 1 }\nfunction b() { return 1 }\n',
    'function c() { return 1 }\n',
  );
  assert.deepEqual(amb.moved, []);
  assert.deepEqual(amb.changed, ['a.ts::c']);
  assert.deepEqual(amb.deleted, ['a.ts::a', 'a.ts::b']);
});

// ---- properties

const ident = fc.constantFrom('a', 'b', 'c', 'n', 'x');
const fnSpec = fc.record({ param: ident, k: fc.integer({ min: 0, max: 999 }), op: fc.constantFrom('+', '-', '*') });
const gap = fc.constantFrom(' ', '  ', '\n', ' /* note */ ', ' // note\n', '\n\n  ');

function renderTs(fns: { param: string; k: number; op: string }[], gaps: string[]): string {
  let g = 0;
  const s = () => gaps[g++ % gaps.length] ?? ' ';
  return fns
    .map(
      (f, i) =>
        ['function', `f${i}`, '(', f.param, ')', '{', `return ${f.param}`, f.op, String(f.k), ';', '}'].join(s()) +
        '\n',
    )
    .join('');
}

test('property: comments and whitespace between TypeScript tokens never change a symbol', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fnSpec, { minLength: 1, maxLength: 5 }),
      fc.array(gap, { minLength: 1, maxLength: 7 }),
      fc.array(gap, { minLength: 1, maxLength: 7 }),
      async (fns, g1, g2) => {
        const r = await diff('typescript', 'p.ts', renderTs(fns, [' ']), renderTs(fns, [...g1, ...g2]));
        assert.deepEqual([r.changed, r.moved, r.deleted, r.typeOnly], [[], [], [], []]);
      },
    ),
    { numRuns: 60 },
  );
});

test('property: changing one constant changes exactly that TypeScript function', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fnSpec, { minLength: 1, maxLength: 5 }),
      fc.nat(),
      fc.array(gap, { minLength: 1, maxLength: 5 }),
      async (fns, pick, g) => {
        const i = pick % fns.length;
        const edited = fns.map((f, k) => (k === i ? { ...f, k: f.k + 1 } : f));
        const r = await diff('typescript', 'p.ts', renderTs(fns, [' ']), renderTs(edited, g));
        assert.deepEqual(r.changed, [`p.ts::f${i}`]);
      },
    ),
    { numRuns: 60 },
  );
});

function renderPy(fns: { param: string; k: number; op: string }[], comments: boolean[], indent: string): string {
  return fns
    .map((f, i) => {
      const c = comments[i % comments.length] ?? false;
      return `${c ? '# about f\n' : ''}def f${i}(${f.param}):${c ? '  # trailing' : ''}\n${indent}${c ? '# inside\n' + indent : ''}return ${f.param} ${f.op} ${f.k}\n${c ? '\n\n' : ''}`;
    })
    .join('\n');
}

test('property: Python comments, blank lines and consistent re-indentation never change a symbol; a constant edit does', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fnSpec, { minLength: 1, maxLength: 4 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
      fc.constantFrom('  ', '    ', '\t'),
      fc.nat(),
      async (fns, comments, indent, pick) => {
        const base = renderPy(fns, [false], '    ');
        const same = await diff('python', 'p.py', base, renderPy(fns, comments, indent));
        assert.deepEqual([same.changed, same.moved, same.deleted], [[], [], []]);
        const i = pick % fns.length;
        const edited = fns.map((f, k) => (k === i ? { ...f, op: f.op === '+' ? '-' : '+' } : f));
        const r = await diff('python', 'p.py', base, renderPy(edited, comments, indent));
        assert.deepEqual(r.changed, [`p.py::f${i}`]);
      },
    ),
    { numRuns: 40 },
  );
});

// ---- the lexical shortcut agrees with the token comparison

type Stmt =
  | { kind: 'assign'; k: number }
  | { kind: 'if'; body: Stmt[] }
  | { kind: 'doc'; text: string }
  | { kind: 'str'; text: string };
const stmtArb: fc.Arbitrary<Stmt> = fc.letrec<{ stmt: Stmt }>((tie) => ({
  stmt: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ kind: fc.constant('assign' as const), k: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ kind: fc.constant('str' as const), text: fc.constantFrom('a', 'a b', 'a  b') }),
    fc.record({ kind: fc.constant('if' as const), body: fc.array(tie('stmt'), { minLength: 1, maxLength: 3 }) }),
  ),
})).stmt;

function renderPyBody(stmts: Stmt[], indent: string, level: number, noise: boolean[], at: { k: number }): string {
  const pad = indent.repeat(level);
  return stmts
    .map((s) => {
      const n = noise[at.k++ % Math.max(1, noise.length)] ?? false;
      const extra = n ? `${pad}# note\n\n` : '';
      if (s.kind === 'assign') return `${extra}${pad}x = ${s.k}${n ? '  # c' : ''}\n`;
      if (s.kind === 'str' || s.kind === 'doc') return `${extra}${pad}"${s.text}"\n`;
      return `${extra}${pad}if x:\n${renderPyBody(s.body, indent, level + 1, noise, at)}`;
    })
    .join('');
}

test('property: for Python, exact lexical forms agree with the token comparison', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(stmtArb, { minLength: 1, maxLength: 4 }),
      fc.array(stmtArb, { minLength: 1, maxLength: 4 }),
      fc.constantFrom('  ', '    ', '\t'),
      fc.array(fc.boolean(), { maxLength: 5 }),
      fc.boolean(),
      fc.boolean(),
      async (a, b, indent, noise, sameBody, doc) => {
        const body2 = sameBody ? a : b;
        const docLine = (t: string) => (doc ? `    "${t}"\n` : '');
        const v1 = `class C:\n    def m(self, x):\n${docLine('one').replace(/^(?=.)/gm, '    ')}${renderPyBody(a, '    ', 2, [], { k: 0 })}`;
        const v2 = `class C:\n${indent}def m(self, x):\n${docLine('two').replace(/^ {4}/gm, indent + indent)}${renderPyBody(body2, indent, 2, noise, { k: 0 })}`;
        const s1 = await symbolsOf('python', 'p.py', v1);
        const s2 = await symbolsOf('python', 'p.py', v2);
        try {
          assert.ok(s1.parsed && s2.parsed, `${v1}\n----\n${v2}`);
          for (const name of ['C', 'C.m']) {
            const p1 = s1.symbols.get(name)?.[0];
            const p2 = s2.symbols.get(name)?.[0];
            assert.ok(p1 && p2);
            const tokensEqual = p1.tokens(false).join('\u0003') === p2.tokens(false).join('\u0003');
            const l1 = p1.lexical();
            const l2 = p2.lexical();
            if (l1.form !== l2.form)
              assert.equal(tokensEqual, false, `lexical forms differ but tokens agree:\n${v1}\n----\n${v2}`);
            else if (l1.exact && l2.exact)
              assert.equal(tokensEqual, true, `exact lexical forms agree but tokens differ:\n${v1}\n----\n${v2}`);
            if (sameBody) assert.equal(tokensEqual, true, 'same program, different layout');
          }
        } finally {
          s1.dispose?.();
          s2.dispose?.();
        }
      },
    ),
    { numRuns: 150 },
  );
});

const tsPiece = fc.constantFrom(
  'a',
  'b',
  '1',
  '2',
  '+',
  '-',
  '+ +',
  '++',
  '"s  t"',
  "'s t'",
  '`t ${a}  u`',
  '/r e/g',
  '(',
  ')',
  'return',
  'x.y',
  'a in b',
  'ain',
  'typeof a',
  '!',
  '=== b',
  '? a : b',
);
test('property: for TypeScript, different lexical forms mean different tokens', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(tsPiece, { maxLength: 8 }),
      fc.array(tsPiece, { maxLength: 8 }),
      fc.array(gap, { minLength: 1, maxLength: 4 }),
      async (x, y, g) => {
        const render = (parts: string[], gaps: string[]) =>
          `export function f(a: any, b: any) {\n  const v = [${parts.map((p) => `(${p})`).join(',' + (gaps[0] ?? ' '))}];\n  return v;\n}\n`;
        const s1 = await symbolsOf('typescript', 'p.ts', render(x, [' ']));
        const s2 = await symbolsOf('typescript', 'p.ts', render(y, g));
        const p1 = s1.symbols.get('f')?.[0];
        const p2 = s2.symbols.get('f')?.[0];
        fc.pre(s1.parsed && s2.parsed && p1 !== undefined && p2 !== undefined);
        const tokensEqual = p1.tokens(false).join('\u0003') === p2.tokens(false).join('\u0003');
        const l1 = p1.lexical();
        const l2 = p2.lexical();
        if (l1.form !== l2.form) assert.equal(tokensEqual, false, 'different lexical forms, same tokens');
        else if (l1.exact && l2.exact) assert.equal(tokensEqual, true, 'equal exact lexical forms, different tokens');
      },
    ),
    { numRuns: 150 },
  );
});

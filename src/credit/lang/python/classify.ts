// Python's tests read and classified with tree-sitter: each test's assertions, its skips, and what classes inherit.
import type { Node } from 'web-tree-sitter';
import { posix } from 'node:path';
import { getParser } from '../../../symbols/treesitter.js';
import {
  checkTest,
  EQUALITY_METHODS,
  type Assertion,
  type Operand,
  type TestSource,
  type Verdict,
} from '../../tests/classify.js';

const COMPARE_ASSERTS = new Set([
  'assertEqual',
  'assertEquals',
  'assertNotEqual',
  'assertIs',
  'assertIsNot',
  'assertIn',
  'assertNotIn',
  'assertAlmostEqual',
  'assertNotAlmostEqual',
  'assertGreater',
  'assertGreaterEqual',
  'assertLess',
  'assertLessEqual',
  'assertCountEqual',
  'assertListEqual',
  'assertDictEqual',
  'assertSequenceEqual',
  'assertRegex',
  'assertIsInstance',
  'assertMultiLineEqual',
  'assertTupleEqual',
  'assertSetEqual',
]);
const TRUTH_ASSERTS = new Set([
  'assertTrue',
  'assertFalse',
  'assertIsNone',
  'assertIsNotNone',
  'assert_',
  'failUnless',
  'failIf',
]);

const named = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => c !== null);
const field = (n: Node, f: string): Node | null => n.childForFieldName(f);

function unparen(n: Node): Node {
  let x = n;
  while (x.type === 'parenthesized_expression' && named(x).length === 1) x = named(x)[0] as Node;
  return x;
}

export function isLiteralPy(n0: Node): boolean {
  const n = unparen(n0);
  switch (n.type) {
    case 'integer':
    case 'float':
    case 'true':
    case 'false':
    case 'none':
      return true;
    case 'string':
      return !named(n).some((c) => c.type === 'interpolation');
    case 'concatenated_string':
      return named(n).every(isLiteralPy);
    case 'unary_operator': {
      const a = field(n, 'argument');
      return a !== null && isLiteralPy(a);
    }
    case 'list':
    case 'tuple':
    case 'set':
      return named(n).every(isLiteralPy);
    case 'dictionary':
      return named(n).every((p) => p.type === 'pair' && named(p).every(isLiteralPy));
  }
  return false;
}

function hasCall(n: Node): boolean {
  if (n.type === 'call' || n.type === 'await' || n.type === 'yield') return true;
  return named(n).some(hasCall);
}

function calleeText(call: Node): string | null {
  const f = field(call, 'function');
  if (!f) return null;
  if (f.type === 'identifier' || f.type === 'attribute') return f.text.replace(/\s+/g, '');
  return null;
}

interface Scope {
  readonly assigns: { name: string; end: number; literal: boolean }[];
  readonly calls: number[];
}

function operandOf(n: Node, at: number, scope: Scope): Operand {
  const x = unparen(n);
  const literal = isLiteralPy(x);
  const key = hasCall(x) ? null : x.text.replace(/\s+/g, '');
  let selfAssigned = false;
  if (x.type === 'identifier') {
    const last = scope.assigns.filter((a) => a.name === x.text && a.end <= at).at(-1);
    if (last?.literal) selfAssigned = !scope.calls.some((c) => c > last.end && c < at);
  }
  return { literal, isTrue: x.type === 'true', key, selfAssigned };
}

function truthAssertion(n0: Node, at: number, scope: Scope): Pick<Assertion, 'operands' | 'compares'> {
  const n = unparen(n0);
  if (n.type === 'comparison_operator') {
    const ops = named(n);
    if (ops.length === 2) return { operands: ops.map((o) => operandOf(o, at, scope)), compares: true };
  }
  if (n.type === 'not_operator') {
    const a = field(n, 'argument');
    if (a) return truthAssertion(a, at, scope);
  }
  return { operands: [operandOf(n, at, scope)], compares: false };
}

/** Does this except clause catch an AssertionError (bare, Exception, BaseException, AssertionError)? */
function catchesAssertion(clause: Node): boolean {
  const types = named(clause).filter((c) => c.type !== 'block');
  if (types.length === 0) return true;
  return /\b(AssertionError|Exception|BaseException)\b/.test(types.map((t) => t.text).join(' '));
}

function raises(n: Node): boolean {
  if (n.type === 'raise_statement') return true;
  if (n.type === 'call' && /(^|\.)fail$/.test(calleeText(n) ?? '')) return true;
  if (n.type === 'function_definition' || n.type === 'lambda') return false;
  return named(n).some(raises);
}

function isSwallowed(n: Node, stop: Node): boolean {
  let child = n;
  for (let p = n.parent; p && p.id !== stop.id; child = p, p = p.parent) {
    if (p.type === 'try_statement') {
      const body = field(p, 'body');
      const handlers = named(p).filter((c) => c.type === 'except_clause' || c.type === 'except_group_clause');
      if (child.id === body?.id && handlers.some((h) => catchesAssertion(h) && !raises(h))) return true;
    }
    if (p.type === 'except_clause' && p.parent?.type === 'try_statement') {
      const body = field(p.parent, 'body');
      if (body && !raises(body)) return true;
    }
  }
  return false;
}

/** Why a checked condition tells only a type or non-None-ness, or null. */
function weakCondition(n0: Node): string | null {
  const n = unparen(n0);
  if (n.type === 'call' && /^(isinstance|issubclass|callable)$/.test(calleeText(n) ?? '')) return 'check only a type';
  if (n.type === 'comparison_operator') {
    const ops = n.children.filter((c): c is Node => c !== null && !c.isNamed).map((c) => c.type);
    const sides = named(n);
    if (
      ops.length === 1 &&
      (ops[0] === 'is not' || ops[0] === '!=' || ops[0] === 'is') &&
      sides.some((x) => x.type === 'none')
    )
      return ops[0] === 'is' ? null : 'check only that a value is not None';
    if (sides.some((x) => x.type === 'call' && calleeText(x) === 'type')) return 'check only a type';
  }
  if (n.type === 'boolean_operator' && field(n, 'operator')?.type === 'and') {
    const l = field(n, 'left');
    const r = field(n, 'right');
    const lw = l ? weakCondition(l) : null;
    return lw !== null && r !== null && weakCondition(r) !== null ? lw : null;
  }
  return null;
}

const WEAK_METHODS: Record<string, string> = {
  assertIsNotNone: 'check only that a value is not None',
  assertIsInstance: 'check only a type',
  assertNotIsInstance: 'check only a type',
};

/** How a test reads the source or byte code of the code under test, or null. */
function sourceTextUse(body: Node): string | null {
  let found: string | null = null;
  const visit = (n: Node): void => {
    if (found !== null) return;
    if (
      n.type === 'call' &&
      /^inspect\.(getsource|getsourcelines|getsourcefile|getfile)$|^(dis\.dis|dis\.Bytecode|dis\.get_instructions)$/.test(
        calleeText(n) ?? '',
      )
    )
      found = `it reads the source text of the code under test (${calleeText(n) ?? ''} at line ${n.startPosition.row + 1})`;
    else if (n.type === 'attribute' && /\.(__code__|co_code|__wrapped__\.__code__)$/.test(n.text.replace(/\s+/g, '')))
      found = `it reads the byte code of the code under test (${n.text.slice(0, 60)} at line ${n.startPosition.row + 1})`;
    for (const c of named(n)) visit(c);
  };
  visit(body);
  return found;
}

function collectAssertions(
  body: Node,
  assertionFns: ReadonlySet<string>,
  helpers: ReadonlySet<string>,
  methods: ReadonlySet<string> = new Set(),
): Assertion[] {
  const scope: Scope = { assigns: [], calls: [] };
  const assertionCalls = new Set<number>();
  const found: { node: Node; make: () => Pick<Assertion, 'operands' | 'compares' | 'opaque' | 'weak'> }[] = [];
  const visit = (n: Node): void => {
    if (n.type === 'assignment' || n.type === 'augmented_assignment') {
      const left = field(n, 'left');
      const right = field(n, 'right');
      if (left?.type === 'identifier')
        scope.assigns.push({
          name: left.text,
          end: n.endIndex,
          literal: n.type === 'assignment' && right !== null && isLiteralPy(right),
        });
    }
    if (n.type === 'assert_statement') {
      const cond = named(n)[0];
      const weak = cond ? weakCondition(cond) : null;
      if (cond)
        found.push({
          node: n,
          make: () => ({
            ...truthAssertion(cond, n.startIndex, scope),
            opaque: false,
            ...(weak !== null ? { weak } : {}),
          }),
        });
    } else if (n.type === 'call') {
      const callee = calleeText(n) ?? '';
      const last = callee.split('.').at(-1) ?? '';
      const args = named(field(n, 'arguments') ?? n).filter(
        (a) => a.type !== 'keyword_argument' && a.type !== 'comment',
      );
      const at = n.startIndex;
      const weakMethod = WEAK_METHODS[last];
      if (weakMethod !== undefined) {
        assertionCalls.add(n.id);
        found.push({ node: n, make: () => ({ operands: [], compares: false, opaque: true, weak: weakMethod }) });
      } else if (COMPARE_ASSERTS.has(last) || (callee.startsWith('self.') && EQUALITY_METHODS.has(last))) {
        assertionCalls.add(n.id);
        found.push({
          node: n,
          make: () =>
            args.length >= 2
              ? { operands: args.slice(0, 2).map((a) => operandOf(a, at, scope)), compares: true, opaque: false }
              : { operands: [], compares: false, opaque: true },
        });
      } else if (TRUTH_ASSERTS.has(last)) {
        assertionCalls.add(n.id);
        const a = args[0];
        const weak = a ? weakCondition(a) : null;
        found.push({
          node: n,
          make: () =>
            a
              ? { ...truthAssertion(a, at, scope), opaque: false, ...(weak !== null ? { weak } : {}) }
              : { operands: [], compares: false, opaque: true },
        });
      } else if (assertionFns.has(last) || assertionFns.has(callee)) {
        assertionCalls.add(n.id);
        found.push({
          node: n,
          make: () => ({
            operands: args.map((a) => operandOf(a, at, scope)),
            compares: args.length === 2,
            opaque: args.length === 0,
          }),
        });
      } else if (
        last.startsWith('assert') ||
        /(^|\.)(fail|raises|warns|deprecated_call)$/.test(callee) ||
        /^(self\.)?assertRaises/.test(callee) ||
        (callee === last && helpers.has(last)) ||
        (callee === `self.${last}` && methods.has(last))
      ) {
        assertionCalls.add(n.id);
        found.push({ node: n, make: () => ({ operands: [], compares: false, opaque: true }) });
      }
    } else if (n.type === 'raise_statement') {
      let guard: Node | null = n.parent;
      while (guard?.type === 'block') guard = guard.parent;
      const cond = guard?.type === 'if_statement' ? field(guard, 'condition') : null;
      found.push({
        node: n,
        make: () =>
          cond
            ? { ...truthAssertion(cond, n.startIndex, scope), opaque: false }
            : { operands: [], compares: false, opaque: true },
      });
    }
    for (const c of named(n)) visit(c);
  };
  visit(body);
  const collectCalls = (n: Node): void => {
    if ((n.type === 'call' || n.type === 'await') && !assertionCalls.has(n.id)) scope.calls.push(n.startIndex);
    for (const c of named(n)) collectCalls(c);
  };
  collectCalls(body);
  return found.map(({ node, make }) => ({
    ...make(),
    swallowed: isSwallowed(node, body),
    line: node.startPosition.row + 1,
  }));
}

/** Why a test's decorators (its class's, then its own) skip it, or null. */
function decoratorSkip(decorators: readonly Node[]): string | null {
  for (const d of decorators) {
    const t = d.text.replace(/\s+/g, '');
    if (/^@(pytest\.mark\.skip|unittest\.skip|skip)(\(|$)/.test(t) && !/skipIf|skipif|skipUnless/.test(t))
      return `decorated ${d.text.trim()}`;
    if (/^@(pytest\.mark\.skipif|unittest\.skipIf)\(True\b/.test(t)) return `decorated ${d.text.trim()}`;
    if (t.startsWith('@pytest.mark.xfail')) return `decorated ${d.text.trim()} (expected to fail)`;
  }
  return null;
}

/** Why a test's body skips it before anything else (`pytest.skip()`, `self.skipTest()` first), or null. */
function bodySkip(body: Node): string | null {
  const first = named(body)[0];
  if (first?.type === 'expression_statement') {
    const c = named(first)[0];
    if (c?.type === 'call' && /^(pytest\.skip|self\.skipTest)$/.test(calleeText(c) ?? ''))
      return `calls ${calleeText(c) ?? ''}() first`;
  }
  return null;
}

function skipReason(decorators: readonly Node[], body: Node): string | null {
  return decoratorSkip(decorators) ?? bodySkip(body);
}

function definitionOf(n: Node): { def: Node; decorators: Node[] } | null {
  if (n.type === 'function_definition') return { def: n, decorators: [] };
  if (n.type === 'decorated_definition') {
    const def = field(n, 'definition');
    if (def?.type === 'function_definition') return { def, decorators: named(n).filter((c) => c.type === 'decorator') };
  }
  return null;
}

/** A class statement, decorated or not, and its decorators; null for anything else. */
function classOf(n: Node): { cls: Node; decorators: Node[] } | null {
  if (n.type === 'class_definition') return { cls: n, decorators: [] };
  if (n.type === 'decorated_definition' && field(n, 'definition')?.type === 'class_definition')
    return { cls: field(n, 'definition') as Node, decorators: named(n).filter((c) => c.type === 'decorator') };
  return null;
}

/** The last name of each base in a class statement (`unittest.TestCase` -> `TestCase`); keyword arguments (metaclass=...) left out. */
function baseNames(cls: Node): string[] {
  return baseTexts(cls).map((b) => b.split('.').pop() as string);
}

/**
 * The names of the file's classes pytest collects whatever their name: unittest.TestCase
 * subclasses (pytest runs them through its unittest plugin; `FooTests(TestCase)` is as much a
 * test class as `TestFoo`). Seen statically: a base whose name ends in `TestCase`
 * (`unittest.TestCase`, `IsolatedAsyncioTestCase`, Django's `SimpleTestCase`), or a class of
 * this file that is one, through any number of steps.
 */
function testCaseClasses(containers: readonly Node[]): Set<string> {
  const classes: { name: string; bases: string[] }[] = [];
  const walk = (container: Node): void => {
    for (const top of named(container)) {
      const c = classOf(top);
      if (!c) continue;
      classes.push({ name: field(c.cls, 'name')?.text ?? '', bases: baseNames(c.cls) });
      const body = field(c.cls, 'body');
      if (body) walk(body);
    }
  };
  for (const c of containers) walk(c);
  const out = new Set<string>();
  for (let grew = true; grew;) {
    grew = false;
    for (const c of classes) {
      if (c.name === '' || out.has(c.name) || !c.bases.some((b) => b.endsWith('TestCase') || out.has(b))) continue;
      out.add(c.name);
      grew = true;
    }
  }
  return out;
}

/** Every pytest-style test in a Python file (test_* functions, Test* classes, unittest.TestCase subclasses) with its static verdict. */
export async function classifyPyTests(
  path: string,
  text: string,
  assertionFunctions: readonly string[] = [],
  readsSource: string | null = null,
): Promise<TestSource[]> {
  const { tests, module } = await readPyModule(path, text, assertionFunctions, readsSource);
  return linkPyModules([module], tests);
}

/** A test method as a class of another file inherits it: what its verdict is made from. */
export interface PyTestMethod {
  readonly name: string;
  readonly line: number;
  readonly assertions: readonly Assertion[];
  /** What its own decorators and its body's first statement say of skipping (decoratorSkip, bodySkip). */
  readonly decoratorSkip: string | null;
  readonly bodySkip: string | null;
  /** How it reads the code's source text (sourceTextUse), or null. */
  readonly sourceUse: string | null;
}

/** A top-level class of a Python test file, as other test files may inherit it. */
export interface PyClass {
  readonly name: string;
  readonly line: number;
  /** Each base as written (`unittest.TestCase`, `CacheTestMixin`, `base.Mixin`); keyword arguments left out. */
  readonly bases: readonly string[];
  /** What the class's own decorators say of skipping its tests. */
  readonly classSkip: string | null;
  /** Its own test* methods, the last definition of each name. */
  readonly tests: readonly PyTestMethod[];
}

/** What linkPyModules needs of one Python test file: its classes and the names its top-level imports bind. */
export interface PyModule {
  readonly path: string;
  readonly classes: ReadonlyMap<string, PyClass>;
  /** A bound name to the module it comes from (`.`, `.base`, `tests.base`: as written) and the name taken from it (null: the module itself). */
  readonly imports: ReadonlyMap<string, { readonly module: string; readonly name: string | null }>;
  /** The modules of `from M import *`. */
  readonly stars: readonly string[];
  /** The file reads a production file's text (readsProductionSource), or null. */
  readonly readsSource: string | null;
}

/** The tests one Python file defines in its own classes and functions, and its classes and imports: linkPyModules adds the inherited ones. */
export async function readPyModule(
  path: string,
  text: string,
  assertionFunctions: readonly string[] = [],
  readsSource: string | null = null,
): Promise<{ tests: TestSource[]; module: PyModule }> {
  const parser = await getParser('python');
  const tree = parser.parse(text);
  const empty = { path, classes: new Map(), imports: new Map(), stars: [], readsSource };
  if (!tree) return { tests: [], module: empty };
  try {
    const root = tree.rootNode;
    const assertionFns = new Set(assertionFunctions);
    const helpers = new Set<string>();
    for (const top of named(root)) {
      const d = definitionOf(top);
      const name = d && field(d.def, 'name')?.text;
      const body = d && field(d.def, 'body');
      // A helper counts when what it asserts would make a test of it a property: one that only asserts a literal is no check.
      if (
        d &&
        name &&
        body &&
        !name.startsWith('test') &&
        checkTest(collectAssertions(body, assertionFns, new Set()), null).kind === 'property'
      )
        helpers.add(name);
    }
    // Helper methods: a class's non-test methods that assert (unittest's `self._check(...)`),
    // called as `self.name(...)` from a test; twice over, for a helper that calls another.
    const methods = new Set<string>();
    for (let pass = 0; pass < 2; pass++) {
      const walk = (container: Node): void => {
        for (const top of named(container)) {
          const c = classOf(top);
          const cbody = c && field(c.cls, 'body');
          if (!cbody) continue;
          for (const m of named(cbody)) {
            const d = definitionOf(m);
            const name = d && field(d.def, 'name')?.text;
            const body = d && field(d.def, 'body');
            if (
              d &&
              name &&
              body &&
              !name.startsWith('test') &&
              checkTest(collectAssertions(body, assertionFns, helpers, methods), null).kind === 'property'
            )
              methods.add(name);
          }
          walk(cbody);
        }
      };
      walk(root);
    }
    const out: TestSource[] = [];
    const unittestClasses = testCaseClasses([root]);
    const visitDefs = (container: Node, suite: string[], classDecorators: Node[]): void => {
      for (const top of named(container)) {
        const c = classOf(top);
        if (c !== null) {
          const { cls, decorators } = c;
          const cname = field(cls, 'name')?.text ?? '';
          const cbody = field(cls, 'body');
          if ((cname.startsWith('Test') || unittestClasses.has(cname)) && cbody) {
            const inner = [...suite, cname];
            const all = [...classDecorators, ...decorators];
            // The tests it inherits (from a class of this file or another) are linkPyModules' work.
            visitDefs(cbody, inner, all);
          }
          continue;
        }
        pushTest(top, suite, classDecorators);
      }
    };
    /** A test function or method (test*) as a test of `suite`. */
    const pushTest = (top: Node, suite: string[], classDecorators: Node[]): void => {
      const d = definitionOf(top);
      if (!d) return;
      const name = field(d.def, 'name')?.text ?? '';
      const body = field(d.def, 'body');
      if (!name.startsWith('test') || !body) return;
      const skip = skipReason([...classDecorators, ...d.decorators], body);
      out.push({
        file: path,
        suite,
        name,
        line: d.def.startPosition.row + 1,
        verdict: checkTest(
          collectAssertions(body, assertionFns, helpers, methods),
          skip,
          sourceTextUse(body) ?? readsSource,
        ),
      });
    };
    const topClasses = new Map<string, Node>();
    for (const top of named(root)) {
      const c = classOf(top);
      const n = c && field(c.cls, 'name')?.text;
      if (c && n) topClasses.set(n, c.cls);
    }
    visitDefs(root, [], []);
    const classes = new Map<string, PyClass>();
    for (const [name, cls] of topClasses) {
      const body = field(cls, 'body');
      const own = new Map<string, PyTestMethod>();
      for (const m of body ? named(body) : []) {
        const d = definitionOf(m);
        const mname = d && field(d.def, 'name')?.text;
        const mbody = d && field(d.def, 'body');
        if (!d || !mname || !mbody || !mname.startsWith('test')) continue;
        own.set(mname, {
          name: mname,
          line: d.def.startPosition.row + 1,
          assertions: collectAssertions(mbody, assertionFns, helpers, methods),
          decoratorSkip: decoratorSkip(d.decorators),
          bodySkip: bodySkip(mbody),
          sourceUse: sourceTextUse(mbody),
        });
      }
      const decorated =
        cls.parent?.type === 'decorated_definition' ? named(cls.parent).filter((c) => c.type === 'decorator') : [];
      classes.set(name, {
        name,
        line: cls.startPosition.row + 1,
        bases: baseTexts(cls),
        classSkip: decoratorSkip(decorated),
        tests: [...own.values()],
      });
    }
    return { tests: out, module: { path, classes, ...importsOf(root), readsSource } };
  } finally {
    tree.delete();
  }
}

/** Each base of a class statement as written, whitespace removed (`unittest.TestCase`); keyword arguments left out. */
function baseTexts(cls: Node): string[] {
  const args = field(cls, 'superclasses');
  if (!args) return [];
  return named(args)
    .filter((a) => a.type === 'identifier' || a.type === 'attribute')
    .map((a) => a.text.replace(/\s+/g, ''));
}

/** The names a file's top-level imports bind, and its star imports. */
function importsOf(root: Node): Pick<PyModule, 'imports' | 'stars'> {
  const imports = new Map<string, { module: string; name: string | null }>();
  const stars: string[] = [];
  for (const top of named(root)) {
    if (top.type === 'import_from_statement') {
      const module = field(top, 'module_name')?.text.replace(/\s+/g, '');
      if (!module) continue;
      if (named(top).some((c) => c.type === 'wildcard_import')) stars.push(module);
      for (const n of top.childrenForFieldName('name')) {
        if (n === null) continue;
        if (n.type === 'aliased_import') {
          const name = field(n, 'name')?.text.replace(/\s+/g, '');
          const alias = field(n, 'alias')?.text;
          if (name && alias) imports.set(alias, { module, name });
        } else imports.set(n.text.replace(/\s+/g, ''), { module, name: n.text.replace(/\s+/g, '') });
      }
    } else if (top.type === 'import_statement') {
      for (const n of top.childrenForFieldName('name')) {
        if (n === null) continue;
        if (n.type === 'aliased_import') {
          const name = field(n, 'name')?.text.replace(/\s+/g, '');
          const alias = field(n, 'alias')?.text;
          if (name && alias) imports.set(alias, { module: name, name: null });
        } else imports.set(n.text.replace(/\s+/g, ''), { module: n.text.replace(/\s+/g, ''), name: null });
      }
    }
  }
  return { imports, stars };
}

/** The test file a module name refers to from `from` (relative `.x`, or absolute from any folder above it), among `byPath`; null when none, or more than one, is. */
function moduleAt(from: string, module: string, byPath: ReadonlyMap<string, PyModule>): PyModule | null {
  const m = /^(\.*)(.*)$/.exec(module) as RegExpExecArray;
  const dots = (m[1] as string).length;
  const rel = (m[2] as string).split('.').filter((x) => x !== '');
  const of = (dir: string): string[] => {
    const stem = [...(dir === '' ? [] : [dir]), ...rel].join('/');
    return rel.length === 0 ? [posix.join(dir, '__init__.py')] : [`${stem}.py`, `${stem}/__init__.py`];
  };
  let dirs: string[];
  if (dots > 0) {
    let dir = posix.dirname(from);
    for (let i = 1; i < dots; i++) {
      if (dir === '.') return null;
      dir = posix.dirname(dir);
    }
    dirs = [dir === '.' ? '' : dir];
  } else {
    if (rel.length === 0) return null;
    // An absolute import: from whichever folder above the file is on sys.path (pytest's rootdir, a basedir).
    dirs = [];
    for (let dir = posix.dirname(from); ; dir = posix.dirname(dir)) {
      dirs.push(dir === '.' ? '' : dir);
      if (dir === '.' || dir === '/') break;
    }
  }
  const found = new Set(dirs.flatMap(of).filter((p) => byPath.has(p)));
  return found.size === 1 ? (byPath.get([...found][0] as string) as PyModule) : null;
}

/** The class a base or name written in `mod` is, in a test file (its own, or one it imports, through re-exports), or null. */
function resolveClass(
  mod: PyModule,
  written: string,
  byPath: ReadonlyMap<string, PyModule>,
  depth = 0,
): { mod: PyModule; cls: PyClass } | null {
  if (depth > 8) return null;
  const parts = written.split('.');
  const last = parts.pop() as string;
  if (parts.length === 0) {
    const own = mod.classes.get(last);
    if (own !== undefined) return { mod, cls: own };
    const imp = mod.imports.get(last);
    if (imp !== undefined) {
      if (imp.name === null) return null;
      const target = moduleAt(mod.path, imp.module, byPath);
      return target === null ? null : resolveClass(target, imp.name, byPath, depth + 1);
    }
    for (const star of mod.stars) {
      const target = moduleAt(mod.path, star, byPath);
      const r = target === null ? null : resolveClass(target, last, byPath, depth + 1);
      if (r !== null) return r;
    }
    return null;
  }
  // `base.Mixin`: `base` a module an import binds (`import tests.base as base`, `from tests
  // import base`, `from . import base`); `tests.base.Mixin` after `import tests.base`, or after
  // `import tests` (the package's own name, its submodule spelt out).
  const prefix = parts.join('.');
  const imp = mod.imports.get(prefix);
  const head = mod.imports.get(parts[0] as string);
  let module: string;
  if (imp !== undefined)
    module = imp.name === null ? imp.module : `${imp.module}${imp.module.endsWith('.') ? '' : '.'}${imp.name}`;
  else if (head?.name === null && head.module === parts[0]) module = prefix;
  else return null;
  const target = moduleAt(mod.path, module, byPath);
  return target === null ? null : resolveClass(target, last, byPath, depth + 1);
}

/** A class and the file it is written in; `opaque`: a base the classifier cannot read (`cls.name` is the base as written). */
interface ClassRef {
  readonly mod: PyModule;
  readonly cls: PyClass;
  readonly opaque?: true;
}

const refKey = (r: ClassRef): string => `${r.mod.path}\0${r.opaque ? '?' : ''}${r.cls.name}`;

/** Modules whose TestCase classes define no test of their own: a base from one of them hides nothing. */
const TRUSTED_BASE_MODULES = new Set(['unittest', 'unittest.case', 'django.test']);

/** Whether a base the classifier cannot read is `object` or a TestCase of unittest (or django.test), by the import that binds it: such a base defines no test. */
function trustedBase(mod: PyModule, written: string): boolean {
  if (written === 'object') return true;
  const parts = written.split('.');
  const last = parts.pop() as string;
  if (!last.endsWith('TestCase')) return false;
  const imp = parts.length === 0 ? mod.imports.get(last) : mod.imports.get(parts.join('.'));
  if (imp === undefined) return false;
  const from = parts.length === 0 ? imp.module : imp.name === null ? imp.module : `${imp.module}.${imp.name}`;
  return TRUSTED_BASE_MODULES.has(from);
}

/** A base as the method resolution order sees it: a class of a test file, an opaque one (any other base), or null for a trusted one (trustedBase). */
function baseRef(mod: PyModule, written: string, byPath: ReadonlyMap<string, PyModule>): ClassRef | null {
  const r = resolveClass(mod, written, byPath);
  if (r !== null) return r;
  if (trustedBase(mod, written)) return null;
  return { mod, cls: { name: written, line: 0, bases: [], classSkip: null, tests: [] }, opaque: true };
}

/**
 * The class's method resolution order (C3, as Python computes it) over the classes of test
 * files. A trusted base (trustedBase: `object`, unittest's TestCase) is left out; any other base
 * the classifier cannot read (a package's, one that two test files could be) stands in it as an
 * opaque class, whose own bases are unknown. Null when Python would refuse the class (no
 * consistent order, a cycle): none of its tests is defined then.
 */
function linearize(
  r: ClassRef,
  byPath: ReadonlyMap<string, PyModule>,
  memo: Map<string, ClassRef[] | null>,
  stack: Set<string>,
): ClassRef[] | null {
  const k = refKey(r);
  const hit = memo.get(k);
  if (hit !== undefined) return hit;
  if (r.opaque) return [r];
  if (stack.has(k)) return null;
  stack.add(k);
  const bases = r.cls.bases.map((b) => baseRef(r.mod, b, byPath)).filter((b): b is ClassRef => b !== null);
  const lists: ClassRef[][] = [];
  let out: ClassRef[] | null = [r];
  for (const b of bases) {
    const l = linearize(b, byPath, memo, stack);
    if (l === null) {
      out = null;
      break;
    }
    lists.push([...l]);
  }
  if (out !== null) {
    const seqs = [...lists, [...bases]].filter((q) => q.length > 0);
    while (seqs.length > 0) {
      const head = seqs
        .map((q) => q[0] as ClassRef)
        .find((h) => !seqs.some((q) => q.slice(1).some((x) => refKey(x) === refKey(h))));
      if (head === undefined) {
        out = null;
        break;
      }
      out.push(head);
      for (const q of seqs) if (refKey(q[0] as ClassRef) === refKey(head)) q.shift();
      for (let i = seqs.length - 1; i >= 0; i--) if ((seqs[i] as ClassRef[]).length === 0) seqs.splice(i, 1);
    }
  }
  stack.delete(k);
  memo.set(k, out);
  return out;
}

/**
 * The tests classes inherit, in one file or across test files, as pytest runs them: each test
 * name from the first class of the method resolution order that defines it (linearize), under
 * the collecting class's skips. A base in no test file adds nothing; where the order holds a base
 * the classifier cannot read, every inherited test is `opaque-base`.
 */
export function linkPyModules(modules: readonly PyModule[], tests: readonly TestSource[]): TestSource[] {
  const byPath = new Map(modules.map((m) => [m.path, m] as const));
  const memo = new Map<string, ClassRef[] | null>();
  const dropped = new Set<string>();
  const added: TestSource[] = [];
  for (const mod of modules) {
    for (const cls of mod.classes.values()) {
      if (!cls.bases.some((b) => resolveClass(mod, b, byPath) !== null)) continue;
      const self = { mod, cls };
      dropped.add(refKey(self));
      const order = linearize(self, byPath, memo, new Set());
      if (order === null) continue;
      const collected =
        cls.name.startsWith('Test') ||
        order.some((x) => x.cls.bases.some((b) => (b.split('.').pop() as string).endsWith('TestCase')));
      if (!collected) continue;
      const opaque = order.find((x) => x.opaque === true);
      const names = new Set<string>();
      for (const x of order) {
        for (const m of x.cls.tests) {
          if (names.has(m.name)) continue;
          names.add(m.name);
          const skip = cls.classSkip ?? m.decoratorSkip ?? m.bodySkip;
          const hidden =
            opaque !== undefined && x !== self
              ? `inherited from ${x.cls.name}, while the class also has a base the classifier cannot read (${opaque.cls.name}), which may define ${m.name} itself`
              : null;
          const verdict: Verdict =
            hidden !== null && skip === null
              ? { kind: 'tautology', rule: 'opaque-base', detail: hidden }
              : checkTest(m.assertions, skip, m.sourceUse ?? x.mod.readsSource ?? mod.readsSource);
          added.push({
            file: mod.path,
            suite: [cls.name],
            name: m.name,
            line: x.mod === mod ? m.line : cls.line,
            verdict,
          });
        }
      }
    }
  }
  if (dropped.size === 0) return [...tests];
  const kept = tests.filter((t) => !(t.suite.length === 1 && dropped.has(`${t.file}\0${t.suite[0] as string}`)));
  return [...kept, ...added];
}

import type { Node } from 'web-tree-sitter';
import { getParser } from '../symbols/treesitter.js';
import { checkTest, EQUALITY_METHODS, type Assertion, type Operand, type TestSource } from './classify.js';

const COMPARE_ASSERTS = new Set([
  'assertEqual', 'assertEquals', 'assertNotEqual', 'assertIs', 'assertIsNot', 'assertIn', 'assertNotIn', 'assertAlmostEqual', 'assertNotAlmostEqual',
  'assertGreater', 'assertGreaterEqual', 'assertLess', 'assertLessEqual', 'assertCountEqual', 'assertListEqual', 'assertDictEqual', 'assertSequenceEqual',
  'assertRegex', 'assertIsInstance', 'assertMultiLineEqual', 'assertTupleEqual', 'assertSetEqual',
]);
const TRUTH_ASSERTS = new Set(['assertTrue', 'assertFalse', 'assertIsNone', 'assertIsNotNone', 'assert_', 'failUnless', 'failIf']);

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
    case 'integer': case 'float': case 'true': case 'false': case 'none':
      return true;
    case 'string':
      return !named(n).some((c) => c.type === 'interpolation');
    case 'concatenated_string':
      return named(n).every(isLiteralPy);
    case 'unary_operator': {
      const a = field(n, 'argument');
      return a !== null && isLiteralPy(a);
    }
    case 'list': case 'tuple': case 'set':
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
    if (ops.length === 1 && (ops[0] === 'is not' || ops[0] === '!=' || ops[0] === 'is') && sides.some((x) => x.type === 'none')) return ops[0] === 'is' ? null : 'check only that a value is not None';
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
    if (n.type === 'call' && /^inspect\.(getsource|getsourcelines|getsourcefile|getfile)$|^(dis\.dis|dis\.Bytecode|dis\.get_instructions)$/.test(calleeText(n) ?? '')) found = `it reads the source text of the code under test (${calleeText(n) ?? ''} at line ${n.startPosition.row + 1})`;
    else if (n.type === 'attribute' && /\.(__code__|co_code|__wrapped__\.__code__)$/.test(n.text.replace(/\s+/g, ''))) found = `it reads the byte code of the code under test (${n.text.slice(0, 60)} at line ${n.startPosition.row + 1})`;
    for (const c of named(n)) visit(c);
  };
  visit(body);
  return found;
}

function collectAssertions(body: Node, assertionFns: ReadonlySet<string>, helpers: ReadonlySet<string>, methods: ReadonlySet<string> = new Set()): Assertion[] {
  const scope: Scope = { assigns: [], calls: [] };
  const assertionCalls = new Set<number>();
  const found: { node: Node; make: () => Pick<Assertion, 'operands' | 'compares' | 'opaque' | 'weak'> }[] = [];
  const visit = (n: Node): void => {
    if (n.type === 'assignment' || n.type === 'augmented_assignment') {
      const left = field(n, 'left');
      const right = field(n, 'right');
      if (left?.type === 'identifier') scope.assigns.push({ name: left.text, end: n.endIndex, literal: n.type === 'assignment' && right !== null && isLiteralPy(right) });
    }
    if (n.type === 'assert_statement') {
      const cond = named(n)[0];
      const weak = cond ? weakCondition(cond) : null;
      if (cond) found.push({ node: n, make: () => ({ ...truthAssertion(cond, n.startIndex, scope), opaque: false, ...(weak !== null ? { weak } : {}) }) });
    } else if (n.type === 'call') {
      const callee = calleeText(n) ?? '';
      const last = callee.split('.').at(-1) ?? '';
      const args = named(field(n, 'arguments') ?? n).filter((a) => a.type !== 'keyword_argument' && a.type !== 'comment');
      const at = n.startIndex;
      const weakMethod = WEAK_METHODS[last];
      if (weakMethod !== undefined) {
        assertionCalls.add(n.id);
        found.push({ node: n, make: () => ({ operands: [], compares: false, opaque: true, weak: weakMethod }) });
      } else if (COMPARE_ASSERTS.has(last) || (callee.startsWith('self.') && EQUALITY_METHODS.has(last))) {
        assertionCalls.add(n.id);
        found.push({ node: n, make: () => (args.length >= 2 ? { operands: args.slice(0, 2).map((a) => operandOf(a, at, scope)), compares: true, opaque: false } : { operands: [], compares: false, opaque: true }) });
      } else if (TRUTH_ASSERTS.has(last)) {
        assertionCalls.add(n.id);
        const a = args[0];
        const weak = a ? weakCondition(a) : null;
        found.push({ node: n, make: () => (a ? { ...truthAssertion(a, at, scope), opaque: false, ...(weak !== null ? { weak } : {}) } : { operands: [], compares: false, opaque: true }) });

      } else if (assertionFns.has(last) || assertionFns.has(callee)) {
        assertionCalls.add(n.id);
        found.push({ node: n, make: () => ({ operands: args.map((a) => operandOf(a, at, scope)), compares: args.length === 2, opaque: args.length === 0 }) });
      } else if (last.startsWith('assert') || /(^|\.)(fail|raises|warns|deprecated_call)$/.test(callee) || /^(self\.)?assertRaises/.test(callee) || (callee === last && helpers.has(last)) || (callee === `self.${last}` && methods.has(last))) {
        assertionCalls.add(n.id);
        found.push({ node: n, make: () => ({ operands: [], compares: false, opaque: true }) });
      }
    } else if (n.type === 'raise_statement') {
      let guard: Node | null = n.parent;
      while (guard?.type === 'block') guard = guard.parent;
      const cond = guard?.type === 'if_statement' ? field(guard, 'condition') : null;
      found.push({ node: n, make: () => (cond ? { ...truthAssertion(cond, n.startIndex, scope), opaque: false } : { operands: [], compares: false, opaque: true }) });
    }
    for (const c of named(n)) visit(c);
  };
  visit(body);
  const collectCalls = (n: Node): void => {
    if ((n.type === 'call' || n.type === 'await') && !assertionCalls.has(n.id)) scope.calls.push(n.startIndex);
    for (const c of named(n)) collectCalls(c);
  };
  collectCalls(body);
  return found.map(({ node, make }) => ({ ...make(), swallowed: isSwallowed(node, body), line: node.startPosition.row + 1 }));
}

function skipReason(decorators: readonly Node[], body: Node): string | null {
  for (const d of decorators) {
    const t = d.text.replace(/\s+/g, '');
    if (/^@(pytest\.mark\.skip|unittest\.skip|skip)(\(|$)/.test(t) && !/skipIf|skipif|skipUnless/.test(t)) return `decorated ${d.text.trim()}`;
    if (/^@(pytest\.mark\.skipif|unittest\.skipIf)\(True\b/.test(t)) return `decorated ${d.text.trim()}`;
    if (t.startsWith('@pytest.mark.xfail')) return `decorated ${d.text.trim()} (expected to fail)`;
  }
  const first = named(body)[0];
  if (first?.type === 'expression_statement') {
    const c = named(first)[0];
    if (c?.type === 'call' && /^(pytest\.skip|self\.skipTest)$/.test(calleeText(c) ?? '')) return `calls ${calleeText(c) ?? ''}() first`;
  }
  return null;
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
  if (n.type === 'decorated_definition' && field(n, 'definition')?.type === 'class_definition') return { cls: field(n, 'definition') as Node, decorators: named(n).filter((c) => c.type === 'decorator') };
  return null;
}

/** The last name of each base in a class statement (`unittest.TestCase` -> `TestCase`); keyword arguments (metaclass=...) left out. */
function baseNames(cls: Node): string[] {
  const args = field(cls, 'superclasses');
  if (!args) return [];
  return named(args).filter((a) => a.type === 'identifier' || a.type === 'attribute').map((a) => (a.type === 'attribute' ? (field(a, 'attribute')?.text ?? '') : a.text));
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
  for (let grew = true; grew; ) {
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
export async function classifyPyTests(path: string, text: string, assertionFunctions: readonly string[] = [], readsSource: string | null = null): Promise<TestSource[]> {
  const parser = await getParser('python');
  const tree = parser.parse(text);
  if (!tree) return [];
  try {
    const root = tree.rootNode;
    const assertionFns = new Set(assertionFunctions);
    const helpers = new Set<string>();
    for (const top of named(root)) {
      const d = definitionOf(top);
      const name = d && field(d.def, 'name')?.text;
      const body = d && field(d.def, 'body');
      // A helper counts when what it asserts would make a test of it a property: one that only asserts a literal is no check.
      if (d && name && body && !name.startsWith('test') && checkTest(collectAssertions(body, assertionFns, new Set()), null).kind === 'property') helpers.add(name);
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
            if (d && name && body && !name.startsWith('test') && checkTest(collectAssertions(body, assertionFns, helpers, methods), null).kind === 'property') methods.add(name);
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
            visitDefs(cbody, inner, all);
            // The tests it inherits from classes of this file (a mixin's, a base TestCase's):
            // pytest runs them under this class too, as `ThisClass::test_x`. Its own win.
            const seen = new Set(named(cbody).map((m) => definitionOf(m)).map((d) => (d ? (field(d.def, 'name')?.text ?? '') : '')));
            const visited = new Set<string>([cname]);
            const inherit = (c: Node): void => {
              for (const b of baseNames(c)) {
                const base = topClasses.get(b);
                if (base === undefined || visited.has(b)) continue;
                visited.add(b);
                const bbody = field(base, 'body');
                if (bbody) for (const m of named(bbody)) pushTest(m, inner, all, seen);
                inherit(base);
              }
            };
            inherit(cls);
          }
          continue;
        }
        pushTest(top, suite, classDecorators, null);
      }
    };
    /** A test function or method (test*) as a test of `suite`; once per name where `seen` is given. */
    const pushTest = (top: Node, suite: string[], classDecorators: Node[], seen: Set<string> | null): void => {
      const d = definitionOf(top);
      if (!d) return;
      const name = field(d.def, 'name')?.text ?? '';
      const body = field(d.def, 'body');
      if (!name.startsWith('test') || !body) return;
      if (seen !== null) {
        if (seen.has(name)) return;
        seen.add(name);
      }
      const skip = skipReason([...classDecorators, ...d.decorators], body);
      out.push({ file: path, suite, name, line: d.def.startPosition.row + 1, verdict: checkTest(collectAssertions(body, assertionFns, helpers, methods), skip, sourceTextUse(body) ?? readsSource) });
    };
    const topClasses = new Map<string, Node>();
    for (const top of named(root)) {
      const c = classOf(top);
      const n = c && field(c.cls, 'name')?.text;
      if (c && n) topClasses.set(n, c.cls);
    }
    visitDefs(root, [], []);
    return out;
  } finally {
    tree.delete();
  }
}

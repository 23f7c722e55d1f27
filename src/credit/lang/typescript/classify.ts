// TS/JS tests read and classified with the TypeScript compiler's parser: each test's assertions, skips and name.
import { createRequire } from 'node:module';
import type * as TS from 'typescript';
import { checkTest, EQUALITY_METHODS, type Assertion, type Operand, type TestSource } from '../../tests/classify.js';
import { escapeRegExp } from '../../../core/text.js';

// Required when this module is first used, not imported: the bundle must not load the 9 MB compiler at startup.
const ts = createRequire(import.meta.url)('typescript') as typeof TS;

const TEST_FNS = new Set(['test', 'it', 'specify']);
const SUITE_FNS = new Set(['describe', 'suite', 'context']);
const SKIP_MODS = new Set(['skip', 'todo', 'fixme']);
const X_FNS = new Set(['xit', 'xtest', 'xdescribe', 'xspecify']);
const COMPARISON_OPS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
]);

function scriptKindOf(path: string): TS.ScriptKind {
  if (/\.[cm]?tsx?$/.test(path)) return path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return path.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
}

const isFn = (n: TS.Node): n is TS.ArrowFunction | TS.FunctionExpression =>
  ts.isArrowFunction(n) || ts.isFunctionExpression(n);

/** `a.b.c` as ['a','b','c'] for identifier/property chains; null for anything else. */
function calleePath(e: TS.Expression): string[] | null {
  if (ts.isIdentifier(e)) return [e.text];
  if (ts.isPropertyAccessExpression(e)) {
    const head = calleePath(e.expression);
    return head ? [...head, e.name.text] : null;
  }
  return null;
}

function stringOf(e: TS.Expression | undefined): string | null {
  if (e && (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e))) return e.text;
  return null;
}

function unparen(e: TS.Expression): TS.Expression {
  let x = e;
  while (
    ts.isParenthesizedExpression(x) ||
    ts.isAsExpression(x) ||
    ts.isNonNullExpression(x) ||
    ts.isSatisfiesExpression(x)
  )
    x = x.expression;
  return x;
}

export function isLiteralTs(e0: TS.Expression): boolean {
  const e = unparen(e0);
  switch (e.kind) {
    case ts.SyntaxKind.NumericLiteral:
    case ts.SyntaxKind.BigIntLiteral:
    case ts.SyntaxKind.StringLiteral:
    case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
    case ts.SyntaxKind.TrueKeyword:
    case ts.SyntaxKind.FalseKeyword:
    case ts.SyntaxKind.NullKeyword:
    case ts.SyntaxKind.RegularExpressionLiteral:
      return true;
  }
  if (ts.isIdentifier(e)) return e.text === 'undefined' || e.text === 'NaN' || e.text === 'Infinity';
  if (ts.isPrefixUnaryExpression(e))
    return (
      (e.operator === ts.SyntaxKind.MinusToken || e.operator === ts.SyntaxKind.PlusToken) && isLiteralTs(e.operand)
    );
  if (ts.isArrayLiteralExpression(e)) return e.elements.every((x) => !ts.isSpreadElement(x) && isLiteralTs(x));
  if (ts.isObjectLiteralExpression(e))
    return e.properties.every(
      (p) => ts.isPropertyAssignment(p) && !ts.isComputedPropertyName(p.name) && isLiteralTs(p.initializer),
    );
  return false;
}

function hasCall(n: TS.Node): boolean {
  let found = false;
  const visit = (x: TS.Node): void => {
    if (found) return;
    if (
      ts.isCallExpression(x) ||
      ts.isNewExpression(x) ||
      ts.isTaggedTemplateExpression(x) ||
      ts.isAwaitExpression(x) ||
      ts.isYieldExpression(x)
    ) {
      found = true;
      return;
    }
    ts.forEachChild(x, visit);
  };
  visit(n);
  return found;
}

interface Scope {
  readonly sf: TS.SourceFile;
  /** Every assignment to a plain name in the test, in source order. */
  readonly assigns: { name: string; end: number; literal: boolean }[];
  /** Start positions of every call that is not part of an assertion. */
  readonly calls: number[];
}

function operandOf(e: TS.Expression, at: number, scope: Scope): Operand {
  const x = unparen(e);
  const literal = isLiteralTs(x);
  const key = hasCall(x) ? null : x.getText(scope.sf).replace(/\s+/g, '');
  let selfAssigned = false;
  if (ts.isIdentifier(x) && !literal) {
    const last = scope.assigns.filter((a) => a.name === x.text && a.end <= at).at(-1);
    if (last?.literal) selfAssigned = !scope.calls.some((c) => c > last.end && c < at);
  }
  return { literal, isTrue: x.kind === ts.SyntaxKind.TrueKeyword, key, selfAssigned };
}

const TYPE_PREDICATES = new Set([
  'Number.isFinite',
  'Number.isInteger',
  'Number.isSafeInteger',
  'Number.isNaN',
  'isNaN',
  'isFinite',
  'Array.isArray',
  'ArrayBuffer.isView',
  'Buffer.isBuffer',
]);
const isNullish = (e: TS.Expression): boolean => {
  const x = unparen(e);
  return (
    x.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(x) && x.text === 'undefined') || ts.isVoidExpression(x)
  );
};
const isTypeof = (e: TS.Expression): boolean => ts.isTypeOfExpression(unparen(e));

/** Why a checked boolean expression tells only a type or non-nullness, or null. */
function weakExpr(e0: TS.Expression): string | null {
  const e = unparen(e0);
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.ExclamationToken) return weakExpr(e.operand);
  if (ts.isBinaryExpression(e)) {
    const k = e.operatorToken.kind;
    if (k === ts.SyntaxKind.InstanceOfKeyword) return 'check only a type';
    if (COMPARISON_OPS.has(k) && (isTypeof(e.left) || isTypeof(e.right))) return 'check only a type';
    if (
      (k === ts.SyntaxKind.ExclamationEqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsToken) &&
      (isNullish(e.left) || isNullish(e.right))
    )
      return 'check only that a value is not null or undefined';
    if (k === ts.SyntaxKind.AmpersandAmpersandToken) {
      const l = weakExpr(e.left);
      const r = weakExpr(e.right);
      return l !== null && r !== null ? l : null;
    }
  }
  if (ts.isCallExpression(e)) {
    const p = calleePath(e.expression)?.join('.');
    if (p !== undefined && TYPE_PREDICATES.has(p)) return 'check only a type';
  }
  return null;
}

/** Why an expect(...) matcher tells only that nothing throws, a type or non-nullness, or null. */
function weakMatcher(n: TS.CallExpression, actual: TS.Expression | undefined): string | null {
  const matcher = ts.isPropertyAccessExpression(n.expression) ? n.expression.name.text : '';
  const chain: string[] = [];
  for (let x: TS.Expression = n.expression; ts.isPropertyAccessExpression(x); x = x.expression) chain.push(x.name.text);
  const not = chain.includes('not');
  const arg = n.arguments[0];
  if (not && (matcher === 'toThrow' || matcher === 'toThrowError')) return 'check only that nothing throws';
  if (
    matcher === 'toBeDefined' ||
    (not && (matcher === 'toBeUndefined' || matcher === 'toBeNull' || matcher === 'toBeNaN'))
  )
    return 'check only that a value is not null or undefined';
  if (
    not &&
    (matcher === 'toBe' || matcher === 'toEqual' || matcher === 'toStrictEqual') &&
    arg !== undefined &&
    isNullish(arg)
  )
    return 'check only that a value is not null or undefined';
  if (matcher === 'toBeInstanceOf' || matcher === 'toBeTypeOf' || matcher === 'toBeFinite') return 'check only a type';
  if (
    actual !== undefined &&
    (isTypeof(actual) || weakExpr(actual) !== null) &&
    ['toBe', 'toEqual', 'toStrictEqual', 'toBeTruthy', 'toBeFalsy'].includes(matcher)
  )
    return 'check only a type';
  return null;
}

/** A checked boolean expression: a comparison compares its sides; `!x` checks x. */
function truthAssertion(e0: TS.Expression, at: number, scope: Scope): Pick<Assertion, 'operands' | 'compares'> {
  const e = unparen(e0);
  if (ts.isBinaryExpression(e) && COMPARISON_OPS.has(e.operatorToken.kind)) {
    return { operands: [operandOf(e.left, at, scope), operandOf(e.right, at, scope)], compares: true };
  }
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.ExclamationToken)
    return truthAssertion(e.operand, at, scope);
  return { operands: [operandOf(e, at, scope)], compares: false };
}

/** Is `n` inside a try block whose catch swallows, or only inside a catch clause that runs on a throw? */
function isSwallowed(n: TS.Node, stop: TS.Node): boolean {
  let child: TS.Node = n;
  for (let p = n.parent; p && p !== stop; child = p, p = p.parent) {
    if (ts.isTryStatement(p) && child === p.tryBlock && p.catchClause && !rethrows(p.catchClause.block)) return true;
    if (ts.isCatchClause(p) && ts.isTryStatement(p.parent) && !rethrows(p.parent.tryBlock)) return true;
  }
  return false;
}

function rethrows(block: TS.Node): boolean {
  let found = false;
  const visit = (x: TS.Node): void => {
    if (found) return;
    if (ts.isThrowStatement(x)) found = true;
    else if (ts.isCallExpression(x) && calleePath(x.expression)?.at(-1) === 'fail') found = true;
    else if (!ts.isFunctionLike(x)) ts.forEachChild(x, visit);
  };
  visit(block);
  return found;
}

interface Ctx {
  readonly sf: TS.SourceFile;
  readonly assertionFns: ReadonlySet<string>;
  /** Names bound from Node's assert module (assertImports): a function to its method, a namespace or default to `*`. */
  readonly asserts: ReadonlyMap<string, string>;
  /** Same-file helpers whose bodies assert: calling one counts as an assertion. */
  readonly helpers: ReadonlySet<string>;
}

/** Every assertion inside one test body. */
function collectAssertions(body: TS.Node, ctx: Ctx): Assertion[] {
  const sf = ctx.sf;
  const scope: Scope = { sf, assigns: [], calls: [] };
  const assertionCalls = new Set<TS.Node>();
  const found: { node: TS.Node; make: () => Pick<Assertion, 'operands' | 'compares' | 'opaque' | 'weak'> }[] = [];
  const lineOf = (n: TS.Node): number => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;

  const markChain = (n: TS.Node): void => {
    // The whole expect(...).not.toBe(...) chain is assertion machinery, not a production call.
    let x: TS.Node = n;
    while (ts.isCallExpression(x) || ts.isPropertyAccessExpression(x)) {
      if (ts.isCallExpression(x)) assertionCalls.add(x);
      x = x.expression;
    }
  };

  const visit = (n: TS.Node): void => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer) {
      scope.assigns.push({ name: n.name.text, end: n.end, literal: isLiteralTs(n.initializer) });
    } else if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isIdentifier(n.left)
    ) {
      scope.assigns.push({ name: n.left.text, end: n.end, literal: isLiteralTs(n.right) });
    } else if (
      ts.isBinaryExpression(n) &&
      ts.isIdentifier(n.left) &&
      n.operatorToken.kind >= ts.SyntaxKind.FirstCompoundAssignment &&
      n.operatorToken.kind <= ts.SyntaxKind.LastCompoundAssignment
    ) {
      scope.assigns.push({ name: n.left.text, end: n.end, literal: false });
    } else if (
      ts.isPostfixUnaryExpression(n) ||
      (ts.isPrefixUnaryExpression(n) &&
        (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken))
    ) {
      if (ts.isIdentifier(n.operand)) scope.assigns.push({ name: n.operand.text, end: n.end, literal: false });
    }
    if (ts.isCallExpression(n)) {
      const path = calleePath(n.expression);
      const last = path?.at(-1);
      if (isExpectMatcher(n)) {
        markChain(n);
        const actual = (rootCall(n) as TS.CallExpression).arguments[0];
        const args = [...n.arguments];
        found.push({
          node: n,
          make: () => {
            const ops = [actual, ...args]
              .filter((a): a is TS.Expression => a !== undefined)
              .map((a) => operandOf(a, n.getStart(sf), scope));
            const weak = weakMatcher(n, actual);
            return {
              operands: ops,
              compares: ops.length === 2,
              opaque: actual === undefined,
              ...(weak !== null ? { weak } : {}),
            };
          },
        });
      } else if (
        path &&
        (path[0] === 'assert' || path.includes('assert') || ctx.asserts.has(path[0] as string)) &&
        !(path.length === 2 && path[0] === 'fc')
      ) {
        assertionCalls.add(n);
        // `equal(...)` imported from node:assert is its equal; the module itself (`assert(...)`, `a(...)`) is ok.
        const bound = path.length === 1 ? ctx.asserts.get(path[0] as string) : undefined;
        const method = bound !== undefined && bound !== '*' ? bound : path.length === 1 ? 'ok' : (last ?? 'ok');
        found.push({ node: n, make: () => assertCall(n, method, scope) });
      } else if (last !== undefined && (ctx.assertionFns.has(last) || ctx.assertionFns.has(path?.join('.') ?? ''))) {
        assertionCalls.add(n);
        found.push({
          node: n,
          make: () => {
            const ops = n.arguments.map((a) => operandOf(a, n.getStart(sf), scope));
            return { operands: ops, compares: ops.length === 2, opaque: ops.length === 0 };
          },
        });
      } else if (last !== undefined && path?.length === 1 && ctx.helpers.has(last)) {
        found.push({ node: n, make: () => ({ operands: [], compares: false, opaque: true }) });
      } else if (last === 'fail' && path !== null) {
        assertionCalls.add(n);
        found.push({ node: n, make: () => ({ operands: [], compares: false, opaque: true }) });
      } else if ((last === 'property' || last === 'asyncProperty') && n.arguments.length > 0) {
        const pred = n.arguments[n.arguments.length - 1];
        if (pred && isFn(pred)) {
          if (!ts.isBlock(pred.body)) {
            const e = pred.body;
            found.push({ node: e, make: () => ({ ...truthAssertion(e, e.getStart(sf), scope), opaque: false }) });
          } else {
            const returns: TS.ReturnStatement[] = [];
            const findReturns = (x: TS.Node): void => {
              if (ts.isReturnStatement(x)) returns.push(x);
              else if (!ts.isFunctionLike(x)) ts.forEachChild(x, findReturns);
            };
            ts.forEachChild(pred.body, findReturns);
            for (const r of returns) {
              const e = r.expression;
              if (e)
                found.push({ node: r, make: () => ({ ...truthAssertion(e, e.getStart(sf), scope), opaque: false }) });
            }
          }
        }
      }
    }
    if (ts.isThrowStatement(n)) {
      // `if (cond) throw ...` checks cond; a bare throw always fails.
      const guard = ts.isIfStatement(n.parent)
        ? n.parent
        : ts.isBlock(n.parent) && ts.isIfStatement(n.parent.parent)
          ? n.parent.parent
          : null;
      found.push({
        node: n,
        make: () =>
          guard
            ? { ...truthAssertion(guard.expression, n.getStart(sf), scope), opaque: false }
            : { operands: [], compares: false, opaque: true },
      });
    }
    ts.forEachChild(n, visit);
  };
  visit(body);

  const collectCalls = (n: TS.Node): void => {
    if ((ts.isCallExpression(n) || ts.isNewExpression(n) || ts.isAwaitExpression(n)) && !assertionCalls.has(n))
      scope.calls.push(n.getStart(sf));
    ts.forEachChild(n, collectCalls);
  };
  collectCalls(body);
  // Calls inside an assertion's own arguments are the thing under test; they count as calls too.
  return found.map(({ node, make }) => ({ ...make(), swallowed: isSwallowed(node, body), line: lineOf(node) }));
}

/** The innermost call at the bottom of a call/property chain, e.g. expect(x) in expect(x).not.toBe(y). */
function rootCall(n: TS.CallExpression): TS.CallExpression | null {
  let x: TS.Expression = n.expression;
  for (;;) {
    if (ts.isPropertyAccessExpression(x)) x = x.expression;
    else if (ts.isCallExpression(x)) {
      const p = calleePath(x.expression);
      if (p && (p[0] === 'expect' || p.join('.') === 'expect.soft')) return x;
      x = x.expression;
    } else return null;
  }
}

function isExpectMatcher(n: TS.CallExpression): boolean {
  if (!ts.isPropertyAccessExpression(n.expression)) return false;
  // Only the outermost call of a chain: expect(x).resolves.toBe(1) is one assertion.
  if (
    ts.isPropertyAccessExpression(n.parent) &&
    ts.isCallExpression(n.parent.parent) &&
    n.parent.parent.expression === n.parent
  )
    return false;
  return rootCall(n) !== null;
}

function assertCall(
  n: TS.CallExpression,
  method: string,
  scope: Scope,
): Pick<Assertion, 'operands' | 'compares' | 'opaque' | 'weak'> {
  const at = n.getStart(scope.sf);
  const args = n.arguments;
  if (method === 'doesNotThrow' || method === 'doesNotReject')
    return { operands: [], compares: false, opaque: true, weak: 'check only that nothing throws' };
  if (method === 'ok' || method === 'assert' || method === 'isTrue' || method === 'isOk') {
    const a = args[0];
    const weak = a ? weakExpr(a) : null;
    return a
      ? { ...truthAssertion(a, at, scope), opaque: false, ...(weak !== null ? { weak } : {}) }
      : { operands: [], compares: false, opaque: true };
  }
  if (method === 'isDefined' || method === 'isNotNull' || method === 'exists')
    return { operands: [], compares: false, opaque: true, weak: 'check only that a value is not null or undefined' };
  if (EQUALITY_METHODS.has(method) || method === 'match' || method === 'doesNotMatch' || method === 'notEqual') {
    const [a, b] = args;
    if (a && b) {
      const negated = method.startsWith('not');
      const weak =
        isTypeof(a) || isTypeof(b)
          ? 'check only a type'
          : negated && (isNullish(a) || isNullish(b))
            ? 'check only that a value is not null or undefined'
            : null;
      return {
        operands: [operandOf(a, at, scope), operandOf(b, at, scope)],
        compares: true,
        opaque: false,
        ...(weak !== null ? { weak } : {}),
      };
    }
  }
  // throws / rejects / fail and anything unknown: judged by the oracle, not here.
  return { operands: [], compares: false, opaque: true };
}

function skipReasonOfOptions(args: readonly TS.Expression[]): string | null {
  for (const a of args) {
    if (!ts.isObjectLiteralExpression(a)) continue;
    for (const p of a.properties) {
      if (!ts.isPropertyAssignment(p) || !ts.isIdentifier(p.name)) continue;
      if ((p.name.text === 'skip' || p.name.text === 'todo') && p.initializer.kind !== ts.SyntaxKind.FalseKeyword)
        return `marked ${p.name.text} in its options`;
    }
  }
  return null;
}

/** Names of same-file functions whose bodies contain an assertion (helpers such as checkTotal). */
function assertingHelpers(sf: TS.SourceFile, assertionFns: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  const asserts = assertImports(sf);
  const bodyAsserts = (body: TS.Node): boolean =>
    collectAssertions(body, { sf, assertionFns, asserts, helpers: new Set() }).some((a) => !a.swallowed);
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name && st.body && bodyAsserts(st.body)) out.add(st.name.text);
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer && isFn(d.initializer) && bodyAsserts(d.initializer.body))
          out.add(d.name.text);
      }
    }
  }
  return out;
}

/** test.each's printf placeholders (%s %d %i %f %j %o %O %p %#) and $variable interpolations. */
const PLACEHOLDER = /%[sdifjoOp#]|\$[A-Za-z_][\w.]*/g;

/**
 * The pattern of the names a computed test name produces, or null for a plain literal name.
 * `opaque`: the pattern has no literal text at all (any name fits it).
 */
function namePatternOf(e: TS.Expression | undefined): { re: RegExp; opaque: boolean } | null {
  if (e === undefined) return null;
  const lit = stringOf(e);
  const fromParts = (parts: readonly string[]): { re: RegExp; opaque: boolean } => {
    const pieces = parts.flatMap((p) => p.split(PLACEHOLDER));
    PLACEHOLDER.lastIndex = 0;
    return {
      re: new RegExp(`^${parts.map((p) => p.split(PLACEHOLDER).map(escapeRegExp).join('.*?')).join('.*?')}$`, 's'),
      opaque: pieces.every((x) => x.trim() === ''),
    };
  };
  if (lit !== null) {
    if (!PLACEHOLDER.test(lit)) return null;
    PLACEHOLDER.lastIndex = 0;
    return fromParts([lit]);
  }
  if (ts.isTemplateExpression(e)) return fromParts([e.head.text, ...e.templateSpans.map((s) => s.literal.text)]);
  if (isFn(e)) return null;
  return { re: /^.+$/s, opaque: true };
}

const isLoop = (n: TS.Node): boolean =>
  ts.isForStatement(n) ||
  ts.isForOfStatement(n) ||
  ts.isForInStatement(n) ||
  ts.isWhileStatement(n) ||
  ts.isDoStatement(n);

/** Names a test file imports from its own project (relative or absolute specifiers): the code under test. */
/** Node's assert module, by every name a test imports it by. */
const ASSERT_MODULES = new Set(['assert', 'node:assert', 'assert/strict', 'node:assert/strict']);

/**
 * The names a file binds from Node's assert module at its top level: named imports and
 * destructured requires bind functions (to their method), a default, namespace or plain require
 * binds the module (`*`). A `let` or `var` binding is none: it can be pointed at a no-op.
 */
function assertImports(sf: TS.SourceFile): Map<string, string> {
  const out = new Map<string, string>();
  // What a name taken from the module is: one of its functions, or (strict, default) the module again.
  const taken = (from: string): string => (from === 'strict' || from === 'default' ? '*' : from);
  const requireOf = (e: TS.Expression | undefined): boolean =>
    e !== undefined &&
    ts.isCallExpression(e) &&
    ts.isIdentifier(e.expression) &&
    e.expression.text === 'require' &&
    e.arguments.length === 1 &&
    ts.isStringLiteral(e.arguments[0] as TS.Expression) &&
    ASSERT_MODULES.has((e.arguments[0] as TS.StringLiteral).text);
  for (const st of sf.statements) {
    if (
      ts.isImportDeclaration(st) &&
      ts.isStringLiteral(st.moduleSpecifier) &&
      ASSERT_MODULES.has(st.moduleSpecifier.text)
    ) {
      const c = st.importClause;
      if (!c || c.isTypeOnly) continue;
      if (c.name) out.set(c.name.text, '*');
      const b = c.namedBindings;
      if (b && ts.isNamespaceImport(b)) out.set(b.name.text, '*');
      if (b && ts.isNamedImports(b))
        for (const e of b.elements) if (!e.isTypeOnly) out.set(e.name.text, taken((e.propertyName ?? e.name).text));
    } else if (ts.isVariableStatement(st) && (st.declarationList.flags & ts.NodeFlags.Const) !== 0) {
      // `const` only: a `let` or `var` binding can be pointed at a no-op later.
      for (const d of st.declarationList.declarations) {
        const init =
          d.initializer && ts.isPropertyAccessExpression(d.initializer) && d.initializer.name.text === 'strict'
            ? d.initializer.expression
            : d.initializer;
        if (!requireOf(init)) continue;
        if (ts.isIdentifier(d.name)) out.set(d.name.text, '*');
        else if (ts.isObjectBindingPattern(d.name)) {
          for (const e of d.name.elements) {
            if (!ts.isIdentifier(e.name) || e.dotDotDotToken) continue;
            out.set(
              e.name.text,
              taken(e.propertyName && ts.isIdentifier(e.propertyName) ? e.propertyName.text : e.name.text),
            );
          }
        }
      }
    }
  }
  return out;
}

function importedNames(sf: TS.SourceFile): Set<string> {
  const out = new Set<string>();
  for (const st of sf.statements) {
    if (
      !ts.isImportDeclaration(st) ||
      !ts.isStringLiteral(st.moduleSpecifier) ||
      !/^[./]/.test(st.moduleSpecifier.text)
    )
      continue;
    const c = st.importClause;
    if (!c) continue;
    if (c.name) out.add(c.name.text);
    const b = c.namedBindings;
    if (b && ts.isNamespaceImport(b)) out.add(b.name.text);
    if (b && ts.isNamedImports(b)) for (const e of b.elements) out.add(e.name.text);
  }
  return out;
}

/** How a test reads the source text of the code under test (`fn.toString()`, `String(fn)`, `${fn}`), or null. */
function sourceTextUse(body: TS.Node, imported: ReadonlySet<string>, sf: TS.SourceFile): string | null {
  let found: string | null = null;
  const isImported = (e: TS.Expression): boolean => {
    const x = unparen(e);
    const head = calleePath(x)?.[0];
    return head !== undefined && imported.has(head);
  };
  const visit = (n: TS.Node): void => {
    if (found !== null) return;
    const line = (): number => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
    if (ts.isPropertyAccessExpression(n) && (n.name.text === 'toString' || n.name.text === 'toSource')) {
      if (isImported(n.expression) || calleePath(n.expression)?.join('.') === 'Function.prototype')
        found = `it reads the source text of the code under test (${n.getText(sf).slice(0, 60)} at line ${line()})`;
    } else if (
      ts.isCallExpression(n) &&
      ts.isIdentifier(n.expression) &&
      n.expression.text === 'String' &&
      n.arguments[0] &&
      isImported(n.arguments[0])
    ) {
      found = `it reads the source text of the code under test (String(...) at line ${line()})`;
    } else if (ts.isTemplateSpan(n) && isImported(n.expression)) {
      found = `it reads the source text of the code under test (a template at line ${line()})`;
    } else if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind === ts.SyntaxKind.PlusToken &&
      ((ts.isStringLiteral(n.left) && isImported(n.right)) || (ts.isStringLiteral(n.right) && isImported(n.left)))
    ) {
      found = `it reads the source text of the code under test (string concatenation at line ${line()})`;
    }
    ts.forEachChild(n, visit);
  };
  visit(body);
  return found;
}

/**
 * Every test in a TS/JS test file with its static verdict. `readsSource`: why the whole file
 * reads the source text of the code under test (src/credit/tests.ts), or null.
 */
export function classifyTsTests(
  path: string,
  text: string,
  assertionFunctions: readonly string[] = [],
  readsSource: string | null = null,
): TestSource[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, scriptKindOf(path));
  const assertionFns = new Set(assertionFunctions);
  const ctx: Ctx = { sf, assertionFns, asserts: assertImports(sf), helpers: assertingHelpers(sf, assertionFns) };
  const imported = importedNames(sf);
  const out: TestSource[] = [];
  // `repeated`: the call can run more than once (a loop, `.each`, a function other than a suite's callback).
  const walk = (n: TS.Node, suite: readonly string[], suiteSkip: string | null, repeated: boolean): void => {
    if (ts.isCallExpression(n)) {
      let callee: TS.Expression = n.expression;
      // test.each(table)(name, fn) / describe.each
      if (ts.isCallExpression(callee)) callee = callee.expression;
      const path = calleePath(callee);
      const base = path?.[0];
      const mods = path?.slice(1) ?? [];
      const isTest =
        base !== undefined && (TEST_FNS.has(base) || base === 'xit' || base === 'xtest' || base === 'xspecify');
      const isSuite = base !== undefined && (SUITE_FNS.has(base) || base === 'xdescribe');
      const first = n.arguments[0];
      const literalName = stringOf(first);
      // A name computed at run time still names a test (or suite): classified from its body, matched by pattern.
      const name =
        literalName ??
        (first && ts.isTemplateExpression(first)
          ? first.getText(sf).slice(1, -1)
          : first && !isFn(first)
            ? first.getText(sf)
            : null);
      const pattern = namePatternOf(first);
      const fn = [...n.arguments].reverse().find(isFn);
      if (
        (isTest || isSuite) &&
        name !== null &&
        mods.every(
          (m) =>
            SKIP_MODS.has(m) ||
            m === 'only' ||
            m === 'each' ||
            m === 'concurrent' ||
            m === 'sequential' ||
            m === 'failing',
        )
      ) {
        const skipMod = mods.find((m) => SKIP_MODS.has(m));
        const skip =
          suiteSkip ??
          (X_FNS.has(base) ? `declared with ${base}` : null) ??
          (skipMod !== undefined ? `declared with ${base}.${skipMod}` : null) ??
          skipReasonOfOptions(n.arguments.slice(1, -1));
        if (isSuite) {
          if (fn) ts.forEachChild(fn.body, (c) => walk(c, [...suite, name], skip, repeated || mods.includes('each')));
          return;
        }
        let verdictSkip = skip;
        if (verdictSkip === null && fn && ts.isBlock(fn.body)) {
          // t.skip() / t.todo() / ctx.skip() as the test body's first statement
          const first = fn.body.statements[0];
          if (first && ts.isExpressionStatement(first) && ts.isCallExpression(first.expression)) {
            const p = calleePath(first.expression.expression);
            if (p?.length === 2 && (p[1] === 'skip' || p[1] === 'todo')) verdictSkip = `calls ${p.join('.')}() first`;
          }
        }
        if (!fn && verdictSkip === null) verdictSkip = 'has no body (todo)';
        const assertions = fn ? collectAssertions(fn.body, ctx) : [];
        out.push({
          file: path_(sf),
          suite,
          name,
          line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1,
          verdict: checkTest(
            assertions,
            verdictSkip,
            (fn ? sourceTextUse(fn.body, imported, sf) : null) ?? readsSource,
          ),
          // A computed name that runs once and has no literal text fits any name: it defines no reported name.
          ...(pattern !== null && !(pattern.opaque && !(repeated || mods.includes('each')))
            ? { namePattern: pattern.re, once: !(repeated || mods.includes('each')) }
            : {}),
        });
        return;
      }
    }
    const inner =
      repeated ||
      isLoop(n) ||
      ts.isFunctionLike(n) ||
      (ts.isCallExpression(n) &&
        ts.isPropertyAccessExpression(n.expression) &&
        ['forEach', 'map', 'flatMap'].includes(n.expression.name.text));
    ts.forEachChild(n, (c) => walk(c, suite, suiteSkip, inner));
  };
  walk(sf, [], null, false);
  return out;
}

const path_ = (sf: TS.SourceFile): string => sf.fileName;

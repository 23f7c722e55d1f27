// TS/JS mutants of one symbol, with the TypeScript compiler's parser: the probe, the trace, the null mutant and the behavioural candidates.
import { createRequire } from 'node:module';
import type * as TS from 'typescript';
import type { SymbolChange } from '../../mutants/change.js';
import { touchesChange } from '../../mutants/change.js';
import type { Edit, MutantCategory, NullPart, Site } from '../../mutants/mutant.js';
import {
  applyEdits,
  camouflage,
  freshName,
  holdsName,
  isModuleSymbol,
  noiseFor,
  nullWithParts,
  probeMutant,
  randomNoiseKey,
  toMutants,
  type Mutant,
  type Noise,
  type SymbolMutants,
  type SymbolSpan,
} from '../../mutants/mutant.js';

// Required when this module is first used, not imported: the bundle must not load the 9 MB compiler at startup.
const ts = createRequire(import.meta.url)('typescript') as typeof TS;

export type { SymbolMutants, SymbolSpan } from '../../mutants/mutant.js';
export { freshName, isModuleSymbol } from '../../mutants/mutant.js';

const PROBE = "throw new Error('sealgate-probe')";

/**
 * An expression that appends `<symbol>\t<test file>` to $SEALGATE_TRACE_FILE once per symbol and
 * test, with `\t<test name>` where jest or vitest names the running test, and the file alone while
 * none runs. It reaches every global through `globalThis` and leaves no global name behind.
 */
export function traceExpr(symbol: string, typed: boolean): string {
  const g = typed ? '(globalThis as any)' : 'globalThis';
  const a = typed ? ': any' : '';
  const id = JSON.stringify(symbol);
  // Globals through `g` only: a local of the function named `String`, `JSON`, `Symbol`, `Object`
  // or `Set` (a parameter, or a `let` still in its dead zone) must not break the expression.
  return `void ((g${a}, f${a}) => { if (!f) return; const e1 = g.expect?.getState?.(), e2 = g[g.Symbol.for('expect-global')]?.getState?.(), e3 = g[g.Symbol.for('$$jest-matchers-object')]?.state; const w = g.String(e1?.testPath ?? e2?.testPath ?? e3?.testPath ?? g.__vitest_worker__?.filepath ?? g.process?.argv?.[1] ?? ''); const n = e1?.currentTestName ?? e2?.currentTestName ?? e3?.currentTestName; const k = ${id} + '\\t' + w + (typeof n === 'string' && n !== '' ? '\\t' + g.JSON.stringify(n) : ''); const y = g.Symbol.for('sealgate.trace'); if (!g[y]) g.Object.defineProperty(g, y, { value: new g.Set() }); const s = g[y]; if (s.has(k)) return; s.add(k); g.process?.getBuiltinModule?.('node:fs')?.appendFileSync(f, k + '\\n'); })(${g}, ${g}.process?.env?.SEALGATE_TRACE_FILE)`;
}

type FnLike = TS.FunctionLikeDeclaration & { body: TS.Block | TS.Expression };

function scriptKindOf(path: string): TS.ScriptKind {
  if (/\.[cm]?tsx?$/.test(path)) return path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return path.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
}

const ARITH: Partial<Record<TS.SyntaxKind, string>> = {
  [ts.SyntaxKind.PlusToken]: '-',
  [ts.SyntaxKind.MinusToken]: '+',
  [ts.SyntaxKind.AsteriskToken]: '/',
  [ts.SyntaxKind.SlashToken]: '*',
  [ts.SyntaxKind.PercentToken]: '*',
  [ts.SyntaxKind.AsteriskAsteriskToken]: '*',
};
const COMPARE: Partial<Record<TS.SyntaxKind, string>> = {
  [ts.SyntaxKind.LessThanToken]: '<=',
  [ts.SyntaxKind.LessThanEqualsToken]: '<',
  [ts.SyntaxKind.GreaterThanToken]: '>=',
  [ts.SyntaxKind.GreaterThanEqualsToken]: '>',
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: '!==',
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: '===',
  [ts.SyntaxKind.EqualsEqualsToken]: '!=',
  [ts.SyntaxKind.ExclamationEqualsToken]: '==',
};
const LOGICAL: Partial<Record<TS.SyntaxKind, string>> = {
  [ts.SyntaxKind.AmpersandAmpersandToken]: '||',
  [ts.SyntaxKind.BarBarToken]: '&&',
};

/** A return value replaced by another of the same runtime type: a number off by one, a boolean negated, a string emptied, an element or field dropped. */
function altValue(expr: string, typed: boolean): string {
  const a = typed ? ': any' : '';
  return `(function sealgateAlt(v${a})${a} { return typeof v === 'number' ? (Number.isFinite(v) ? v + 1 : 0) : typeof v === 'boolean' ? !v : typeof v === 'string' ? (v === '' ? 'sealgate' : '') : typeof v === 'bigint' ? v + BigInt(1) : Array.isArray(v) ? (v.length > 0 ? v.slice(1) : v) : v !== null && typeof v === 'object' && typeof v.then === 'function' ? v.then(sealgateAlt) : v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length > 0 ? Object.fromEntries(Object.entries(v).slice(1)) : v; })(${expr})`;
}

function isFnLike(n: TS.Node): n is FnLike {
  return (
    (ts.isFunctionDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isConstructorDeclaration(n) ||
      ts.isGetAccessorDeclaration(n) ||
      ts.isSetAccessorDeclaration(n) ||
      ts.isArrowFunction(n) ||
      ts.isFunctionExpression(n)) &&
    n.body !== undefined
  );
}

/**
 * Mutants of one symbol in a TS/JS file: a probe, null mutants and the behavioural candidates.
 * With `change`, behavioural mutants sit only on the tokens the patch changed.
 */
export function mutateTs(
  text: string,
  span: SymbolSpan,
  change?: SymbolChange,
  noise: Noise = noiseFor(randomNoiseKey(), span.symbol),
): SymbolMutants {
  const sf = ts.createSourceFile(span.path, text, ts.ScriptTarget.ES2022, true, scriptKindOf(span.path));
  const typed = /\.[cm]?tsx?$/.test(span.path);
  const lineOf = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const colOf = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).character + 1;

  // The symbol's bodies: the outermost functions lying inside its line span.
  const bodies: FnLike[] = [];
  const find = (n: TS.Node): void => {
    if (isModuleSymbol(span.symbol)) return;
    if (isFnLike(n)) {
      const s = lineOf(n.getStart(sf));
      const e = lineOf(n.end);
      if (s >= span.startLine && e <= span.endLine) {
        bodies.push(n);
        return;
      }
    }
    ts.forEachChild(n, find);
  };
  find(sf);
  const hasBody = bodies.length > 0;

  // Probe: throw on entry to every body; a module/class-level symbol throws when its file loads.
  // The trace records the entry instead (see traceExpr) and changes nothing else.
  const entryEdits = (stmt: string, expr: (body: string) => string): Edit[] => {
    if (hasBody) {
      return bodies.map((b) =>
        ts.isBlock(b.body)
          ? { start: b.body.getStart(sf) + 1, end: b.body.getStart(sf) + 1, text: ` ${stmt};` }
          : { start: b.body.getStart(sf), end: b.body.end, text: expr(b.body.getText(sf)) },
      );
    }
    const firstNonImport = sf.statements.find((s) => !ts.isImportDeclaration(s));
    const at = firstNonImport ? firstNonImport.getStart(sf) : text.length;
    return [{ start: at, end: at, text: `${stmt};\n` }];
  };
  const probeEdits = entryEdits(PROBE, () => `(() => { ${PROBE}; })()`);
  const tr = traceExpr(span.symbol, typed);
  const trace = entryEdits(tr, (body) => `(${tr}, (${body}))`);
  const probe = probeMutant(span, hasBody ? 'throws on entry' : 'throws when its file loads', probeEdits);
  // The null parts, as insertions only (an expression body is wrapped, not replaced), so they
  // combine with each other and with the renamed local into one null mutant.
  const nullEdits = (stmt: string, pre: string, post: string): Edit[] => {
    if (hasBody) {
      return bodies.flatMap((b): Edit[] => {
        const at = b.body.getStart(sf);
        return ts.isBlock(b.body)
          ? [{ start: at + 1, end: at + 1, text: ` ${stmt};` }]
          : [
              { start: at, end: at, text: pre },
              { start: b.body.end, end: b.body.end, text: post },
            ];
      });
    }
    return entryEdits(stmt, () => '');
  };
  const parts: NullPart[] = [
    { label: 'a no-op statement', edits: nullEdits('void 0', '(void 0, (', '))') },
    { label: 'a comment', edits: nullEdits(`/* ${noise.word} */`, `/* ${noise.word} */ (`, ')') },
    { label: 'a line break', edits: nullEdits('\n', '\n(', ')') },
  ];
  // Never a local the revert's own text names: the revert carries the rename too (camouflage).
  const renamed = renameLocalTs(
    text,
    span.path,
    sf,
    bodies,
    noise.suffix,
    (change?.revert ?? []).map((e) => e.text),
  );
  if (renamed !== null)
    parts.push({
      label: `a renamed local (${renamed.from} -> ${renamed.to})`,
      edits: renamed.edits,
      renames: renamed.from,
    });
  const chosen = nullWithParts(span, parts, (edits) => parsesTs(span.path, applyEdits(text, edits)));
  const nulls = [chosen.mutant];

  // Behavioural sites: inside the bodies, or (no body) inside the changed lines.
  const inChanged = (n: TS.Node): boolean => {
    const s = lineOf(n.getStart(sf));
    const e = lineOf(n.end);
    return span.changedLines.some(([a, b]) => s >= a && e <= b);
  };
  const sites: Site[] = [];
  /**
   * The characters of [start, end) the patch changed, relative to `start`, as ranges: where the
   * revert's edits replace text inside it (a pattern is many tokens to the change's tokenizer),
   * those parts; where one edit covers all of it, what differs between its text and the base
   * text that edit puts back. Null (all of it) where there is no revert (an added symbol, or
   * no change known).
   */
  const changedWithin = (start: number, end: number): readonly (readonly [number, number])[] | null => {
    if (!change?.revert) return null;
    const out: [number, number][] = [];
    for (const r of change.revert) {
      if (r.end <= r.start || r.end <= start || end <= r.start) continue;
      if (r.start <= start && end <= r.end) {
        const now = text.slice(r.start, r.end);
        let p = 0;
        while (p < now.length && p < r.text.length && now[p] === r.text[p]) p++;
        let q = 0;
        while (q < now.length - p && q < r.text.length - p && now[now.length - 1 - q] === r.text[r.text.length - 1 - q])
          q++;
        out.push([Math.max(0, r.start + p - start), Math.min(end - start, r.end - q - start)]);
      } else out.push([Math.max(0, r.start - start), Math.min(end - start, r.end - start)]);
    }
    return out;
  };
  const add = (category: MutantCategory, node: TS.Node, what: string, edits: Edit[]): void => {
    if (change && !touchesChange(change.changed, edits)) return;
    const pos = node.getStart(sf);
    sites.push({ category, line: lineOf(pos), column: colOf(pos), change: what, edits });
  };
  const visit = (n: TS.Node, allowed: boolean): void => {
    if (
      ts.isTypeNode(n) ||
      ts.isImportDeclaration(n) ||
      ts.isExportDeclaration(n) ||
      ts.isInterfaceDeclaration(n) ||
      ts.isTypeAliasDeclaration(n)
    )
      return;
    const ok = allowed || (!hasBody && (change !== undefined || inChanged(n)));
    if (ok) sitesOf(n);
    ts.forEachChild(n, (c) => visit(c, allowed));
  };
  const sitesOf = (n: TS.Node): void => {
    if (ts.isBinaryExpression(n)) {
      const k = n.operatorToken.kind;
      const op = n.operatorToken;
      const stringy = (e: TS.Expression): boolean =>
        ts.isStringLiteral(e) || ts.isTemplateExpression(e) || ts.isNoSubstitutionTemplateLiteral(e);
      const swap = (cat: MutantCategory, to: string): void =>
        add(cat, op, `${op.getText(sf)} -> ${to}`, [{ start: op.getStart(sf), end: op.end, text: to }]);
      const arith = ARITH[k];
      if (arith !== undefined && !(k === ts.SyntaxKind.PlusToken && (stringy(n.left) || stringy(n.right))))
        swap('arithmetic', arith);
      const cmp = COMPARE[k];
      if (cmp !== undefined && !(EQUALITY.has(k) && guardsThrow(n))) swap('comparison', cmp);
      const logical = LOGICAL[k];
      if (logical !== undefined) swap('logical', logical);
    }
    if (
      (ts.isIfStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n)) &&
      n.expression &&
      !(ts.isIfStatement(n) && isThrowGuard(n))
    ) {
      const e = n.expression;
      add('negate', e, 'negated condition', [{ start: e.getStart(sf), end: e.end, text: `!(${e.getText(sf)})` }]);
    }
    if (ts.isConditionalExpression(n)) {
      const e = n.condition;
      add('negate', e, 'negated condition', [{ start: e.getStart(sf), end: e.end, text: `!(${e.getText(sf)})` }]);
    }
    if (ts.isPrefixUnaryExpression(n)) {
      if (n.operator === ts.SyntaxKind.ExclamationToken && !guardsThrow(n))
        add('unary', n, 'removed !', [{ start: n.getStart(sf), end: n.operand.getStart(sf), text: '' }]);
      if (n.operator === ts.SyntaxKind.MinusToken && !ts.isNumericLiteral(n.operand))
        add('unary', n, 'removed unary -', [{ start: n.getStart(sf), end: n.operand.getStart(sf), text: '' }]);
      if (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken) {
        add('unary', n, 'swapped ++/--', [
          {
            start: n.getStart(sf),
            end: n.getStart(sf) + 2,
            text: n.operator === ts.SyntaxKind.PlusPlusToken ? '--' : '++',
          },
        ]);
      }
    }
    if (ts.isPostfixUnaryExpression(n)) {
      add('unary', n, 'swapped ++/--', [
        { start: n.end - 2, end: n.end, text: n.operator === ts.SyntaxKind.PlusPlusToken ? '--' : '++' },
      ]);
    }
    if (ts.isNumericLiteral(n)) {
      const v = Number(n.text);
      if (Number.isFinite(v))
        add('constant', n, `${n.getText(sf)} -> ${v + 1}`, [{ start: n.getStart(sf), end: n.end, text: `${v + 1}` }]);
    }
    if (n.kind === ts.SyntaxKind.TrueKeyword || n.kind === ts.SyntaxKind.FalseKeyword) {
      const to = n.kind === ts.SyntaxKind.TrueKeyword ? 'false' : 'true';
      add('constant', n, `${n.getText(sf)} -> ${to}`, [{ start: n.getStart(sf), end: n.end, text: to }]);
    }
    if (ts.isStringLiteral(n) && isValueString(n)) {
      add('constant', n, n.text === '' ? "'' filled" : 'string emptied', [
        { start: n.getStart(sf), end: n.end, text: n.text === '' ? `'${noise.fill}'` : "''" },
      ]);
    }
    if (n.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const at = n.getStart(sf);
      for (const [what, to] of regexMutants(n.getText(sf), changedWithin(at, n.end)))
        add('constant', n, what, [{ start: at, end: n.end, text: to }]);
    }
    if (ts.isExpressionStatement(n) && !isDirective(n) && !isSuperCall(n)) {
      add('delete', n, 'statement deleted', [{ start: n.getStart(sf), end: n.end, text: ';' }]);
    }
    if (ts.isReturnStatement(n) && n.expression) {
      const e = n.expression;
      add('return', n, 'return value replaced', [
        { start: e.getStart(sf), end: e.end, text: altValue(e.getText(sf), typed) },
      ]);
    }
    if (ts.isArrowFunction(n) && !ts.isBlock(n.body)) {
      const e = n.body;
      const inner = ts.isObjectLiteralExpression(unparen(e)) ? `(${e.getText(sf)})` : e.getText(sf);
      add('return', e, 'return value replaced', [{ start: e.getStart(sf), end: e.end, text: altValue(inner, typed) }]);
    }
  };
  for (const b of bodies) visit(b.body, true);
  if (!hasBody) visit(sf, false);
  // Each carries the null's changes too (a mutant that cannot is left out), so only its own change tells it from the null.
  const candidates = toMutants(span.symbol, span.path, dedupeOverlaps(sites))
    .map((m) => camouflage(m, chosen.parts, text))
    .filter((m): m is Mutant => m !== null && parsesTs(span.path, applyEdits(text, m.edits)));
  return { probe, trace, candidates, nulls, noise: chosen.parts, hasBody };
}

/**
 * The renamed-local null mutant: the first plain-named `const`/`let`/`var` of the symbol's bodies,
 * renamed (old name and the noise's suffix) at its declaration and every reference the binder
 * resolves to it. Never a local named in `avoid` (the revert's texts); null when none exists, the
 * body can see its own names (`eval`, `with`, `arguments`), or the result does not parse.
 */
function renameLocalTs(
  text: string,
  path: string,
  sf: TS.SourceFile,
  bodies: readonly FnLike[],
  suffix: string,
  avoid: readonly string[],
): { from: string; to: string; edits: Edit[] } | null {
  if (bodies.length === 0) return null;
  // One file, no libraries: the binder's local symbols are all a rename needs.
  const host = ts.createCompilerHost({ noLib: true, noResolve: true });
  const program = ts.createProgram({
    rootNames: [path],
    options: { noLib: true, noResolve: true, allowJs: true, types: [] },
    host: {
      ...host,
      getSourceFile: (f) => (f === path ? sf : undefined),
      fileExists: (f) => f === path,
      readFile: (f) => (f === path ? text : undefined),
    },
  });
  const checker = program.getTypeChecker();
  for (const b of bodies) {
    const body = b.body;
    let sees = false;
    const decls: TS.Identifier[] = [];
    const scan = (n: TS.Node): void => {
      if (ts.isIdentifier(n) && (n.text === 'eval' || n.text === 'arguments')) sees = true;
      if (ts.isWithStatement(n)) sees = true;
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) decls.push(n.name);
      ts.forEachChild(n, scan);
    };
    scan(body);
    if (sees) continue;
    for (const d of decls) {
      const sym = checker.getSymbolAtLocation(d);
      if (sym === undefined || avoid.some((t) => holdsName(t, d.text))) continue;
      const to = freshName(text, `${d.text}_${suffix}`);
      const edits: Edit[] = [];
      const visit = (n: TS.Node): void => {
        if (ts.isShorthandPropertyAssignment(n) && checker.getShorthandAssignmentValueSymbol(n) === sym) {
          edits.push({ start: n.name.getStart(sf), end: n.name.end, text: `${d.text}: ${to}` });
          return;
        }
        if (ts.isIdentifier(n) && n.text === d.text && checker.getSymbolAtLocation(n) === sym)
          edits.push({ start: n.getStart(sf), end: n.end, text: to });
        ts.forEachChild(n, visit);
      };
      visit(body);
      if (edits.length === 0) continue;
      if (parsesTs(path, applyEdits(text, edits))) return { from: d.text, to, edits };
    }
  }
  return null;
}

/**
 * Mutants of a regular expression literal, for a patch that changes only a pattern: the leading
 * `^` or trailing `$` dropped, the first `*` made `+` or `+` made `*`, the first `\d`, `\w` or `\s`
 * negated, outside classes and escapes. With `within`, only at the characters the patch changed.
 * Only those JavaScript still compiles with the same flags, and that change the pattern.
 */
export function regexMutants(
  literal: string,
  within: readonly (readonly [number, number])[] | null = null,
): [string, string][] {
  const end = literal.lastIndexOf('/');
  if (!literal.startsWith('/') || end <= 0) return [];
  const pattern = literal.slice(1, end);
  const flags = literal.slice(end + 1);
  // What each character of the pattern is: plain, a backslash outside a class (`escape`), or
  // anything else (the escaped character, a class and what is in it).
  const kind: ('plain' | 'escape' | 'other')[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      kind.push(inClass ? 'other' : 'escape', 'other');
      i++;
    } else if (inClass) {
      kind.push('other');
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
      kind.push('other');
    } else kind.push('plain');
  }
  const at = (i: number, to: string, len = 1): string => pattern.slice(0, i) + to + pattern.slice(i + len);
  // Pattern index i is literal index i + 1.
  const changed = (i: number): boolean => within === null || within.some(([a, b]) => a <= i + 1 && i + 1 < b);
  const out: [string, string][] = [];
  if (pattern.startsWith('^') && changed(0)) out.push(['regex: ^ anchor dropped', at(0, '')]);
  if (pattern.endsWith('$') && kind[pattern.length - 1] === 'plain' && changed(pattern.length - 1))
    out.push(['regex: $ anchor dropped', at(pattern.length - 1, '')]);
  for (let i = 1; i < pattern.length; i++) {
    const c = pattern[i];
    if (!changed(i) || kind[i] !== 'plain' || (c !== '*' && c !== '+') || pattern[i - 1] === '(') continue;
    out.push([`regex: first ${c} made ${c === '*' ? '+' : '*'}`, at(i, c === '*' ? '+' : '*')]);
    break;
  }
  for (let i = 0; i < pattern.length - 1; i++) {
    const next = pattern[i + 1] as string;
    if (kind[i] !== 'escape' || !'dws'.includes(next) || !changed(i + 1)) continue;
    out.push([`regex: first \\${next} made \\${next.toUpperCase()}`, at(i + 1, next.toUpperCase())]);
    break;
  }
  return out.filter(([, p]) => p !== pattern && compiles(p, flags)).map(([what, p]) => [what, `/${p}/${flags}`]);
}

function compiles(pattern: string, flags: string): boolean {
  if (pattern === '') return false;
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}

/** A mutant that does not even parse is discarded before it runs (it would show nothing). */
export function parsesTs(path: string, text: string): boolean {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, false, scriptKindOf(path)) as TS.SourceFile & {
    parseDiagnostics?: readonly TS.Diagnostic[];
  };
  return (sf.parseDiagnostics ?? []).length === 0;
}

/** Equality swaps invert a condition whole (`===` to `!==`); an ordering swap only moves its boundary. */
const EQUALITY = new Set<TS.SyntaxKind>([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/**
 * A guard clause: an `if` whose branch ends in a `throw`. A mutant that inverts its whole
 * condition throws wherever the symbol did not, on every input that passed the guard: for a
 * test that calls it, that is the probe (throws on entry) again, so a test that only calls the
 * symbol and asserts something else would "kill" it (test/adversarial/throw-guard.test.ts).
 * Its boundary shifts and a changed message still run.
 */
function isThrowGuard(n: TS.IfStatement): boolean {
  const t = n.thenStatement;
  const last = ts.isBlock(t) ? t.statements[t.statements.length - 1] : t;
  return last !== undefined && ts.isThrowStatement(last);
}

/** Is `e` (within parentheses) the whole condition of a guard clause? */
function guardsThrow(e: TS.Expression): boolean {
  let x: TS.Node = e;
  while (ts.isParenthesizedExpression(x.parent)) x = x.parent;
  return ts.isIfStatement(x.parent) && x.parent.expression === x && isThrowGuard(x.parent);
}

function unparen(e: TS.Expression): TS.Expression {
  let x = e;
  while (ts.isParenthesizedExpression(x)) x = x.expression;
  return x;
}

function isValueString(n: TS.StringLiteral): boolean {
  const p = n.parent;
  if (
    ts.isImportDeclaration(p) ||
    ts.isExportDeclaration(p) ||
    ts.isExternalModuleReference(p) ||
    ts.isLiteralTypeNode(p)
  )
    return false;
  if ((ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p)) && p.name === n)
    return false;
  if (ts.isElementAccessExpression(p) && p.argumentExpression === n) return false;
  if (ts.isCallExpression(p) && ts.isIdentifier(p.expression) && p.expression.text === 'require') return false;
  if (ts.isExpressionStatement(p)) return false;
  return true;
}

function isDirective(n: TS.ExpressionStatement): boolean {
  return ts.isStringLiteral(n.expression);
}

function isSuperCall(n: TS.ExpressionStatement): boolean {
  return ts.isCallExpression(n.expression) && n.expression.expression.kind === ts.SyntaxKind.SuperKeyword;
}

/** Sites whose edits overlap are fine on their own (each mutant applies one site), so only exact duplicates go. */
function dedupeOverlaps(sites: readonly Site[]): Site[] {
  const seen = new Set<string>();
  return sites.filter((s) => {
    const k = JSON.stringify(s.edits);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export type { Edit };

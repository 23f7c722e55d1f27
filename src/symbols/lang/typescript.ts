// Symbols of TypeScript and JavaScript files, with the TypeScript compiler's parser.
import { createRequire } from 'node:module';
import type * as TS from 'typescript';
import { scriptLexicalForm } from '../lexical.js';
import { lineStarts, MODULE, SymbolTable, toPiece, type FileSymbols } from '../model.js';

type Ts = typeof TS;

let loaded: Promise<Ts> | undefined;

/**
 * The compiler, loaded only when a TS/JS file changed. Through require, not import: an ESM
 * import of this 9 MB CommonJS file first runs Node's export scanner over all of it.
 */
export function loadTypeScript(): Promise<Ts> {
  loaded ??= Promise.resolve().then(() => createRequire(import.meta.url)('typescript') as Ts);
  return loaded;
}

function scriptKindOf(ts: Ts, path: string): TS.ScriptKind {
  const ext = /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase();
  switch (ext) {
    case 'tsx':
      return ts.ScriptKind.TSX;
    case 'jsx':
      return ts.ScriptKind.JSX;
    case 'js':
    case 'mjs':
    case 'cjs':
      return ts.ScriptKind.JS;
    default:
      return ts.ScriptKind.TS;
  }
}

type Shape = 'function' | 'class' | 'object' | null;

/** What a variable or property is bound to, looking through parentheses, casts and wrapping calls. */
function shapeOf(ts: Ts, expr: TS.Expression | undefined): Shape {
  let e = expr;
  while (
    e &&
    (ts.isParenthesizedExpression(e) ||
      ts.isAsExpression(e) ||
      ts.isSatisfiesExpression(e) ||
      ts.isNonNullExpression(e) ||
      ts.isTypeAssertionExpression(e))
  )
    e = e.expression;
  if (!e) return null;
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return 'function';
  if (ts.isClassExpression(e)) return 'class';
  if (ts.isObjectLiteralExpression(e)) return 'object';
  // `const f = memo(() => ...)`: a function bound through a wrapper is still the variable's.
  if ((ts.isCallExpression(e) || ts.isNewExpression(e)) && e.arguments?.some((a) => shapeOf(ts, a) === 'function'))
    return 'function';
  return null;
}

function unwrap(ts: Ts, expr: TS.Expression): TS.Expression {
  let e = expr;
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isSatisfiesExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isTypeAssertionExpression(e)
  )
    e = e.expression;
  return e;
}

function hasModifier(ts: Ts, node: TS.Node, kind: TS.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === kind) ?? false);
}

/** A member or property name as written: identifiers and `#private` as is, computed names in brackets. */
function nameText(ts: Ts, sf: TS.SourceFile, name: TS.PropertyName | TS.BindingName | undefined): string | null {
  if (!name) return null;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name))
    return name.text;
  if (ts.isComputedPropertyName(name)) return `[${name.expression.getText(sf).replace(/\s+/g, '')}]`;
  return null;
}

/** An entity chain like `module.exports` or `Foo.prototype.bar`, else null. */
function entityText(ts: Ts, e: TS.Expression): string | null {
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e) && !ts.isPrivateIdentifier(e.name)) {
    const left = entityText(ts, e.expression);
    return left === null ? null : `${left}.${e.name.text}`;
  }
  return null;
}

/**
 * Does a statement of a declaration file (.d.ts, .d.mts, .d.cts) do anything at run time?
 * Only type-only forms pass: interfaces, type aliases, `declare`, bodiless signatures,
 * uninitialised variables, type-only imports and exports, `export {}`. Anything else is
 * code a loader such as tsx would run, so the file is not ambient.
 */
export function isRuntimeStatement(ts: Ts, n: TS.Statement): boolean {
  const declare =
    ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
  if (declare || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n) || ts.isEmptyStatement(n)) return false;
  if (ts.isImportDeclaration(n)) {
    const c = n.importClause;
    if (c === undefined) return true; // `import '../x'`: a side effect
    if (c.isTypeOnly) return false;
    return (
      c.name !== undefined ||
      c.namedBindings === undefined ||
      !ts.isNamedImports(c.namedBindings) ||
      c.namedBindings.elements.some((e) => !e.isTypeOnly)
    );
  }
  if (ts.isImportEqualsDeclaration(n)) return !n.isTypeOnly;
  if (ts.isExportDeclaration(n)) {
    if (n.isTypeOnly) return false;
    if (n.moduleSpecifier === undefined && n.exportClause !== undefined && ts.isNamedExports(n.exportClause))
      return n.exportClause.elements.some((e) => !e.isTypeOnly);
    return true;
  }
  if (ts.isExportAssignment(n)) return !ts.isIdentifier(n.expression);
  if (ts.isFunctionDeclaration(n)) return n.body !== undefined;
  if (ts.isVariableStatement(n)) return n.declarationList.declarations.some((d) => d.initializer !== undefined);
  if (ts.isClassDeclaration(n)) {
    return n.members.some(
      (m) =>
        ts.isClassStaticBlockDeclaration(m) ||
        ((ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m)) &&
          m.body !== undefined) ||
        (ts.isPropertyDeclaration(m) && m.initializer !== undefined),
    );
  }
  if (ts.isModuleDeclaration(n)) {
    const body = n.body;
    if (body === undefined) return false;
    if (ts.isModuleBlock(body)) return body.statements.some((st) => isRuntimeStatement(ts, st));
    return ts.isModuleDeclaration(body) ? isRuntimeStatement(ts, body) : false;
  }
  return true; // enums, expressions, control flow: code
}

/** A declaration file that holds runtime code is production code like any other, not ambient. */
export function declarationHasRuntime(ts: Ts, sf: TS.SourceFile): boolean {
  return sf.isDeclarationFile && sf.statements.some((st) => isRuntimeStatement(ts, st));
}

const isJsDocKind = (ts: Ts, k: TS.SyntaxKind) => k >= ts.SyntaxKind.FirstJSDocNode && k <= ts.SyntaxKind.LastJSDocNode;

export function extractTypeScript(ts: Ts, path: string, text: string): FileSymbols {
  const kind = scriptKindOf(ts, path);
  // JavaScript files may hold JSX too.
  const jsx = kind === ts.ScriptKind.JS || kind === ts.ScriptKind.JSX || kind === ts.ScriptKind.TSX;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  const starts = lineStarts(text);
  const lineCount = Math.max(1, text.endsWith('\n') ? starts.length - 1 : starts.length);
  const diagnostics = (sf as unknown as { parseDiagnostics?: readonly unknown[] }).parseDiagnostics;
  if (diagnostics === undefined || diagnostics.length > 0) return { parsed: false, lineCount, symbols: new Map() };

  const table = new SymbolTable();
  const ambientFile = sf.isDeclarationFile && !declarationHasRuntime(ts, sf);
  const STATEMENT_HOLDERS = new Set<TS.SyntaxKind>([
    ts.SyntaxKind.SourceFile,
    ts.SyntaxKind.Block,
    ts.SyntaxKind.ModuleBlock,
    ts.SyntaxKind.CaseClause,
    ts.SyntaxKind.DefaultClause,
    ts.SyntaxKind.ClassDeclaration,
    ts.SyntaxKind.ClassExpression,
  ]);

  interface Draft {
    readonly node: TS.Node;
    readonly start: number;
    readonly end: number;
    readonly nameStart: number;
    readonly typeOnly: boolean;
    readonly cuts: [number, number][];
    readonly cutNodes: Set<TS.Node>;
  }
  const drafts: { name: string; draft: Draft }[] = [];

  const open = (
    name: string,
    node: TS.Node,
    nameNode: TS.Node | undefined,
    typeOnly: boolean,
    parent: Draft | null,
  ): Draft => {
    const start = node === sf ? 0 : node.getStart(sf);
    const d: Draft = {
      node,
      start,
      end: node.end,
      nameStart: nameNode ? nameNode.getStart(sf) : -1,
      typeOnly,
      cuts: [],
      cutNodes: new Set(),
    };
    if (parent) {
      parent.cuts.push([start, node.end]);
      parent.cutNodes.add(node);
    }
    drafts.push({ name, draft: d });
    return d;
  };

  const tokensOf = (d: Draft, withoutName: boolean): string[] => {
    const out: string[] = [];
    const visit = (n: TS.Node, statements: boolean): void => {
      if (n !== d.node && d.cutNodes.has(n)) return;
      if (isJsDocKind(ts, n.kind)) return;
      const kids = n.getChildren(sf);
      if (statements && n.kind === ts.SyntaxKind.SyntaxList) {
        // Mark where each statement ends: automatic semicolon insertion makes some newlines count.
        for (const k of kids) {
          const before = out.length;
          visit(k, false);
          if (out.length > before) out.push('\u0002;');
        }
        return;
      }
      if (kids.length === 0) {
        const s = n.getStart(sf);
        if (s >= n.end && n.kind !== ts.SyntaxKind.EndOfFileToken) return;
        if (withoutName && s === d.nameStart) {
          out.push('\u0001name');
          return;
        }
        if (n.kind === ts.SyntaxKind.EndOfFileToken) return;
        // Quote style is not behaviour: compare string literals by value.
        if (ts.isStringLiteral(n)) out.push(JSON.stringify(n.text));
        else out.push(text.slice(s, n.end));
        return;
      }
      const holds = STATEMENT_HOLDERS.has(n.kind);
      for (const k of kids) visit(k, holds);
    };
    visit(d.node, false);
    return out;
  };

  const qualify = (q: string, name: string) => (q === '' ? name : `${q}.${name}`);

  /** Walk `node`'s children; `owner` collects what is not a symbol, `q` qualifies names. */
  // The walk's context lives in these variables, so forEachChild gets one long-lived callback.
  let cOwner: Draft | undefined;
  let cQ = '';
  let cAmbient = false;
  const visitChild = (child: TS.Node): undefined => {
    visitNode(child, cOwner as Draft, cQ, cAmbient);
    return undefined;
  };
  const walk = (node: TS.Node, owner: Draft, q: string, ambient: boolean): void => {
    const savedOwner = cOwner;
    const savedQ = cQ;
    const savedAmbient = cAmbient;
    cOwner = owner;
    cQ = q;
    cAmbient = ambient;
    ts.forEachChild(node, visitChild);
    cOwner = savedOwner;
    cQ = savedQ;
    cAmbient = savedAmbient;
  };

  /** A function-valued symbol; `body` is what to search for nested symbols (absent for a signature). */
  const openFunctionLike = (
    name: string,
    node: TS.Node,
    nameNode: TS.Node | undefined,
    body: TS.Node | undefined,
    owner: Draft,
    ambient: boolean,
  ): void => {
    const typeOnly = ambient || body === undefined;
    const d = open(name, node, nameNode, typeOnly, owner);
    if (body) walk(body, d, name, typeOnly);
  };

  const openClass = (
    name: string,
    node: TS.ClassLikeDeclaration,
    nameNode: TS.Node | undefined,
    owner: Draft,
    ambient: boolean,
  ): void => {
    const amb = ambient || hasModifier(ts, node, ts.SyntaxKind.DeclareKeyword);
    const d = open(name, node, nameNode, amb, owner);
    const members = new Set<TS.Node>(node.members);
    for (const m of node.members) visitMember(m, d, name, amb);
    // Decorators, heritage clauses and type parameters stay with the class itself.
    ts.forEachChild(node, (c) => {
      if (!members.has(c)) visitNode(c, d, name, amb);
    });
  };

  const visitObject = (obj: TS.ObjectLiteralExpression, owner: Draft, prefix: string, ambient: boolean): void => {
    for (const p of obj.properties) {
      const name = nameText(ts, sf, p.name);
      if (
        name !== null &&
        (ts.isMethodDeclaration(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p))
      ) {
        openFunctionLike(qualify(prefix, name), p, p.name, p.body, owner, ambient);
        continue;
      }
      if (name !== null && ts.isPropertyAssignment(p)) {
        const shape = shapeOf(ts, p.initializer);
        if (shape === 'function') {
          openFunctionLike(qualify(prefix, name), p, p.name, p.initializer, owner, ambient);
          continue;
        }
        if (shape === 'class') {
          openClass(qualify(prefix, name), unwrap(ts, p.initializer) as TS.ClassExpression, p.name, owner, ambient);
          continue;
        }
        if (shape === 'object') {
          visitObject(unwrap(ts, p.initializer) as TS.ObjectLiteralExpression, owner, qualify(prefix, name), ambient);
          continue;
        }
      }
      visitNode(p, owner, prefix, ambient);
    }
  };

  const visitMember = (m: TS.ClassElement, cls: Draft, q: string, ambient: boolean): void => {
    if (ts.isConstructorDeclaration(m))
      return openFunctionLike(qualify(q, 'constructor'), m, undefined, m.body, cls, ambient);
    const name = nameText(ts, sf, m.name);
    if (
      name !== null &&
      (ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m))
    ) {
      return openFunctionLike(
        qualify(q, name),
        m,
        m.name,
        m.body,
        cls,
        ambient || hasModifier(ts, m, ts.SyntaxKind.AbstractKeyword),
      );
    }
    if (name !== null && ts.isPropertyDeclaration(m)) {
      const shape = shapeOf(ts, m.initializer);
      if (shape === 'function') return openFunctionLike(qualify(q, name), m, m.name, m.initializer, cls, ambient);
      if (shape === 'class' && m.initializer)
        return openClass(qualify(q, name), unwrap(ts, m.initializer) as TS.ClassExpression, m.name, cls, ambient);
    }
    visitNode(m, cls, q, ambient);
  };

  const K = ts.SyntaxKind;
  // Only these kinds can declare a symbol; everything else is searched through.
  const DECLARING = new Set<TS.SyntaxKind>([
    K.FunctionDeclaration,
    K.ClassDeclaration,
    K.InterfaceDeclaration,
    K.TypeAliasDeclaration,
    K.EnumDeclaration,
    K.ModuleDeclaration,
    K.VariableStatement,
    K.VariableDeclaration,
    K.ExportAssignment,
    K.ExpressionStatement,
    K.ImportDeclaration,
    K.ExportDeclaration,
    K.ImportEqualsDeclaration,
  ]);

  const LAST_TOKEN = K.LastToken;
  const visitNode = (n: TS.Node, owner: Draft, q: string, ambient: boolean): void => {
    // Tokens have no children (forEachChild returns at once for them).
    if (n.kind <= LAST_TOKEN) return;
    if (!DECLARING.has(n.kind)) return walk(n, owner, q, ambient);
    if (ts.isFunctionDeclaration(n)) {
      const name = n.name ? n.name.text : hasModifier(ts, n, ts.SyntaxKind.DefaultKeyword) ? 'default' : null;
      if (name !== null)
        return openFunctionLike(
          qualify(q, name),
          n,
          n.name,
          n.body,
          owner,
          ambient || hasModifier(ts, n, ts.SyntaxKind.DeclareKeyword),
        );
    }
    if (ts.isClassDeclaration(n)) {
      const name = n.name ? n.name.text : 'default';
      return openClass(qualify(q, name), n, n.name, owner, ambient);
    }
    if (ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) {
      open(qualify(q, n.name.text), n, n.name, true, owner);
      return;
    }
    if (ts.isEnumDeclaration(n)) {
      open(qualify(q, n.name.text), n, n.name, ambient || hasModifier(ts, n, ts.SyntaxKind.DeclareKeyword), owner);
      return;
    }
    if (ts.isModuleDeclaration(n)) {
      const amb = ambient || hasModifier(ts, n, ts.SyntaxKind.DeclareKeyword) || !ts.isIdentifier(n.name);
      const name = ts.isIdentifier(n.name)
        ? n.name.text
        : ts.isStringLiteral(n.name)
          ? JSON.stringify(n.name.text)
          : 'global';
      // `namespace A.B {}` nests a declaration per segment; it is one symbol, A.B.
      let body = n.body;
      let qn = qualify(q, name);
      while (body && ts.isModuleDeclaration(body)) {
        qn = qualify(qn, body.name.text);
        body = body.body;
      }
      const d = open(qn, n, n.name, amb, owner);
      if (body) walk(body, d, qn, amb);
      return;
    }
    if (ts.isVariableStatement(n)) {
      const amb = ambient || hasModifier(ts, n, ts.SyntaxKind.DeclareKeyword);
      const decls = n.declarationList.declarations;
      const only = decls.length === 1 ? decls[0] : undefined;
      if (only && ts.isIdentifier(only.name) && !amb) {
        const shape = shapeOf(ts, only.initializer);
        if (shape === 'function')
          return openFunctionLike(qualify(q, only.name.text), n, only.name, only.initializer, owner, amb);
        if (shape === 'class' && only.initializer) {
          const d = open(qualify(q, only.name.text), n, only.name, amb, owner);
          const cls = unwrap(ts, only.initializer) as TS.ClassExpression;
          for (const m of cls.members) visitMember(m, d, qualify(q, only.name.text), amb);
          return;
        }
      }
      if (amb) {
        open(qualify(q, decls.map((d) => d.name.getText(sf)).join(',')), n, undefined, true, owner);
        return;
      }
      return walk(n, owner, q, ambient);
    }
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) {
      const shape = shapeOf(ts, n.initializer);
      if (shape === 'function')
        return openFunctionLike(qualify(q, n.name.text), n, n.name, n.initializer, owner, ambient);
      if (shape === 'object' && n.initializer) {
        return visitObject(
          unwrap(ts, n.initializer) as TS.ObjectLiteralExpression,
          owner,
          qualify(q, n.name.text),
          ambient,
        );
      }
    }
    if (ts.isExportAssignment(n)) {
      const shape = shapeOf(ts, n.expression);
      if (shape === 'function')
        return openFunctionLike(qualify(q, 'default'), n, undefined, n.expression, owner, ambient);
      if (shape === 'class')
        return openClass(
          qualify(q, 'default'),
          unwrap(ts, n.expression) as TS.ClassExpression,
          undefined,
          owner,
          ambient,
        );
      if (shape === 'object')
        return visitObject(
          unwrap(ts, n.expression) as TS.ObjectLiteralExpression,
          owner,
          qualify(q, 'default'),
          ambient,
        );
    }
    // CommonJS and prototype assignments: `exports.f = function () {}`, `module.exports = { ... }`.
    if (
      ts.isExpressionStatement(n) &&
      ts.isBinaryExpression(n.expression) &&
      n.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken
    ) {
      const left = entityText(ts, n.expression.left);
      const shape = shapeOf(ts, n.expression.right);
      if (left?.includes('.')) {
        if (shape === 'function')
          return openFunctionLike(qualify(q, left), n, n.expression.left, n.expression.right, owner, ambient);
        if (shape === 'object') {
          return visitObject(
            unwrap(ts, n.expression.right) as TS.ObjectLiteralExpression,
            owner,
            qualify(q, left),
            ambient,
          );
        }
      }
    }
    // Type-only imports and exports have no runtime effect: keep them apart from the module's code.
    if (
      (ts.isImportDeclaration(n) && n.importClause?.isTypeOnly) ||
      (ts.isExportDeclaration(n) && n.isTypeOnly) ||
      (ts.isImportEqualsDeclaration(n) && n.isTypeOnly)
    ) {
      open(q === '' ? MODULE : q, n, undefined, true, owner);
      return;
    }
    walk(n, owner, q, ambient);
  };

  const root = open(MODULE, sf, undefined, ambientFile, null);
  walk(sf, root, '', ambientFile);

  for (const { name, draft } of drafts) {
    const piece = toPiece(
      draft,
      text,
      starts,
      (pieceText) => scriptLexicalForm(pieceText, jsx),
      (withoutName) => tokensOf(draft, withoutName),
    );
    table.add(name, piece);
  }
  return { parsed: true, lineCount, symbols: table.symbols };
}

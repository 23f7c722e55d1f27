// The names a TS/JS file binds at its top level and in its classes, and those a text refers to as values.
import { createRequire } from 'node:module';
import type * as TS from 'typescript';

// Required when a TS/JS file is first looked at: a Python-only credit step never loads the compiler.
let tsModule: typeof TS | undefined;
const typescript = (): typeof TS => (tsModule ??= createRequire(import.meta.url)('typescript') as typeof TS);

function sourceFile(path: string, text: string): TS.SourceFile {
  const ts = typescript();
  const kind = /\.[cm]?tsx?$/.test(path)
    ? path.endsWith('x')
      ? ts.ScriptKind.TSX
      : ts.ScriptKind.TS
    : path.endsWith('x')
      ? ts.ScriptKind.JSX
      : ts.ScriptKind.JS;
  return ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, kind);
}

export function tsTopLevel(path: string, text: string): Set<string> {
  const ts = typescript();
  const sf = sourceFile(path, text);
  const out = new Set<string>();
  const bind = (n: TS.BindingName): void => {
    if (ts.isIdentifier(n)) out.add(n.text);
    else for (const e of n.elements) if (!ts.isOmittedExpression(e)) bind(e.name);
  };
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st)) {
      const c = st.importClause;
      if (c?.name) out.add(c.name.text);
      const b = c?.namedBindings;
      if (b && ts.isNamespaceImport(b)) out.add(b.name.text);
      if (b && ts.isNamedImports(b)) for (const e of b.elements) out.add(e.name.text);
    } else if (
      ts.isImportEqualsDeclaration(st) ||
      ts.isFunctionDeclaration(st) ||
      ts.isClassDeclaration(st) ||
      ts.isEnumDeclaration(st) ||
      ts.isModuleDeclaration(st)
    ) {
      if (st.name && ts.isIdentifier(st.name)) out.add(st.name.text);
      if (ts.isClassDeclaration(st) && st.name) for (const m of tsMembers(st)) out.add(`${st.name.text}.${m}`);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) bind(d.name);
    }
  }
  return out;
}

/** A class's members: its methods, fields and accessors, its constructor's parameter properties, and what its code assigns to `this.x`. */
function tsMembers(cls: TS.ClassDeclaration): Set<string> {
  const ts = typescript();
  const out = new Set<string>();
  for (const m of cls.members) {
    if (m.name && (ts.isIdentifier(m.name) || ts.isPrivateIdentifier(m.name))) out.add(m.name.text);
    if (ts.isConstructorDeclaration(m))
      for (const p of m.parameters) if (ts.isIdentifier(p.name) && ts.getModifiers(p)?.length) out.add(p.name.text);
  }
  const visit = (n: TS.Node): void => {
    if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(n.left) &&
      n.left.expression.kind === ts.SyntaxKind.ThisKeyword
    )
      out.add(n.left.name.text);
    ts.forEachChild(n, visit);
  };
  visit(cls);
  return out;
}

/** The names of `wanted` that `text` refers to as values (not as a property, a key, a declaration's own name or a type), and its `Class.member`s used as `this.member` inside that class. */
export function tsReferences(path: string, text: string, wanted: ReadonlySet<string>): Set<string> {
  const ts = typescript();
  const sf = sourceFile(path, text);
  const out = new Set<string>();
  const visit = (n: TS.Node, cls: string | null): void => {
    // Types are erased: a name only a type uses is no ReferenceError.
    if (ts.isTypeNode(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) return;
    if (ts.isIdentifier(n) && wanted.has(n.text) && isValueReference(n)) out.add(n.text);
    if (
      cls !== null &&
      ts.isPropertyAccessExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ThisKeyword &&
      wanted.has(`${cls}.${n.name.text}`)
    )
      out.add(`${cls}.${n.name.text}`);
    const inner = ts.isClassDeclaration(n) && n.parent === sf ? (n.name?.text ?? null) : cls;
    ts.forEachChild(n, (c) => visit(c, inner));
  };
  visit(sf, null);
  return out;
}

function isValueReference(n: TS.Identifier): boolean {
  const ts = typescript();
  const p = n.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === n) return false;
  if (
    (ts.isPropertyAssignment(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isGetAccessorDeclaration(p) ||
      ts.isSetAccessorDeclaration(p) ||
      ts.isEnumMember(p) ||
      ts.isPropertySignature(p) ||
      ts.isMethodSignature(p)) &&
    p.name === n
  )
    return false;
  if (ts.isQualifiedName(p) && p.right === n) return false;
  if ((ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isBindingElement(p)) && p.propertyName === n)
    return false;
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
  if (ts.isJsxAttribute(p)) return false;
  // A declaration's own name declares; it does not refer.
  if (
    (ts.isVariableDeclaration(p) ||
      ts.isParameter(p) ||
      ts.isFunctionDeclaration(p) ||
      ts.isFunctionExpression(p) ||
      ts.isClassDeclaration(p) ||
      ts.isClassExpression(p) ||
      ts.isBindingElement(p) ||
      ts.isImportClause(p) ||
      ts.isNamespaceImport(p) ||
      ts.isImportSpecifier(p) ||
      ts.isImportEqualsDeclaration(p) ||
      ts.isEnumDeclaration(p) ||
      ts.isModuleDeclaration(p)) &&
    (p as TS.NamedDeclaration).name === n
  )
    return false;
  return true;
}

// Names a mutant leaves unbound. A revert puts a symbol's base version back into the patched
// file; where the patch renamed or removed a top-level name that version uses (dayjs 8fda602b:
// `durationRegex` became `DURATION_REGEX_PARSE`), the revert throws a ReferenceError (NameError)
// wherever it runs, and every test that calls it "kills" it without telling one behaviour from
// another. The same holds the other way round (a `<module>` revert that takes away a name the
// patched functions use) and for a behavioural mutant that deletes a top-level declaration. Such
// a mutant is not a valid program, like one that does not compile: it is discarded. So is one
// that calls a method or reads an attribute of its own class (`self._scale()`, `this.#rate`)
// that the patch renamed: an AttributeError or TypeError where it runs.
import { createRequire } from 'node:module';
import type * as TS from 'typescript';
import type { Node } from 'web-tree-sitter';
import { getParser } from '../../symbols/treesitter.js';

// Required when a TS/JS file is first looked at: a Python-only credit step never loads the compiler.
let tsModule: typeof TS | undefined;
const typescript = (): typeof TS => (tsModule ??= createRequire(import.meta.url)('typescript') as typeof TS);

/** At most this many lost names are named in a reason. */
const SHOWN = 3;

const reason = (lost: readonly string[]): string =>
  `it refers to ${lost.slice(0, SHOWN).join(', ')}${lost.length > SHOWN ? ` and ${lost.length - SHOWN} more` : ''}, which the file no longer declares at its top level or in its class (a ReferenceError, NameError or AttributeError where that code runs, not a behaviour)`;

/**
 * The names a file declares, by language, or null where it does not parse: those of its
 * top-level statements, and as `Class.member` those of each top-level class (its methods, its
 * class-level fields, and the attributes its code sets on `self` or `this`).
 */
export async function topLevelNames(language: string, path: string, text: string): Promise<Set<string> | null> {
  return language === 'python' ? pyTopLevel(text) : tsTopLevel(path, text);
}

/**
 * Why `mutated` is not a valid program for want of a name, or null: a name of `declared` (the
 * names of the base and the patched file, topLevelNames) that `mutated` no longer declares but
 * still refers to: a top-level name by itself, a member of a class as `self.x` or `this.x`
 * inside that class. A local declaration of the same name is not told apart (no scope
 * analysis): the mutant is discarded all the same, which only ever loses a mutant.
 */
export async function lostNames(
  language: string,
  path: string,
  declared: ReadonlySet<string>,
  mutated: string,
): Promise<string | null> {
  const now = await topLevelNames(language, path, mutated);
  if (now === null) return null;
  const gone = new Set([...declared].filter((n) => !now.has(n)));
  if (gone.size === 0) return null;
  const used = language === 'python' ? await pyReferences(mutated, gone) : tsReferences(path, mutated, gone);
  const lost = [...used].sort();
  return lost.length > 0 ? reason(lost) : null;
}

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

function tsTopLevel(path: string, text: string): Set<string> {
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
function tsReferences(path: string, text: string, wanted: ReadonlySet<string>): Set<string> {
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

/** Compound statements at a module's top level whose blocks still bind module names (`try: import x`, `if ...: X = 1`). */
const PY_BLOCKS = new Set([
  'if_statement',
  'elif_clause',
  'else_clause',
  'try_statement',
  'except_clause',
  'finally_clause',
  'with_statement',
  'for_statement',
  'while_statement',
  'block',
]);

async function pyTopLevel(text: string): Promise<Set<string> | null> {
  const parser = await getParser('python');
  const tree = parser.parse(text);
  if (!tree) return null;
  try {
    const out = new Set<string>();
    const named = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => c !== null);
    const target = (t: Node): void => {
      if (t.type === 'identifier') out.add(t.text);
      else if (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list'].includes(t.type))
        for (const c of named(t)) target(c);
    };
    const walk = (container: Node): void => {
      for (const st of named(container)) {
        let s = st.type === 'decorated_definition' ? (st.childForFieldName('definition') ?? st) : st;
        if (s.type === 'expression_statement') s = named(s)[0] ?? s;
        if (s.type === 'function_definition' || s.type === 'class_definition') {
          const name = s.childForFieldName('name');
          if (name) out.add(name.text);
          if (name && s.type === 'class_definition') for (const m of pyMembers(s)) out.add(`${name.text}.${m}`);
        } else if (s.type === 'import_statement') {
          for (const n of s.childrenForFieldName('name')) {
            if (n === null) continue;
            if (n.type === 'aliased_import') {
              const alias = n.childForFieldName('alias');
              if (alias) out.add(alias.text);
            } else out.add(n.text.split('.')[0] as string);
          }
        } else if (s.type === 'import_from_statement') {
          for (const n of s.childrenForFieldName('name')) {
            if (n === null) continue;
            const bound = n.type === 'aliased_import' ? n.childForFieldName('alias') : n;
            if (bound) out.add(bound.text);
          }
        } else if (s.type === 'assignment') {
          const left = s.childForFieldName('left');
          if (left) target(left);
        } else if (PY_BLOCKS.has(s.type)) {
          if (s.type === 'for_statement') {
            const left = s.childForFieldName('left');
            if (left) target(left);
          }
          if (s.type === 'with_statement') {
            for (const item of s.descendantsOfType('as_pattern_target')) if (item) target(named(item)[0] ?? item);
          }
          walk(s);
        }
      }
    };
    walk(tree.rootNode);
    return out;
  } finally {
    tree.delete();
  }
}

/** `self.x` or `cls.x`: the attribute's name, else null. */
function ownAttribute(n: Node): string | null {
  if (n.type !== 'attribute') return null;
  const obj = n.childForFieldName('object');
  return obj?.type === 'identifier' && (obj.text === 'self' || obj.text === 'cls')
    ? (n.childForFieldName('attribute')?.text ?? null)
    : null;
}

/** A class's members: the methods and fields its body defines, and the attributes its code sets on `self` or `cls`. */
function pyMembers(cls: Node): Set<string> {
  const out = new Set<string>();
  const body = cls.childForFieldName('body');
  for (const st of body ? body.namedChildren : []) {
    if (st === null) continue;
    const s =
      st.type === 'decorated_definition'
        ? (st.childForFieldName('definition') ?? st)
        : st.type === 'expression_statement'
          ? (st.namedChildren[0] ?? st)
          : st;
    const name =
      s.type === 'function_definition' || s.type === 'class_definition'
        ? s.childForFieldName('name')
        : s.type === 'assignment'
          ? s.childForFieldName('left')
          : null;
    if (name?.type === 'identifier') out.add(name.text);
  }
  for (const a of cls.descendantsOfType('assignment')) {
    const left = a?.childForFieldName('left');
    const attr = left ? ownAttribute(left) : null;
    if (attr !== null) out.add(attr);
  }
  return out;
}

/** The names of `wanted` that `text` refers to (not as an attribute, a keyword argument, a parameter or a definition's own name), and its `Class.member`s used as `self.member` inside that class. */
async function pyReferences(text: string, wanted: ReadonlySet<string>): Promise<Set<string>> {
  const parser = await getParser('python');
  const tree = parser.parse(text);
  const out = new Set<string>();
  if (!tree) return out;
  try {
    for (const top of tree.rootNode.namedChildren) {
      const cls = top?.type === 'decorated_definition' ? top.childForFieldName('definition') : top;
      const name = cls?.type === 'class_definition' ? cls.childForFieldName('name')?.text : undefined;
      if (!cls || name === undefined) continue;
      for (const a of cls.descendantsOfType('attribute')) {
        const attr = a ? ownAttribute(a) : null;
        if (attr !== null && wanted.has(`${name}.${attr}`)) out.add(`${name}.${attr}`);
      }
    }
    for (const n of tree.rootNode.descendantsOfType('identifier')) {
      if (n === null || !wanted.has(n.text)) continue;
      const p = n.parent;
      if (p === null) continue;
      if (p.type === 'attribute' && p.childForFieldName('attribute')?.id === n.id) continue;
      if (p.type === 'keyword_argument' && p.childForFieldName('name')?.id === n.id) continue;
      if (
        (p.type === 'function_definition' || p.type === 'class_definition') &&
        p.childForFieldName('name')?.id === n.id
      )
        continue;
      if (
        [
          'parameters',
          'lambda_parameters',
          'default_parameter',
          'typed_parameter',
          'typed_default_parameter',
          'list_splat_pattern',
          'dictionary_splat_pattern',
        ].includes(p.type)
      )
        continue;
      if (
        [
          'dotted_name',
          'aliased_import',
          'import_statement',
          'import_from_statement',
          'global_statement',
          'nonlocal_statement',
        ].includes(p.type)
      )
        continue;
      out.add(n.text);
    }
    return out;
  } finally {
    tree.delete();
  }
}

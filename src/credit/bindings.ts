// Names a mutant leaves unbound. A revert puts a symbol's base version back into the patched
// file; where the patch renamed or removed a top-level name that version uses (dayjs 8fda602b:
// `durationRegex` became `DURATION_REGEX_PARSE`), the revert throws a ReferenceError (NameError)
// wherever it runs, and every test that calls it "kills" it without telling one behaviour from
// another. The same holds the other way round (a `<module>` revert that takes away a name the
// patched functions use) and for a behavioural mutant that deletes a top-level declaration. Such
// a mutant is not a valid program, like one that does not compile: it is discarded.
import { createRequire } from 'node:module';
import type * as TS from 'typescript';
import type { Node } from 'web-tree-sitter';
import { getParser } from '../symbols/treesitter.js';

// Required when a TS/JS file is first looked at: a Python-only credit step never loads the compiler.
let tsModule: typeof TS | undefined;
const typescript = (): typeof TS => (tsModule ??= createRequire(import.meta.url)('typescript') as typeof TS);

/** At most this many lost names are named in a reason. */
const SHOWN = 3;

const reason = (lost: readonly string[]): string =>
  `it refers to ${lost.slice(0, SHOWN).join(', ')}${lost.length > SHOWN ? ` and ${lost.length - SHOWN} more` : ''}, which the file no longer declares at its top level (a ReferenceError or NameError where that code runs, not a behaviour)`;

/** The names a file's top-level statements declare, by language; null where the file does not parse. */
export async function topLevelNames(language: string, path: string, text: string): Promise<Set<string> | null> {
  return language === 'python' ? pyTopLevel(text) : tsTopLevel(path, text);
}

/**
 * Why `mutated` is not a valid program for want of a name, or null: a name of `declared` (the
 * top-level names of the base and the patched file) that `mutated` no longer declares at its
 * top level but still refers to. A local declaration of the same name is not told apart (no
 * scope analysis): the mutant is discarded all the same, which only ever loses a mutant.
 */
export async function lostNames(language: string, path: string, declared: ReadonlySet<string>, mutated: string): Promise<string | null> {
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
  const kind = /\.[cm]?tsx?$/.test(path) ? (path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS) : path.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
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
    } else if (ts.isImportEqualsDeclaration(st) || ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st) || ts.isModuleDeclaration(st)) {
      if (st.name && ts.isIdentifier(st.name)) out.add(st.name.text);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) bind(d.name);
    }
  }
  return out;
}

/** The names of `wanted` that `text` refers to as values (not as a property, a key, a declaration's own name or a type). */
function tsReferences(path: string, text: string, wanted: ReadonlySet<string>): Set<string> {
  const ts = typescript();
  const sf = sourceFile(path, text);
  const out = new Set<string>();
  const visit = (n: TS.Node): void => {
    // Types are erased: a name only a type uses is no ReferenceError.
    if (ts.isTypeNode(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) return;
    if (ts.isIdentifier(n) && wanted.has(n.text) && isValueReference(n)) out.add(n.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function isValueReference(n: TS.Identifier): boolean {
  const ts = typescript();
  const p = n.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === n) return false;
  if ((ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p) || ts.isEnumMember(p) || ts.isPropertySignature(p) || ts.isMethodSignature(p)) && p.name === n) return false;
  if (ts.isQualifiedName(p) && p.right === n) return false;
  if ((ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isBindingElement(p)) && p.propertyName === n) return false;
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
  if (ts.isJsxAttribute(p)) return false;
  // A declaration's own name declares; it does not refer.
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isFunctionDeclaration(p) || ts.isFunctionExpression(p) || ts.isClassDeclaration(p) || ts.isClassExpression(p) || ts.isBindingElement(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isImportSpecifier(p) || ts.isImportEqualsDeclaration(p) || ts.isEnumDeclaration(p) || ts.isModuleDeclaration(p)) && (p as TS.NamedDeclaration).name === n) return false;
  return true;
}

/** Compound statements at a module's top level whose blocks still bind module names (`try: import x`, `if ...: X = 1`). */
const PY_BLOCKS = new Set(['if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'finally_clause', 'with_statement', 'for_statement', 'while_statement', 'block']);

async function pyTopLevel(text: string): Promise<Set<string> | null> {
  const parser = await getParser('python');
  const tree = parser.parse(text);
  if (!tree) return null;
  try {
    const out = new Set<string>();
    const named = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => c !== null);
    const target = (t: Node): void => {
      if (t.type === 'identifier') out.add(t.text);
      else if (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list'].includes(t.type)) for (const c of named(t)) target(c);
    };
    const walk = (container: Node): void => {
      for (const st of named(container)) {
        let s = st.type === 'decorated_definition' ? (st.childForFieldName('definition') ?? st) : st;
        if (s.type === 'expression_statement') s = named(s)[0] ?? s;
        if (s.type === 'function_definition' || s.type === 'class_definition') {
          const name = s.childForFieldName('name');
          if (name) out.add(name.text);
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

/** The names of `wanted` that `text` refers to (not as an attribute, a keyword argument, a parameter or a definition's own name). */
async function pyReferences(text: string, wanted: ReadonlySet<string>): Promise<Set<string>> {
  const parser = await getParser('python');
  const tree = parser.parse(text);
  const out = new Set<string>();
  if (!tree) return out;
  try {
    for (const n of tree.rootNode.descendantsOfType('identifier')) {
      if (n === null || !wanted.has(n.text)) continue;
      const p = n.parent;
      if (p === null) continue;
      if (p.type === 'attribute' && p.childForFieldName('attribute')?.id === n.id) continue;
      if (p.type === 'keyword_argument' && p.childForFieldName('name')?.id === n.id) continue;
      if ((p.type === 'function_definition' || p.type === 'class_definition') && p.childForFieldName('name')?.id === n.id) continue;
      if (['parameters', 'lambda_parameters', 'default_parameter', 'typed_parameter', 'typed_default_parameter', 'list_splat_pattern', 'dictionary_splat_pattern'].includes(p.type)) continue;
      if (['dotted_name', 'aliased_import', 'import_statement', 'import_from_statement', 'global_statement', 'nonlocal_statement'].includes(p.type)) continue;
      out.add(n.text);
    }
    return out;
  } finally {
    tree.delete();
  }
}

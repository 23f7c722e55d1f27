// Symbols of Python, Go, Java and Rust files, with tree-sitter grammars.
import type { Node, TreeCursor } from 'web-tree-sitter';
import { lexicalForm, pythonLexicalForm } from './lexical.js';
import { lineOf, lineStarts, MODULE, SymbolTable, toPiece, type ExtractOptions, type FileSymbols } from './model.js';
import { getParser, type TreeSitterLanguage } from './treesitter.js';

const COMMENTS = new Set(['comment', 'line_comment', 'block_comment']);
/** String and character literals are one token each: their inner whitespace is content. */
const isAtomic = (type: string) => /string|char|rune|text_block/.test(type);

const PY_STATEMENT_CONTAINERS = new Set([
  'if_statement',
  'elif_clause',
  'else_clause',
  'for_statement',
  'while_statement',
  'try_statement',
  'except_clause',
  'except_group_clause',
  'finally_clause',
  'with_statement',
  'match_statement',
  'case_clause',
  'block',
]);

interface Draft {
  readonly nodes: readonly Node[];
  readonly start: number;
  readonly end: number;
  readonly nameStart: number;
  readonly typeOnly: boolean;
  readonly cuts: [number, number][];
  readonly cutIds: Set<number>;
}

const named = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => c !== null);
const squash = (s: string) => s.replace(/\s+/g, '');

/** `*Calculator[T]`, `&'a mut Foo<T>`, `crate::x::Foo` → the bare type name. */
function bareTypeName(text: string): string {
  let t = squash(text);
  // Drop generic arguments, innermost first.
  for (let k = 0; k < 16 && /[<[][^<>[\]]*[>\]]/.test(t); k++) t = t.replace(/[<[][^<>[\]]*[>\]]/g, '');
  t = t
    .replace(/^[*&]+/, '')
    .replace(/^'\w+/, '')
    .replace(/^(mut|dyn)(?=[A-Za-z_])/, '');
  const parts = t.split('::');
  return parts[parts.length - 1] || t;
}

/** Column of `pos` on the line starting at `lineStart`, tabs to multiples of 8 (as Python counts them). */
function columnAt(text: string, lineStart: number, pos: number): number {
  let col = 0;
  for (let k = lineStart; k < pos; k++) col = text[k] === '\t' ? (Math.floor(col / 8) + 1) * 8 : col + 1;
  return col;
}

/** Extract the symbols of one file. `lang` decides which declarations are symbols. */
export async function extractWithTreeSitter(
  lang: TreeSitterLanguage,
  text: string,
  options: ExtractOptions,
): Promise<FileSymbols> {
  const parser = await getParser(lang);
  const tree = parser.parse(text);
  const starts = lineStarts(text);
  const lineCount = Math.max(1, text.endsWith('\n') ? starts.length - 1 : starts.length);
  if (tree === null) return { parsed: false, lineCount, symbols: new Map() };
  const root = tree.rootNode;
  if (root.hasError) {
    tree.delete();
    return { parsed: false, lineCount, symbols: new Map() };
  }
  // Tokens are read lazily from the tree, so it lives until the caller disposes of the result.
  try {
    return { ...collect(lang, text, root, starts, lineCount, options), dispose: () => tree.delete() };
  } catch (err) {
    tree.delete();
    throw err;
  }
}

function collect(
  lang: TreeSitterLanguage,
  text: string,
  root: Node,
  starts: number[],
  lineCount: number,
  options: ExtractOptions,
): FileSymbols {
  const drafts: { name: string; draft: Draft }[] = [];
  const qualify = (q: string, name: string) => (q === '' ? name : `${q}.${name}`);

  const open = (
    name: string | null,
    nodes: Node[],
    nameNode: Node | null,
    typeOnly: boolean,
    parent: Draft | null,
  ): Draft => {
    const first = nodes[0] as Node;
    const last = nodes[nodes.length - 1] as Node;
    const d: Draft = {
      nodes,
      start: first.startIndex,
      end: last.endIndex,
      nameStart: nameNode ? nameNode.startIndex : -1,
      typeOnly,
      cuts: [],
      cutIds: new Set(),
    };
    if (parent) {
      parent.cuts.push([d.start, d.end]);
      for (const n of nodes) parent.cutIds.add(n.id);
    }
    if (name !== null) drafts.push({ name, draft: d });
    return d;
  };

  const isDocstring = (stmt: Node | undefined): boolean => {
    if (stmt?.type !== 'expression_statement' || stmt.namedChildCount !== 1) return false;
    const t = stmt.namedChild(0)?.type;
    return t === 'string' || t === 'concatenated_string';
  };

  const tokensOf = (d: Draft, withoutName: boolean): string[] => {
    const out: string[] = [];
    const first = d.nodes[0] as Node;
    const cursor = first.walk();
    // A cursor walk reads types and offsets without building a Node object per token.
    const visit = (top: boolean): void => {
      if (!top && d.cutIds.has(cursor.nodeId)) return;
      const type = cursor.nodeType;
      if (COMMENTS.has(type)) return;
      const start = cursor.startIndex;
      if (isAtomic(type) || !cursor.gotoFirstChild()) {
        if (withoutName && start === d.nameStart) out.push('\u0001name');
        else {
          const t = text.slice(start, cursor.endIndex).trim();
          // Go's automatic semicolons show up as newline tokens.
          out.push(t === '' ? ';' : t);
        }
        return;
      }
      if (lang === 'python' && (type === 'block' || type === 'module')) {
        // Python's blocks are made by indentation: mark them so moving a statement in or out is a change.
        if (type === 'block') out.push('\u0002{');
        let firstStatement = true;
        do {
          if (COMMENTS.has(cursor.nodeType)) continue;
          const wasFirst = firstStatement;
          firstStatement = false;
          if (d.cutIds.has(cursor.nodeId)) continue;
          if (
            wasFirst &&
            !options.docstringChanges &&
            cursor.nodeType === 'expression_statement' &&
            isDocstring(cursor.currentNode)
          )
            continue;
          visit(false);
          out.push('\u0002;');
        } while (cursor.gotoNextSibling());
        cursor.gotoParent();
        if (type === 'block') out.push('\u0002}');
        return;
      }
      do visit(false);
      while (cursor.gotoNextSibling());
      cursor.gotoParent();
    };
    try {
      for (const n of d.nodes) {
        cursor.reset(n);
        visit(true);
      }
    } finally {
      cursor.delete();
    }
    return out;
  };

  const moduleDraft = open(MODULE, [root], null, false, null);

  // ---- Python: a cursor scan, so only definitions become Node objects.
  const PY_DEFS = new Set(['function_definition', 'class_definition', 'decorated_definition']);
  // Every symbol the scan finds is spelt with one of these words, so a node whose text holds
  // none of them has none to find and is not scanned (most function bodies).
  const wordsAt: number[] = [];
  if (lang === 'python') for (const m of text.matchAll(/def|class|lambda/g)) wordsAt.push(m.index);
  const mayDefine = (start: number, end: number): boolean => {
    let lo = 0;
    let hi = wordsAt.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((wordsAt[mid] as number) < start) lo = mid + 1;
      else hi = mid;
    }
    return lo < wordsAt.length && (wordsAt[lo] as number) < end;
  };
  const pyDefinition = (n: Node, owner: Draft, q: string): void => {
    const def = n.type === 'decorated_definition' ? n.childForFieldName('definition') : n;
    if (!def || (def.type !== 'function_definition' && def.type !== 'class_definition')) return;
    const nameNode = def.childForFieldName('name');
    if (!nameNode) return;
    const name = qualify(q, nameNode.text);
    const d = open(name, [n], nameNode, false, owner);
    const body = def.childForFieldName('body');
    if (body && mayDefine(body.startIndex, body.endIndex)) {
      const c = body.walk();
      try {
        pyScan(c, d, name);
      } finally {
        c.delete();
      }
    }
  };
  /** Scan the statements under the cursor's node for symbols; the cursor ends where it started. */
  const pyScan = (cursor: TreeCursor, owner: Draft, q: string): void => {
    if (!mayDefine(cursor.startIndex, cursor.endIndex) || !cursor.gotoFirstChild()) return;
    do {
      const type = cursor.nodeType;
      if (PY_DEFS.has(type)) pyDefinition(cursor.currentNode, owner, q);
      else if (type === 'expression_statement') {
        if (!text.slice(cursor.startIndex, cursor.endIndex).includes('lambda')) continue;
        const n = cursor.currentNode;
        const a = n.namedChildCount === 1 ? n.namedChild(0) : null;
        const left = a?.childForFieldName('left');
        if (a?.type === 'assignment' && left?.type === 'identifier' && a.childForFieldName('right')?.type === 'lambda')
          open(qualify(q, left.text), [n], left, false, owner);
      } else if (PY_STATEMENT_CONTAINERS.has(type)) {
        if (type === 'if_statement' && text.slice(cursor.startIndex, cursor.startIndex + 80).includes('__main__')) {
          // `if __name__ == "__main__":` is module code; nothing in it is a symbol.
          const cond = squash(cursor.currentNode.childForFieldName('condition')?.text ?? '');
          if (/^(__name__==(["'])__main__\2|(["'])__main__\3==__name__)$/.test(cond)) continue;
        }
        pyScan(cursor, owner, q);
      }
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  };

  // ---- Go
  const goTop = (n: Node, owner: Draft): void => {
    const nameNode = n.childForFieldName('name');
    if (n.type === 'function_declaration' && nameNode) {
      open(nameNode.text, [n], nameNode, false, owner);
    } else if (n.type === 'method_declaration' && nameNode) {
      const recv = named(n.childForFieldName('receiver') ?? n)[0]?.childForFieldName('type');
      open(qualify(recv ? bareTypeName(recv.text) : '', nameNode.text), [n], nameNode, false, owner);
    } else if (n.type === 'type_declaration') {
      const specs = named(n).filter((c) => c.type === 'type_spec' || c.type === 'type_alias');
      for (const s of specs) {
        const sn = s.childForFieldName('name');
        if (sn) open(sn.text, specs.length === 1 ? [n] : [s], sn, s.type === 'type_alias', owner);
      }
    } else if (n.type === 'var_declaration') {
      const specs = named(n).filter((c) => c.type === 'var_spec');
      const only = specs.length === 1 ? specs[0] : undefined;
      const names = only ? only.childrenForFieldName('name').filter((c): c is Node => c !== null) : [];
      const value = only?.childForFieldName('value');
      if (names.length === 1 && value && named(value).length === 1 && named(value)[0]?.type === 'func_literal') {
        open((names[0] as Node).text, [n], names[0] as Node, false, owner);
      }
    }
  };

  // ---- Java
  const JAVA_TYPES = new Set([
    'class_declaration',
    'interface_declaration',
    'enum_declaration',
    'record_declaration',
    'annotation_type_declaration',
  ]);
  const javaType = (n: Node, owner: Draft, q: string): void => {
    const nameNode = n.childForFieldName('name');
    if (!nameNode) return;
    const name = qualify(q, nameNode.text);
    const d = open(name, [n], nameNode, false, owner);
    const body = n.childForFieldName('body');
    if (body) javaMembers(body, d, name);
  };
  const javaMembers = (body: Node, cls: Draft, q: string): void => {
    for (const m of named(body)) {
      if (JAVA_TYPES.has(m.type)) javaType(m, cls, q);
      else if (m.type === 'enum_body_declarations') javaMembers(m, cls, q);
      else if (m.type === 'method_declaration') {
        const nameNode = m.childForFieldName('name');
        if (nameNode) open(qualify(q, nameNode.text), [m], nameNode, m.childForFieldName('body') === null, cls);
      } else if (m.type === 'constructor_declaration' || m.type === 'compact_constructor_declaration') {
        open(qualify(q, 'constructor'), [m], null, false, cls);
      } else if (m.type === 'field_declaration') {
        const decls = m.childrenForFieldName('declarator').filter((c): c is Node => c !== null);
        const only = decls.length === 1 ? decls[0] : undefined;
        const nameNode = only?.childForFieldName('name');
        if (nameNode && only?.childForFieldName('value')?.type === 'lambda_expression')
          open(qualify(q, nameNode.text), [m], nameNode, false, cls);
      }
    }
  };

  // ---- Rust
  const isCfgTest = (attr: Node) => attr.type === 'attribute_item' && squash(attr.text) === '#[cfg(test)]';
  const rustItems = (list: Node, owner: Draft, q: string, implType: string | null): void => {
    let attrs: Node[] = [];
    for (const n of named(list)) {
      if (n.type === 'attribute_item') {
        attrs.push(n);
        continue;
      }
      if (COMMENTS.has(n.type)) continue;
      const nodes = [...attrs, n];
      const cfgTest = attrs.some(isCfgTest);
      attrs = [];
      // Unit tests under #[cfg(test)] are test code: in no symbol at all.
      if (cfgTest) {
        open(null, nodes, null, false, owner);
        continue;
      }
      rustItem(n, nodes, owner, q, implType);
    }
  };
  const rustItem = (n: Node, nodes: Node[], owner: Draft, q: string, implType: string | null): void => {
    const nameNode = n.childForFieldName('name');
    switch (n.type) {
      case 'function_item': {
        if (!nameNode) return;
        const name = qualify(implType ?? q, nameNode.text);
        const d = open(name, nodes, nameNode, false, owner);
        const body = n.childForFieldName('body');
        if (body) rustItems(body, d, name, null);
        return;
      }
      case 'function_signature_item':
        if (nameNode) open(qualify(implType ?? q, nameNode.text), nodes, nameNode, true, owner);
        return;
      case 'struct_item':
      case 'enum_item':
      case 'union_item':
      case 'macro_definition':
        if (nameNode) open(qualify(q, nameNode.text), nodes, nameNode, false, owner);
        return;
      case 'type_item':
        if (nameNode && implType === null) open(qualify(q, nameNode.text), nodes, nameNode, true, owner);
        return;
      case 'trait_item':
      case 'mod_item': {
        if (!nameNode) return;
        const name = qualify(q, nameNode.text);
        const d = open(name, nodes, nameNode, false, owner);
        const body = n.childForFieldName('body');
        if (body) rustItems(body, d, name, null);
        return;
      }
      case 'impl_item': {
        const typeNode = n.childForFieldName('type');
        if (!typeNode) return;
        const name = qualify(q, bareTypeName(typeNode.text));
        // The impl's own text (header, associated consts and types) belongs to the type.
        const d = open(name, nodes, null, false, owner);
        const body = n.childForFieldName('body');
        if (body) rustItems(body, d, q, name);
        return;
      }
      default:
    }
  };

  switch (lang) {
    case 'python': {
      const c = root.walk();
      try {
        pyScan(c, moduleDraft, '');
      } finally {
        c.delete();
      }
      break;
    }
    case 'go':
      for (const c of named(root)) goTop(c, moduleDraft);
      break;
    case 'java':
      for (const c of named(root)) if (JAVA_TYPES.has(c.type)) javaType(c, moduleDraft, '');
      break;
    case 'rust':
      rustItems(root, moduleDraft, '', null);
      break;
  }

  const table = new SymbolTable();
  for (const { name, draft } of drafts) {
    const piece = toPiece(
      draft,
      text,
      starts,
      (pieceText) =>
        lang === 'python'
          ? pythonLexicalForm(pieceText, {
              docstringChanges: options.docstringChanges,
              startColumn: columnAt(text, starts[lineOf(starts, draft.start) - 1] ?? 0, draft.start),
            })
          : { form: lexicalForm(lang, pieceText, options), exact: false },
      (withoutName) => tokensOf(draft, withoutName),
    );
    table.add(name, piece);
  }
  return { parsed: true, lineCount, symbols: table.symbols };
}

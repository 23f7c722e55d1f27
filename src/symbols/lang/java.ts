// Java's symbols: types and their members (methods, constructors, fields bound to a lambda), nested by type.
import type { Node } from 'web-tree-sitter';
import { lexicalForm, quoted, type CLexis } from '../lexical.js';
import { named, qualify, type Draft, type SitterLanguage, type SitterScan } from './scan.js';

const TYPES = new Set([
  'class_declaration',
  'interface_declaration',
  'enum_declaration',
  'record_declaration',
  'annotation_type_declaration',
]);

function type(s: SitterScan, n: Node, owner: Draft, q: string): void {
  const nameNode = n.childForFieldName('name');
  if (!nameNode) return;
  const name = qualify(q, nameNode.text);
  const d = s.open(name, [n], nameNode, false, owner);
  const body = n.childForFieldName('body');
  if (body) members(s, body, d, name);
}

function members(s: SitterScan, body: Node, cls: Draft, q: string): void {
  for (const m of named(body)) {
    if (TYPES.has(m.type)) type(s, m, cls, q);
    else if (m.type === 'enum_body_declarations') members(s, m, cls, q);
    else if (m.type === 'method_declaration') {
      const nameNode = m.childForFieldName('name');
      if (nameNode) s.open(qualify(q, nameNode.text), [m], nameNode, m.childForFieldName('body') === null, cls);
    } else if (m.type === 'constructor_declaration' || m.type === 'compact_constructor_declaration') {
      s.open(qualify(q, 'constructor'), [m], null, false, cls);
    } else if (m.type === 'field_declaration') {
      const decls = m.childrenForFieldName('declarator').filter((c): c is Node => c !== null);
      const only = decls.length === 1 ? decls[0] : undefined;
      const nameNode = only?.childForFieldName('name');
      if (nameNode && only?.childForFieldName('value')?.type === 'lambda_expression')
        s.open(qualify(q, nameNode.text), [m], nameNode, false, cls);
    }
  }
}

/** Java's strings: text blocks (`"""`), strings and characters. */
const LEXIS: CLexis = {
  nestedComments: false,
  stringPrefixes: false,
  stringEnd: (text, i) => {
    const ch = text[i];
    if (text.startsWith('"""', i)) return quoted(text, i, '"""', true);
    return ch === '"' || ch === "'" ? quoted(text, i, ch, false) : -1;
  },
};

export const java: SitterLanguage = {
  grammar: 'java',
  indentBlocks: false,
  scan: (s) => {
    for (const c of named(s.root)) if (TYPES.has(c.type)) type(s, c, s.module, '');
  },
  lexical: (pieceText) => ({ form: lexicalForm(LEXIS, pieceText), exact: false }),
};

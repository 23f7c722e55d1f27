// Rust's symbols: functions, types, traits, modules and macros, with an impl's functions under its type; #[cfg(test)] items in none.
import type { Node } from 'web-tree-sitter';
import { lexicalForm, quoted, type CLexis } from '../lexical.js';
import {
  bareTypeName,
  COMMENTS,
  named,
  qualify,
  squash,
  type Draft,
  type SitterLanguage,
  type SitterScan,
} from './scan.js';

const isCfgTest = (attr: Node): boolean => attr.type === 'attribute_item' && squash(attr.text) === '#[cfg(test)]';

function items(s: SitterScan, list: Node, owner: Draft, q: string, implType: string | null): void {
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
      s.open(null, nodes, null, false, owner);
      continue;
    }
    item(s, n, nodes, owner, q, implType);
  }
}

function item(s: SitterScan, n: Node, nodes: Node[], owner: Draft, q: string, implType: string | null): void {
  const nameNode = n.childForFieldName('name');
  switch (n.type) {
    case 'function_item': {
      if (!nameNode) return;
      const name = qualify(implType ?? q, nameNode.text);
      const d = s.open(name, nodes, nameNode, false, owner);
      const body = n.childForFieldName('body');
      if (body) items(s, body, d, name, null);
      return;
    }
    case 'function_signature_item':
      if (nameNode) s.open(qualify(implType ?? q, nameNode.text), nodes, nameNode, true, owner);
      return;
    case 'struct_item':
    case 'enum_item':
    case 'union_item':
    case 'macro_definition':
      if (nameNode) s.open(qualify(q, nameNode.text), nodes, nameNode, false, owner);
      return;
    case 'type_item':
      if (nameNode && implType === null) s.open(qualify(q, nameNode.text), nodes, nameNode, true, owner);
      return;
    case 'trait_item':
    case 'mod_item': {
      if (!nameNode) return;
      const name = qualify(q, nameNode.text);
      const d = s.open(name, nodes, nameNode, false, owner);
      const body = n.childForFieldName('body');
      if (body) items(s, body, d, name, null);
      return;
    }
    case 'impl_item': {
      const typeNode = n.childForFieldName('type');
      if (!typeNode) return;
      const name = qualify(q, bareTypeName(typeNode.text));
      // The impl's own text (header, associated consts and types) belongs to the type.
      const d = s.open(name, nodes, null, false, owner);
      const body = n.childForFieldName('body');
      if (body) items(s, body, d, q, name);
      return;
    }
    default:
  }
}

/** Rust's strings (over several lines), char literals (not lifetimes), raw and byte strings; its block comments nest. */
const LEXIS: CLexis = {
  nestedComments: true,
  stringPrefixes: true,
  stringEnd: (text, i) => {
    const ch = text[i] as string;
    if (ch === '"' || ch === '`') return quoted(text, i, ch, true);
    if (ch === "'") {
      // A char literal ('a', '\n', '\u{1F600}'), not a lifetime ('a).
      const m = /^'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/u.exec(text.slice(i, i + 12));
      return m ? i + m[0].length : -1;
    }
    if ((ch === 'r' || ch === 'b') && !/\w/.test(text[i - 1] ?? '')) {
      const m = /^b?r(#*)"/.exec(text.slice(i, i + 40));
      if (m) {
        const close = `"${m[1] ?? ''}`;
        const at = text.indexOf(close, i + m[0].length);
        return at < 0 ? text.length : at + close.length;
      }
    }
    return -1;
  },
};

export const rust: SitterLanguage = {
  grammar: 'rust',
  indentBlocks: false,
  scan: (s) => items(s, s.root, s.module, '', null),
  lexical: (pieceText) => ({ form: lexicalForm(LEXIS, pieceText), exact: false }),
};

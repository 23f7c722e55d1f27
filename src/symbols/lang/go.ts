// Go's symbols: functions, methods (by their receiver's type), types, and variables bound to a function literal.
import type { Node } from 'web-tree-sitter';
import { lexicalForm, quoted, type CLexis } from '../lexical.js';
import { bareTypeName, named, qualify, type Draft, type SitterLanguage, type SitterScan } from './scan.js';

function topLevel(s: SitterScan, n: Node, owner: Draft): void {
  const nameNode = n.childForFieldName('name');
  if (n.type === 'function_declaration' && nameNode) {
    s.open(nameNode.text, [n], nameNode, false, owner);
  } else if (n.type === 'method_declaration' && nameNode) {
    const recv = named(n.childForFieldName('receiver') ?? n)[0]?.childForFieldName('type');
    s.open(qualify(recv ? bareTypeName(recv.text) : '', nameNode.text), [n], nameNode, false, owner);
  } else if (n.type === 'type_declaration') {
    const specs = named(n).filter((c) => c.type === 'type_spec' || c.type === 'type_alias');
    for (const spec of specs) {
      const sn = spec.childForFieldName('name');
      if (sn) s.open(sn.text, specs.length === 1 ? [n] : [spec], sn, spec.type === 'type_alias', owner);
    }
  } else if (n.type === 'var_declaration') {
    const specs = named(n).filter((c) => c.type === 'var_spec');
    const only = specs.length === 1 ? specs[0] : undefined;
    const names = only ? only.childrenForFieldName('name').filter((c): c is Node => c !== null) : [];
    const value = only?.childForFieldName('value');
    if (names.length === 1 && value && named(value).length === 1 && named(value)[0]?.type === 'func_literal') {
      s.open((names[0] as Node).text, [n], names[0] as Node, false, owner);
    }
  }
}

/** Go's strings: raw strings in backquotes (no escapes), interpreted strings and runes. */
const LEXIS: CLexis = {
  nestedComments: false,
  stringPrefixes: false,
  stringEnd: (text, i) => {
    const ch = text[i];
    if (ch === '`') {
      const at = text.indexOf('`', i + 1);
      return at < 0 ? text.length : at + 1;
    }
    return ch === '"' || ch === "'" ? quoted(text, i, ch, false) : -1;
  },
};

export const go: SitterLanguage = {
  grammar: 'go',
  indentBlocks: false,
  scan: (s) => {
    for (const c of named(s.root)) topLevel(s, c, s.module);
  },
  lexical: (pieceText) => ({ form: lexicalForm(LEXIS, pieceText), exact: false }),
};

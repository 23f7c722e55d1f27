// Python's symbols: functions, classes and named lambdas, nested in what defines them, found by a cursor scan.
import type { Node, TreeCursor } from 'web-tree-sitter';
import { pythonLexicalForm } from '../lexical.js';
import { qualify, squash, type Draft, type SitterLanguage, type SitterScan } from './scan.js';

const STATEMENT_CONTAINERS = new Set([
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

const DEFS = new Set(['function_definition', 'class_definition', 'decorated_definition']);

/** A cursor scan, so only definitions become Node objects. */
function scan(s: SitterScan): void {
  const { text, open } = s;
  // Every symbol the scan finds is spelt with one of these words, so a node whose text holds
  // none of them has none to find and is not scanned (most function bodies).
  const wordsAt: number[] = [];
  for (const m of text.matchAll(/def|class|lambda/g)) wordsAt.push(m.index);
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
  const definition = (n: Node, owner: Draft, q: string): void => {
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
        statements(c, d, name);
      } finally {
        c.delete();
      }
    }
  };
  /** Scan the statements under the cursor's node for symbols; the cursor ends where it started. */
  const statements = (cursor: TreeCursor, owner: Draft, q: string): void => {
    if (!mayDefine(cursor.startIndex, cursor.endIndex) || !cursor.gotoFirstChild()) return;
    do {
      const type = cursor.nodeType;
      if (DEFS.has(type)) definition(cursor.currentNode, owner, q);
      else if (type === 'expression_statement') {
        if (!text.slice(cursor.startIndex, cursor.endIndex).includes('lambda')) continue;
        const n = cursor.currentNode;
        const a = n.namedChildCount === 1 ? n.namedChild(0) : null;
        const left = a?.childForFieldName('left');
        if (a?.type === 'assignment' && left?.type === 'identifier' && a.childForFieldName('right')?.type === 'lambda')
          open(qualify(q, left.text), [n], left, false, owner);
      } else if (STATEMENT_CONTAINERS.has(type)) {
        if (type === 'if_statement' && text.slice(cursor.startIndex, cursor.startIndex + 80).includes('__main__')) {
          // `if __name__ == "__main__":` is module code; nothing in it is a symbol.
          const cond = squash(cursor.currentNode.childForFieldName('condition')?.text ?? '');
          if (/^(__name__==(["'])__main__\2|(["'])__main__\3==__name__)$/.test(cond)) continue;
        }
        statements(cursor, owner, q);
      }
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  };
  const c = s.root.walk();
  try {
    statements(c, s.module, '');
  } finally {
    c.delete();
  }
}

export const python: SitterLanguage = {
  grammar: 'python',
  indentBlocks: true,
  scan,
  lexical: (pieceText, options, startColumn) =>
    pythonLexicalForm(pieceText, { docstringChanges: options.docstringChanges, startColumn: startColumn() }),
};

// Symbols of Python, Go, Java and Rust files, with tree-sitter grammars: one scan per language (lang/), one token reader.
import type { Node } from 'web-tree-sitter';
import { lineOf, lineStarts, MODULE, SymbolTable, toPiece, type ExtractOptions, type FileSymbols } from './model.js';
import { getParser, type TreeSitterLanguage } from './treesitter.js';
import { go } from './lang/go.js';
import { java } from './lang/java.js';
import { python } from './lang/python.js';
import { rust } from './lang/rust.js';
import { COMMENTS, type Draft, type SitterLanguage } from './lang/scan.js';

/** One scan per tree-sitter grammar: a grammar without one does not compile. */
export const SITTER_LANGUAGES = { python, go, java, rust } as const satisfies Record<
  TreeSitterLanguage,
  SitterLanguage
>;

/** String and character literals are one token each: their inner whitespace is content. */
const isAtomic = (type: string) => /string|char|rune|text_block/.test(type);

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
    return { ...collect(SITTER_LANGUAGES[lang], text, root, starts, lineCount, options), dispose: () => tree.delete() };
  } catch (err) {
    tree.delete();
    throw err;
  }
}

/**
 * A symbol's tokens, read from the tree with a cursor (no Node object per token): comments left
 * out, its nested symbols cut out, and `withoutName` its own name as one placeholder. Where the
 * language's blocks are made by indentation, a block's edges and each statement's end are
 * tokens, and a docstring (unless `docstringChanges`) is none.
 */
function tokensOf(
  language: SitterLanguage,
  text: string,
  d: Draft,
  withoutName: boolean,
  options: ExtractOptions,
): string[] {
  const out: string[] = [];
  const first = d.nodes[0] as Node;
  const cursor = first.walk();
  const isDocstring = (stmt: Node | undefined): boolean => {
    if (stmt?.type !== 'expression_statement' || stmt.namedChildCount !== 1) return false;
    const t = stmt.namedChild(0)?.type;
    return t === 'string' || t === 'concatenated_string';
  };
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
    if (language.indentBlocks && (type === 'block' || type === 'module')) {
      // Blocks made by indentation: mark them so moving a statement in or out is a change.
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
}

/** The file's symbols: the language's scan opens each, and each becomes a piece of the table. */
function collect(
  language: SitterLanguage,
  text: string,
  root: Node,
  starts: number[],
  lineCount: number,
  options: ExtractOptions,
): FileSymbols {
  const drafts: { name: string; draft: Draft }[] = [];
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
  language.scan({ text, root, module: open(MODULE, [root], null, false, null), open });
  const table = new SymbolTable();
  for (const { name, draft } of drafts) {
    const piece = toPiece(
      draft,
      text,
      starts,
      (pieceText) =>
        language.lexical(pieceText, options, () =>
          columnAt(text, starts[lineOf(starts, draft.start) - 1] ?? 0, draft.start),
        ),
      (withoutName) => tokensOf(language, text, draft, withoutName, options),
    );
    table.add(name, piece);
  }
  return { parsed: true, lineCount, symbols: table.symbols };
}

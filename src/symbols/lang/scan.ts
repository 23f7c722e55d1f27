// What a tree-sitter language's symbol scan is given (the file, its tree, `open` for each symbol it meets), and helpers they share.
import type { Node } from 'web-tree-sitter';
import type { LexicalForm } from '../lexical.js';
import type { ExtractOptions } from '../model.js';
import type { TreeSitterLanguage } from '../treesitter.js';

/** A symbol being collected: its nodes, its span, where its name is, and the nested symbols cut out of it. */
export interface Draft {
  readonly nodes: readonly Node[];
  readonly start: number;
  readonly end: number;
  readonly nameStart: number;
  readonly typeOnly: boolean;
  readonly cuts: [number, number][];
  readonly cutIds: Set<number>;
}

export interface SitterScan {
  readonly text: string;
  readonly root: Node;
  /** The `<module>` symbol: everything outside named symbols. */
  readonly module: Draft;
  /** Open a symbol over `nodes` inside `parent` (cut out of it); a null name is a region in no symbol at all. */
  readonly open: (
    name: string | null,
    nodes: Node[],
    nameNode: Node | null,
    typeOnly: boolean,
    parent: Draft | null,
  ) => Draft;
}

/** One tree-sitter language: which declarations are symbols, and how its text is read. */
export interface SitterLanguage {
  readonly grammar: TreeSitterLanguage;
  /** Blocks are made by indentation (Python): a statement moved in or out of one is a change, so block edges are tokens. */
  readonly indentBlocks: boolean;
  /** Open every symbol of the file. */
  readonly scan: (s: SitterScan) => void;
  /** A piece's lexical form; `startColumn`: the column it starts at in its file. */
  readonly lexical: (pieceText: string, options: ExtractOptions, startColumn: () => number) => LexicalForm;
}

export const COMMENTS = new Set(['comment', 'line_comment', 'block_comment']);

export const named = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => c !== null);
export const squash = (s: string): string => s.replace(/\s+/g, '');
export const qualify = (q: string, name: string): string => (q === '' ? name : `${q}.${name}`);

/** `*Calculator[T]`, `&'a mut Foo<T>`, `crate::x::Foo` → the bare type name. */
export function bareTypeName(text: string): string {
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

// The symbol extractors, one per source language: how a file's symbols are read, and where.
import type { SourceLanguage } from '../core/languages.js';
import { extractTypeScript, loadTypeScript } from './lang/typescript.js';
import type { ExtractOptions, FileSymbols } from './model.js';
import { extractWithTreeSitter } from './sitter.js';
import { getParser, type TreeSitterLanguage } from './treesitter.js';

export interface SymbolExtractor {
  /** Load the parser now, so that the first file does not wait for it. */
  readonly load: () => Promise<void>;
  /** The symbols of one file's text. */
  readonly extract: (path: string, text: string, options: ExtractOptions) => Promise<FileSymbols>;
  /** Parsed in the worker threads: the compiler loads there while this thread reads the patch, and its trees fill their heaps, not this one's. */
  readonly inWorkers: boolean;
}

/** TypeScript and JavaScript: the TypeScript compiler's parser. */
const script: SymbolExtractor = {
  load: async () => {
    await loadTypeScript();
  },
  extract: async (path, text) => extractTypeScript(await loadTypeScript(), path, text),
  inWorkers: true,
};

/** A tree-sitter grammar's extractor (sitter.ts). */
const sitter = (lang: TreeSitterLanguage): SymbolExtractor => ({
  load: async () => {
    await getParser(lang);
  },
  extract: (_path, text, options) => extractWithTreeSitter(lang, text, options),
  inWorkers: false,
});

/** One extractor per source language: a language without one does not compile. */
export const SYMBOL_EXTRACTORS = {
  typescript: script,
  javascript: script,
  python: sitter('python'),
  go: sitter('go'),
  java: sitter('java'),
  rust: sitter('rust'),
} as const satisfies Record<SourceLanguage, SymbolExtractor>;

/** The extractor of a language named in a file job, or null for a name sealgate does not know. */
export function extractorOf(language: string): SymbolExtractor | null {
  return Object.hasOwn(SYMBOL_EXTRACTORS, language) ? SYMBOL_EXTRACTORS[language as SourceLanguage] : null;
}

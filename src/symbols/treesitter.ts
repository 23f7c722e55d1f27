// Lazily loaded web-tree-sitter parsers for the grammars sealgate supports.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Language as TsLanguage, Parser as TsParser } from 'web-tree-sitter';

export type TreeSitterLanguage = 'python' | 'go' | 'java' | 'rust';

export const TREE_SITTER_LANGUAGES: readonly TreeSitterLanguage[] = ['python', 'go', 'java', 'rust'];

type Runtime = typeof import('web-tree-sitter');

let runtime: Promise<Runtime> | undefined;
const languages = new Map<TreeSitterLanguage, Promise<TsLanguage>>();

// The runtime's own wasm sits next to its entry point; Parser.init finds it there. Its
// CommonJS build, through require: the CLI bundles are CommonJS scripts compiled with a V8
// code cache, where a dynamic import() has no loader to go to (scripts/bundle.mjs refuses one).
function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    const mod = createRequire(import.meta.url)('web-tree-sitter') as Runtime;
    await mod.Parser.init();
    return mod;
  })();
  return runtime;
}

/** Path of the grammar's .wasm inside its npm package, resolved from this module (works from src/ and dist/). */
export function grammarWasmPath(lang: TreeSitterLanguage): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve(`tree-sitter-${lang}/package.json`);
  return join(dirname(pkg), `tree-sitter-${lang}.wasm`);
}

/** The grammar for `lang`, loaded once per process. */
export function getLanguage(lang: TreeSitterLanguage): Promise<TsLanguage> {
  let pending = languages.get(lang);
  if (pending === undefined) {
    pending = (async () => {
      const mod = await loadRuntime();
      return mod.Language.load(grammarWasmPath(lang));
    })();
    languages.set(lang, pending);
  }
  return pending;
}

const parsers = new Map<TreeSitterLanguage, Promise<TsParser>>();

/**
 * A parser set to `lang`. Cached: callers share one parser per language, so
 * parse synchronously (`parser.parse(text)`) and do not change its language.
 */
export function getParser(lang: TreeSitterLanguage): Promise<TsParser> {
  let pending = parsers.get(lang);
  if (pending === undefined) {
    pending = (async () => {
      const mod = await loadRuntime();
      const language = await getLanguage(lang);
      const parser = new mod.Parser();
      parser.setLanguage(language);
      return parser;
    })();
    parsers.set(lang, pending);
    // A failed load must not poison the cache for later callers.
    pending.catch(() => parsers.delete(lang));
  }
  return pending;
}

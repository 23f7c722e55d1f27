// Test-pattern files that production code imports are production code: the import graph, per language.
import { posix } from 'node:path';
import type { SourceLanguage } from '../core/languages.js';
import { loadTypeScript } from './lang/typescript.js';

/** What a TS/JS file imports: static imports, `export ... from`, `require`, `import('literal')`, `import x = require()`. */
export async function scriptImports(text: string): Promise<string[]> {
  const ts = await loadTypeScript();
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

export interface PyImport {
  /** Leading dots of a relative import (0: absolute). */
  readonly level: number;
  /** The dotted module, '' for `from . import x`. */
  readonly module: string;
  /** Names of a `from` import (each may be a submodule). */
  readonly names: readonly string[];
}

/**
 * What a Python file imports, lexically: `import a.b`, `from a import b`, `from .a import (b, c)`,
 * `importlib.import_module("a")`, `__import__("a")`. Over-inclusive by design (an import in a
 * string or comment counts too): a wrong extra import can only make more code production.
 */
export function pythonImports(text: string): PyImport[] {
  const out: PyImport[] = [];
  const lines = text.split(/\r?\n/);
  for (let k = 0; k < lines.length; k++) {
    let line = (lines[k] as string).replace(/#.*$/, '');
    while (line.endsWith('\\') && k + 1 < lines.length)
      line = line.slice(0, -1) + (lines[++k] as string).replace(/#.*$/, '');
    for (const stmt of line.split(';')) {
      const from = /^\s*from\s+(\.*)([\w.]*)\s+import\s+(.*)$/.exec(stmt);
      if (from) {
        let names = from[3] as string;
        if (names.includes('(') && !names.includes(')')) {
          while (k + 1 < lines.length && !names.includes(')'))
            names += ' ' + (lines[++k] as string).replace(/#.*$/, '');
        }
        const list = names
          .replace(/[()]/g, ' ')
          .split(',')
          .map((n) => n.trim().split(/\s+/)[0] ?? '')
          .filter((n) => /^\w+$/.test(n));
        out.push({ level: (from[1] as string).length, module: from[2] as string, names: list });
        continue;
      }
      const imp = /^\s*import\s+(.+)$/.exec(stmt);
      if (imp) {
        for (const part of (imp[1] as string).split(',')) {
          const mod = part.trim().split(/\s+/)[0] ?? '';
          if (/^[\w.]+$/.test(mod)) out.push({ level: 0, module: mod, names: [] });
        }
      }
    }
    for (const m of line.matchAll(/(?:import_module|__import__)\(\s*["']([\w.]+)["']/g))
      out.push({ level: 0, module: m[1] as string, names: [] });
  }
  return out;
}

// `.json`: `require('./rates')` loads rates.json (a data file reached this way is code's input).
const SCRIPT_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.json'];
const JS_TO_TS: Readonly<Record<string, readonly string[]>> = {
  '.js': ['.ts', '.tsx', '.d.ts'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts', '.d.mts'],
  '.cjs': ['.cts', '.d.cts'],
};

/** Tree paths a relative TS/JS specifier may load; bare specifiers (packages, aliases) resolve to none here. */
export function resolveScript(from: string, spec: string, tree: ReadonlySet<string>): string[] {
  if (!spec.startsWith('./') && !spec.startsWith('../') && spec !== '.' && spec !== '..') return [];
  const base = posix.normalize(posix.join(posix.dirname(from), spec.replace(/[?#].*$/, '')));
  const cands = [base, ...SCRIPT_EXTS.map((e) => base + e), ...SCRIPT_EXTS.map((e) => `${base}/index${e}`)];
  const ext = posix.extname(base);
  for (const alt of JS_TO_TS[ext] ?? []) cands.push(base.slice(0, -ext.length) + alt);
  return [...new Set(cands)].filter((c) => tree.has(c));
}

/**
 * Tree paths a Python import may load. Relative imports resolve from the file's package;
 * absolute ones match any file whose path ends in the module's path (the source root is not
 * known, so every root counts).
 */
export function resolvePython(from: string, imp: PyImport, pyFiles: readonly string[]): string[] {
  const mods: string[] = [];
  const parts = imp.module === '' ? [] : imp.module.split('.');
  const withNames = (p: string[]): string[][] => [p, ...imp.names.map((n) => [...p, n])];
  if (imp.level > 0) {
    let dir = posix.dirname(from);
    for (let k = 1; k < imp.level; k++) dir = posix.dirname(dir);
    for (const p of withNames(parts)) if (p.length > 0) mods.push(posix.join(dir === '.' ? '' : dir, ...p));
  } else for (const p of withNames(parts)) if (p.length > 0) mods.push(p.join('/'));
  const out = new Set<string>();
  for (const m of mods) {
    for (const suffix of [`${m}.py`, `${m}/__init__.py`]) {
      for (const f of pyFiles) {
        if (imp.level > 0 ? f === suffix : f === suffix || f.endsWith(`/${suffix}`)) out.add(f);
      }
    }
  }
  return [...out];
}

/** Go import paths: single specs and grouped ones, aliased or not. Lexical, over-inclusive. */
export function goImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\bimport\s*(?:\(([^)]*)\)|[\w.]*\s*("[^"\n]*"|`[^`]*`))/g)) {
    for (const q of (m[1] ?? m[2] ?? '').matchAll(/"([^"\n]*)"|`([^`]*)`/g)) out.push(q[1] ?? q[2] ?? '');
  }
  return out.filter((p) => p !== '');
}

/** The Go files of the packages an import path may name: a folder the path ends with (the module path is not known). `_test.go` files are never compiled in. */
export function resolveGo(imp: string, goFiles: readonly string[]): string[] {
  return goFiles.filter((f) => {
    const d = posix.dirname(f);
    return d !== '.' && !f.endsWith('_test.go') && (imp === d || imp.endsWith(`/${d}`));
  });
}

/**
 * The files a Rust file's `mod name;` declarations load (`name.rs`, `name/mod.rs`, or a
 * `#[path]`), beside the file and below its stem (which one applies depends on whether the
 * file is a crate root or mod.rs: both count). A `#[cfg(test)]` module is a test.
 */
export function rustModules(from: string, text: string, rsFiles: ReadonlySet<string>): string[] {
  const dir = posix.dirname(from);
  const dirs = [dir, posix.join(dir, posix.basename(from, '.rs'))];
  const out = new Set<string>();
  for (const m of text.matchAll(/((?:#\s*\[[^\]]*\]\s*)*)(?:pub\s*(?:\([^)]*\)\s*)?)?\bmod\s+(?:r#)?(\w+)\s*;/g)) {
    const attrs = m[1] ?? '';
    if (/#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]/.test(attrs)) continue;
    const name = m[2] as string;
    const path = /#\s*\[\s*path\s*=\s*"([^"]*)"\s*\]/.exec(attrs)?.[1];
    const cands =
      path !== undefined
        ? dirs.map((d) => posix.normalize(posix.join(d, path)))
        : dirs.flatMap((d) => [posix.join(d, `${name}.rs`), posix.join(d, name, 'mod.rs')]);
    for (const c of cands) if (rsFiles.has(c)) out.add(c);
  }
  return [...out];
}

/** Java `import a.b.C;`, `import a.b.*;` and `import static a.b.C.m;` as dotted names. */
export function javaImports(text: string): string[] {
  return [...text.matchAll(/\bimport\s+(?:static\s+)?([\w.]+(?:\.\*)?)\s*;/g)].map((m) => m[1] as string);
}

/** Java files an import may load, under any source root: the class (or an enclosing one), or every class of a wildcard's package. */
export function resolveJava(imp: string, javaFiles: readonly string[]): string[] {
  const parts = imp.split('.');
  const wildcard = parts.at(-1) === '*';
  const names = wildcard ? parts.slice(0, -1) : parts;
  const files: string[] = [];
  for (let k = names.length; k >= 1; k--) files.push(`${names.slice(0, k).join('/')}.java`);
  const pkg = names.join('/');
  return javaFiles.filter((f) => {
    const d = posix.dirname(f);
    return files.some((c) => f === c || f.endsWith(`/${c}`)) || (wildcard && (d === pkg || d.endsWith(`/${pkg}`)));
  });
}

export interface TreeFile {
  readonly path: string;
  /** null: a file of no import language (a JSON or other data file), reached but never read. */
  readonly language: SourceLanguage | null;
  /** True when the path alone makes the file a test (it matches a test pattern). */
  readonly testByPath: boolean;
}

/** The tree a file's imports resolve in: every path, and the paths of one language. */
interface ImportTree {
  readonly all: ReadonlySet<string>;
  readonly of: (language: SourceLanguage) => readonly string[];
}

/** The files of the tree one file imports, read by its language. */
type ImportsOf = (path: string, text: string, tree: ImportTree) => Promise<string[]>;

const scriptTargets: ImportsOf = async (path, text, tree) =>
  (await scriptImports(text)).flatMap((spec) => resolveScript(path, spec, tree.all));

/** One import reader per source language: a language without one does not compile. */
const IMPORTS = {
  typescript: scriptTargets,
  javascript: scriptTargets,
  python: (path, text, tree) =>
    Promise.resolve(pythonImports(text).flatMap((imp) => resolvePython(path, imp, tree.of('python')))),
  go: (_path, text, tree) => Promise.resolve(goImports(text).flatMap((imp) => resolveGo(imp, tree.of('go')))),
  rust: (path, text, tree) => Promise.resolve(rustModules(path, text, tree.all)),
  java: (_path, text, tree) => Promise.resolve(javaImports(text).flatMap((imp) => resolveJava(imp, tree.of('java')))),
} as const satisfies Record<SourceLanguage, ImportsOf>;

/**
 * Test-pattern files that production code imports, directly or through other such files,
 * each with the file that imports it. `read` gives a file's patched text.
 */
export async function importedTestFiles(
  files: readonly TreeFile[],
  read: (path: string) => Promise<string | null>,
): Promise<Map<string, string>> {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const byLanguage = new Map<SourceLanguage, string[]>();
  for (const f of files) {
    if (f.language === null) continue;
    const list = byLanguage.get(f.language);
    if (list === undefined) byLanguage.set(f.language, [f.path]);
    else list.push(f.path);
  }
  const tree: ImportTree = { all: new Set(files.map((f) => f.path)), of: (l) => byLanguage.get(l) ?? [] };
  const reached = new Map<string, string>();
  const todo = files.filter((f) => !f.testByPath).map((f) => f.path);
  const seen = new Set(todo);
  while (todo.length > 0) {
    const path = todo.pop() as string;
    const file = byPath.get(path) as TreeFile;
    if (file.language === null) continue;
    const text = await read(path);
    if (text === null) continue;
    for (const t of await IMPORTS[file.language](path, text, tree)) {
      const target = byPath.get(t);
      if (target === undefined || seen.has(t)) continue;
      seen.add(t);
      if (target.testByPath) reached.set(t, path);
      todo.push(t);
    }
  }
  return reached;
}

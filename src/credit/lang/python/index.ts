// Python for the credit step: tree-sitter for tests and mutants, CPython to compile them.
import type { CreditLanguage, ValiditySession } from '../language.js';
import { applyEdits } from '../../mutants/mutant.js';
import { linkPyModules, readPyModule, type PyModule } from './classify.js';
import { checkPyCompiles } from './compile.js';
import { mutatePy } from './mutate.js';
import { pyReferences, pyTopLevel } from './names.js';
import { configuresRewriting, precompilePython } from './pycache.js';

const PY_ERROR = /\b(SyntaxError|IndentationError|TabError)\b/;

/** Python's SyntaxError while collecting or importing a file, where the output names it. */
function compileError(output: string, path: string): string | null {
  const base = path.split('/').at(-1) ?? path;
  if (!path.endsWith('.py') || !output.includes(base)) return null;
  const py = PY_ERROR.exec(output);
  return py ? (py[1] ?? 'SyntaxError') : null;
}

/**
 * Every mutant of every symbol compiled in one interpreter, started once all are known. A
 * file the interpreter cannot compile unmutated gets no opinion (null for each of its mutants).
 */
function validity(): ValiditySession {
  const items: { path: string; text: string }[] = [];
  let compiled: Promise<(string | null)[]> = Promise.resolve([]);
  return {
    checker: (path, text, mutants) => {
      const from = items.length;
      items.push({ path, text }, ...mutants.map((m) => ({ path, text: applyEdits(text, m.edits) })));
      // Compile errors by mutant, read once the interpreter has answered.
      let errors: Promise<Map<string, string>> | null = null;
      return async (m) => {
        errors ??= compiled.then((all) => {
          const out = new Map<string, string>();
          const mine = all.slice(from, from + mutants.length + 1);
          if (mine[0] !== null) return out;
          mutants.forEach((x, i) => {
            const err = mine[i + 1];
            if (typeof err === 'string') out.set(x.id, `it does not compile (${err})`);
          });
          return out;
        });
        return (await errors).get(m.id) ?? null;
      };
    },
    start: () => {
      compiled = checkPyCompiles(items);
    },
    close: () => undefined,
    stalled: () => null,
  };
}

export const python: CreditLanguage = {
  credit: true,
  tests: () => {
    const modules: PyModule[] = [];
    return {
      read: async (path, text, fns, reads) => {
        const { tests, module } = await readPyModule(path, text, fns, reads);
        modules.push(module);
        return tests;
      },
      // Tests a class inherits from a class of another test file (a mixin in tests/__init__.py).
      link: (all) => linkPyModules(modules, all),
    };
  },
  mutants: mutatePy,
  tokens: { isComment: (t) => t.startsWith('#'), hashNames: false },
  names: {
    topLevel: (_path, text) => pyTopLevel(text),
    references: (_path, text, wanted) => pyReferences(text, wanted),
  },
  validity,
  compileError,
  byteCode: { configured: configuresRewriting, precompile: precompilePython },
};

// TypeScript and JavaScript for the credit step: the TypeScript compiler's parser and type checker.
import type { CreditLanguage, ValidityOptions, ValiditySession } from '../language.js';
import { applyEdits } from '../../mutants/mutant.js';
import { tsReferences, tsTopLevel } from './names.js';
import { makeTsValidityWorker, type AsyncValidity } from './type-check.js';

const TS_ERROR = /error TS(\d{4,5}):/;
const TYPED = /\.[cm]?tsx?$/;

/** ts-jest's type errors ("<path>:<line>:<col> - error TSnnnn: …") on a line naming the file. */
function compileError(output: string, path: string): string | null {
  const base = path.split('/').at(-1) ?? path;
  for (const line of output.split('\n')) {
    if (!line.includes(base)) continue;
    const ts = TS_ERROR.exec(line);
    if (ts && TYPED.test(path)) return `TS${ts[1] ?? ''}`;
  }
  return null;
}

/** Each mutant parsed, then type-checked (where the runner type-checks) in a worker thread made on first use. */
function validity(o: ValidityOptions): ValiditySession {
  // The type check runs in a worker thread, started with the first check, stopped when the last is done.
  let checker: AsyncValidity | undefined;
  return {
    checker: (path, text) => async (m) => {
      const mutated = applyEdits(text, m.edits);
      // The compiler loads only for a TS/JS symbol: a Python-only change never compiles the 9 MB compiler.
      const { parsesTs } = await import('./mutate.js');
      if (!parsesTs(path, mutated)) return 'it does not parse';
      if (!o.typeCheck) return null;
      return (checker ??= makeTsValidityWorker(o.repo, o.gitRepo)).check(path, text, mutated);
    },
    start: () => undefined,
    close: () => checker?.close(),
    stalled: () => checker?.stalled ?? null,
  };
}

/** TS and JS alike: the classifier, mutator and checks read both, and load the compiler only when used. */
export const script: CreditLanguage = {
  credit: true,
  tests: () => ({
    read: async (path, text, fns, reads) => (await import('./classify.js')).classifyTsTests(path, text, fns, reads),
    link: (all) => [...all],
  }),
  mutants: async (text, span, change, noise) => (await import('./mutate.js')).mutateTs(text, span, change, noise),
  tokens: { isComment: (t) => t.startsWith('//') || t.startsWith('/*'), hashNames: true },
  names: {
    topLevel: (path, text) => Promise.resolve(tsTopLevel(path, text)),
    references: (path, text, wanted) => Promise.resolve(tsReferences(path, text, wanted)),
  },
  validity,
  compileError,
  byteCode: null,
};

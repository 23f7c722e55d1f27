// What the credit step asks of one source language: the contract every folder of credit/lang/ fills.
import type { Mutant, Noise, SymbolMutants, SymbolSpan } from '../mutants/mutant.js';
import type { NameRules } from '../mutants/bindings.js';
import type { SymbolChange, TokenRules } from '../mutants/change.js';
import type { TestSource } from '../tests/classify.js';
import type { PrecompileResult } from './python/pycache.js';

/** Reading a tree's test files of one language: each file's tests, then what tests inherit across its files. */
export interface TestReading {
  /** One test file's tests with their static verdicts; `readsSource`: why the whole file reads production source, or null. */
  readonly read: (
    path: string,
    text: string,
    assertionFunctions: readonly string[],
    readsSource: string | null,
  ) => Promise<TestSource[]>;
  /** Every test of the tree read so far, with what this language's files inherit from one another. */
  readonly link: (all: readonly TestSource[]) => TestSource[];
}

/** Checking the mutants of one language for one proposal: opened once by the drafting. */
export interface ValiditySession {
  /** The check of one symbol's mutants (its file's text, and every mutant it will be asked about), before the bindings. */
  readonly checker: (path: string, text: string, mutants: readonly Mutant[]) => (m: Mutant) => Promise<string | null>;
  /** Every symbol's mutants are known: checks that take them all at once may start. */
  readonly start: () => void;
  readonly close: () => void;
  /** Why the checks stopped early (a type check over its time), or null. */
  readonly stalled: () => string | null;
}

export interface ValidityOptions {
  /** The tree the mutants apply to, and the repository its dependencies come from. */
  readonly repo: string;
  readonly gitRepo: string;
  /** The test runner type-checks (checkRunnerTypeChecks): a mutant that does not type-check is no valid program. */
  readonly typeCheck: boolean;
}

/** Byte code made for the credit runs' base copy before its first run (a speed-up; it changes no verdict). */
export interface ByteCode {
  /** Whether the tree, the command or its environment configure what the byte code would leave out. */
  readonly configured: (root: string, commandAndEnv: readonly string[]) => boolean;
  readonly precompile: (
    root: string,
    skip: ReadonlySet<string>,
    opts: { readonly cwd: string | null; readonly noRewrite: boolean },
  ) => Promise<PrecompileResult>;
}

/** A language the mutation oracle supports: every piece the credit step needs of it. */
export interface CreditLanguage {
  readonly credit: true;
  readonly tests: () => TestReading;
  /** A symbol's probe, trace, null mutant and behavioural candidates, on the tokens `change` names. */
  readonly mutants: (
    text: string,
    span: SymbolSpan,
    change: SymbolChange | undefined,
    noise: Noise,
  ) => Promise<SymbolMutants>;
  readonly tokens: TokenRules;
  readonly names: NameRules;
  readonly validity: (o: ValidityOptions) => ValiditySession;
  /** The runner's own compile-error text for the mutated file `path` in a run's output, or null. */
  readonly compileError: (output: string, path: string) => string | null;
  readonly byteCode: ByteCode | null;
}

/** A language without credit: `reason` is what the credit evidence says of each of its symbols. */
export interface NoCredit {
  readonly credit: false;
  readonly reason: string;
}

export type LanguageCredit = CreditLanguage | NoCredit;

import * as v from 'valibot';
import { glob, identifier, nonEmpty, uniqueStrings } from '../core/fields.js';

/** Files that count as tests or fixtures unless the config says otherwise. */
export const DEFAULT_TEST_PATTERNS: readonly string[] = [
  // folders, any language
  '**/test/**', '**/tests/**', '**/__tests__/**', '**/spec/**', '**/fixtures/**', '**/__fixtures__/**',
  '**/__snapshots__/**', '**/__mocks__/**', '**/testdata/**', '**/test-data/**',
  // JS/TS
  '*.test.*', '*.spec.*', '*.snap',
  // Python
  'test_*.py', '*_test.py', 'conftest.py',
  // Go
  '*_test.go',
  // Java
  '*Test.java', '*Tests.java', '*IT.java', '*TestCase.java',
  // Rust: tests/ and benches are folders above; unit tests live in #[cfg(test)] blocks
  // Ruby
  '*_spec.rb', '*_test.rb', 'test_*.rb', 'spec_helper.rb', 'rails_helper.rb',
];

/** Files that can change no behaviour: never credited, never required. */
export const DEFAULT_IGNORE_PATTERNS: readonly string[] = ['*.md', '*.markdown', '*.rst', 'LICENSE', 'LICENSE.*', 'NOTICE', 'AUTHORS', '.gitignore', '.editorconfig'];

const positiveInt = (max: number) => v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'), v.maxValue(max, `must be at most ${max}`));

export const ConfigSchema = v.strictObject({
  $schema: v.optional(v.string()),
  /** Replaces the default test patterns. */
  testPatterns: v.optional(uniqueStrings(glob, 'patterns')),
  /** Added to the default test patterns. */
  extraTestPatterns: v.optional(uniqueStrings(glob, 'patterns')),
  /** Replaces the default ignore patterns. */
  ignorePatterns: v.optional(uniqueStrings(glob, 'patterns')),
  /** Fixture globs hashed into the sealed digest. */
  fixtures: v.optional(v.pipe(uniqueStrings(glob, 'patterns'), v.minLength(1, 'list at least one fixture glob'))),
  /** Clock mode: "frozen", "frozen:<RFC 3339 instant>" or "live". */
  clock: v.optional(nonEmpty),
  locale: v.optional(nonEmpty),
  test: v.optional(
    v.strictObject({
      command: v.optional(v.pipe(v.array(nonEmpty), v.minLength(1, 'the command needs at least a program'))),
      junit: v.optional(uniqueStrings(nonEmpty, 'JUnit paths')),
      timeoutSeconds: v.optional(positiveInt(86_400)),
      logCapBytes: v.optional(positiveInt(4 * 1024 * 1024 * 1024)),
    }),
  ),
  symbols: v.optional(
    v.strictObject({
      /** Count docstring-only edits as changes (default false). */
      docstringChanges: v.optional(v.boolean('must be a JSON boolean')),
    }),
  ),
  credit: v.optional(
    v.strictObject({
      mutantBudget: v.optional(positiveInt(1000)),
      assertionFunctions: v.optional(uniqueStrings(identifier, 'names')),
      /** What earns a modified symbol: "change" (a kill of its revert or of a mutant on its changed tokens) or "revert" (a kill of its revert). */
      require: v.optional(v.picklist(['change', 'revert'], 'must be "change" or "revert"')),
      /** A mutant run's timeout: this many times the slower of the baseline and the control, plus 10 s. */
      timeoutFactor: v.optional(positiveInt(100)),
    }),
  ),
});

export type ConfigFile = v.InferOutput<typeof ConfigSchema>;

/** The config with defaults applied; what every stage reads. */
export interface Config {
  readonly testPatterns: readonly string[];
  readonly ignorePatterns: readonly string[];
  readonly fixtures: readonly string[] | undefined;
  readonly clock: string | undefined;
  readonly locale: string | undefined;
  readonly test: {
    readonly command: readonly string[] | undefined;
    readonly junit: readonly string[];
    readonly timeoutSeconds: number;
    readonly logCapBytes: number;
  };
  readonly symbols: { readonly docstringChanges: boolean };
  readonly credit: { readonly mutantBudget: number; readonly assertionFunctions: readonly string[]; readonly require: 'change' | 'revert'; readonly timeoutFactor: number };
}

export const DEFAULT_TIMEOUT_SECONDS = 1800;
export const DEFAULT_LOG_CAP_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MUTANT_BUDGET = 8;

export function normaliseConfig(file: ConfigFile): Config {
  return {
    testPatterns: [...(file.testPatterns ?? DEFAULT_TEST_PATTERNS), ...(file.extraTestPatterns ?? [])],
    ignorePatterns: file.ignorePatterns ?? DEFAULT_IGNORE_PATTERNS,
    fixtures: file.fixtures,
    clock: file.clock,
    locale: file.locale,
    test: {
      command: file.test?.command,
      junit: file.test?.junit ?? [],
      timeoutSeconds: file.test?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      logCapBytes: file.test?.logCapBytes ?? DEFAULT_LOG_CAP_BYTES,
    },
    symbols: { docstringChanges: file.symbols?.docstringChanges ?? false },
    credit: {
      mutantBudget: file.credit?.mutantBudget ?? DEFAULT_MUTANT_BUDGET,
      assertionFunctions: file.credit?.assertionFunctions ?? [],
      require: file.credit?.require ?? 'change',
      timeoutFactor: file.credit?.timeoutFactor ?? 3,
    },
  };
}

export const DEFAULT_CONFIG: Config = normaliseConfig({});

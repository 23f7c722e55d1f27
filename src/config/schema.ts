import * as v from 'valibot';
import { parsePublicKeyPem } from '../core/keys.js';
import { glob, identifier, nonEmpty, uniqueStrings } from '../core/fields.js';

/** Files that count as tests or fixtures unless the config says otherwise. */
export const DEFAULT_TEST_PATTERNS: readonly string[] = [
  // folders, any language
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/spec/**',
  '**/fixtures/**',
  '**/__fixtures__/**',
  '**/__snapshots__/**',
  '**/__mocks__/**',
  '**/testdata/**',
  '**/test-data/**',
  // JS/TS
  '*.test.*',
  '*.spec.*',
  '*.snap',
  // Python
  'test_*.py',
  '*_test.py',
  'conftest.py',
  // Go
  '*_test.go',
  // Java
  '*Test.java',
  '*Tests.java',
  '*IT.java',
  '*TestCase.java',
  // Rust: tests/ and benches are folders above; unit tests live in #[cfg(test)] blocks
  // Ruby
  '*_spec.rb',
  '*_test.rb',
  'test_*.rb',
  'spec_helper.rb',
  'rails_helper.rb',
];

/** Files that can change no behaviour: never credited, never required. */
export const DEFAULT_IGNORE_PATTERNS: readonly string[] = [
  '*.md',
  '*.markdown',
  '*.rst',
  'LICENSE',
  'LICENSE.*',
  'NOTICE',
  'AUTHORS',
  '.gitignore',
  '.editorconfig',
];

/**
 * Whole files that are policy. Globs are anchored like every other pattern: without `/`
 * a name at any depth, with `/` the whole path from the repository root.
 */
export const DEFAULT_POLICY_FILES: readonly string[] = [
  // sealgate's own config
  'sealgate.config.json',
  'sealgate.config.yaml',
  'sealgate.config.yml',
  // CI definitions
  '.github/**',
  '.gitlab-ci.yml',
  '.gitlab/**',
  '.circleci/**',
  'azure-pipelines.yml',
  'azure-pipelines.yaml',
  '.azure-pipelines/**',
  'Jenkinsfile',
  '.buildkite/**',
  '.travis.yml',
  'bitbucket-pipelines.yml',
  '.drone.yml',
  '.woodpecker.yml',
  '.woodpecker/**',
  'appveyor.yml',
  '.appveyor.yml',
  '.ci/**',
  // package-manager rc files: registries, scripts and hooks that run at install or test time
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.yarn/plugins/**',
  '.yarn/releases/**',
  '.pnpmfile.cjs',
  '.pnpmfile.mjs',
  'pnpm-workspace.yaml',
  'bunfig.toml',
  'pip.conf',
  'pip.ini',
  '.pip/**',
  'uv.toml',
  // test runners and the transforms they load
  'vitest.config.*',
  'vitest.workspace.*',
  'vite.config.*',
  'jest.config.*',
  'ava.config.*',
  'karma.conf.*',
  '.mocharc',
  '.mocharc.*',
  'playwright.config.*',
  'cypress.config.*',
  'babel.config.*',
  '.babelrc',
  '.babelrc.*',
  '.swcrc',
  'tsconfig*.json',
  'jsconfig*.json',
  // pytest reads pytest.ini, .pytest.ini (8.1 and later), pytest.toml and .pytest.toml (9.0 and
  // later) before pyproject.toml, so adding one sets aside the base's settings
  'pytest.ini',
  '.pytest.ini',
  'pytest.toml',
  '.pytest.toml',
  'tox.ini',
  'noxfile.py',
  'conftest.py',
  // a package's entry points in the tree (a *.dist-info or *.egg-info folder on sys.path): pytest
  // loads every pytest11 entry point as a plugin, with a conftest's hooks
  'entry_points.txt',
  // run by Python itself at start from any sys.path folder (a test.env PYTHONPATH), before pytest
  'sitecustomize.py',
  'usercustomize.py',
];
/** Names `test.env` may not set: the sandbox and the seal own them. */
export const RESERVED_ENV =
  /^(PATH|HOME|TMPDIR|CI|SEED|PYTHONHASHSEED|TZ|LANG|LANGUAGE|LC_[A-Z_]+|SEALGATE_[A-Z0-9_]*|FAKETIME.*|DONT_FAKE_MONOTONIC|LD_[A-Z_]+)$/;

const envName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)'),
  v.check(
    (k) => !RESERVED_ENV.test(k),
    'is set by sealgate itself (PATH, HOME, TMPDIR, CI, the seed, clock, locale and SEALGATE_* variables)',
  ),
);

/** Isolation of the project's test runs: bubblewrap (the default), or none at all. */
export const SANDBOX_KINDS = ['bwrap', 'none'] as const;
export type SandboxKind = (typeof SANDBOX_KINDS)[number];
/** An Ed25519 public key, SPKI PEM (what `sealgate keygen` writes as key.pub.pem). */
const publicKeyPem = v.pipe(
  v.string(),
  v.check(
    (s) => !('problem' in parsePublicKeyPem(s)),
    (issue) => {
      const r = parsePublicKeyPem(String(issue.input));
      return 'problem' in r ? r.problem : 'not a public key';
    },
  ),
);
const keyList = v.pipe(uniqueStrings(publicKeyPem, 'keys'), v.minLength(1, 'list at least one key'));

const positiveInt = (max: number) =>
  v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(max, `must be at most ${max}`),
  );

export const ConfigSchema = v.strictObject({
  $schema: v.optional(v.string()),
  /** Replaces the default test patterns. */
  testPatterns: v.optional(uniqueStrings(glob, 'patterns')),
  /** Added to the default test patterns. */
  extraTestPatterns: v.optional(uniqueStrings(glob, 'patterns')),
  /** Replaces the default ignore patterns. */
  ignorePatterns: v.optional(uniqueStrings(glob, 'patterns')),
  /** Replaces the default policy files (the policy surface: E_POLICY_CHANGED). */
  policyFiles: v.optional(uniqueStrings(glob, 'patterns')),
  /** Added to the default policy files. */
  extraPolicyFiles: v.optional(uniqueStrings(glob, 'patterns')),
  /** Fixture globs hashed into the sealed digest; [] for a project without fixtures. */
  fixtures: v.optional(uniqueStrings(glob, 'patterns')),
  /** Clock mode: "frozen", "frozen:<RFC 3339 instant>" or "live". */
  clock: v.optional(nonEmpty),
  locale: v.optional(nonEmpty),
  /** "bwrap" (default): every test run inside bubblewrap; "none": unsandboxed, recorded as such. */
  sandbox: v.optional(v.picklist(SANDBOX_KINDS, 'must be "bwrap" or "none"')),
  test: v.optional(
    v.strictObject({
      command: v.optional(v.pipe(v.array(nonEmpty), v.minLength(1, 'the command needs at least a program'))),
      junit: v.optional(uniqueStrings(nonEmpty, 'JUnit paths')),
      timeoutSeconds: v.optional(positiveInt(86_400)),
      logCapBytes: v.optional(positiveInt(4 * 1024 * 1024 * 1024)),
      /** Variables the test command gets besides the pinned ones (nothing else reaches it). */
      env: v.optional(
        v.record(
          envName,
          v.pipe(
            v.string('must be a string'),
            v.maxLength(32_768),
            v.check((x) => !x.includes('\0'), 'must not hold a NUL byte'),
          ),
        ),
      ),
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
  /** Keys whose signatures gate and verify require (docs/attest.md). Absent: evidence is unsigned. */
  trust: v.optional(
    v.strictObject({
      /** Keys that may sign the runner's attestation (review/runner/attestation.dsse.json). */
      runnerKeys: keyList,
      /** Keys that may sign a freeze (review/freeze.dsse.json); none: no freeze is accepted. */
      reviewerKeys: v.optional(keyList),
    }),
  ),
});

export type ConfigFile = v.InferOutput<typeof ConfigSchema>;

/** The config with defaults applied; what every stage reads. */
export interface Config {
  readonly testPatterns: readonly string[];
  readonly ignorePatterns: readonly string[];
  /** Whole-file policy globs; a patch touching one is E_POLICY_CHANGED. */
  readonly policyFiles: readonly string[];
  readonly fixtures: readonly string[] | undefined;
  readonly clock: string | undefined;
  readonly locale: string | undefined;
  readonly sandbox: SandboxKind;
  readonly test: {
    readonly command: readonly string[] | undefined;
    readonly junit: readonly string[];
    readonly timeoutSeconds: number;
    readonly logCapBytes: number;
    readonly env: Readonly<Record<string, string>>;
  };
  readonly symbols: { readonly docstringChanges: boolean };
  readonly credit: {
    readonly mutantBudget: number;
    readonly assertionFunctions: readonly string[];
    readonly require: 'change' | 'revert';
    readonly timeoutFactor: number;
  };
  /** undefined: no trust section, the evidence is not checked for signatures. */
  readonly trust: Trust | undefined;
}

export interface TrustedKeyEntry {
  /** sha256:<hex> of the key's SPKI DER. */
  readonly keyId: string;
  readonly pem: string;
}

export interface Trust {
  readonly runnerKeys: readonly TrustedKeyEntry[];
  readonly reviewerKeys: readonly TrustedKeyEntry[];
}

function toTrustedKeys(pems: readonly string[] | undefined): TrustedKeyEntry[] {
  return (pems ?? []).map((pem) => {
    const key = parsePublicKeyPem(pem);
    if ('problem' in key) throw new Error(`trust key passed the schema but not the parser: ${key.problem}`);
    return { keyId: key.keyId, pem };
  });
}

export const DEFAULT_TIMEOUT_SECONDS = 1800;
export const DEFAULT_LOG_CAP_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MUTANT_BUDGET = 8;

export function normaliseConfig(file: ConfigFile): Config {
  return {
    testPatterns: [...(file.testPatterns ?? DEFAULT_TEST_PATTERNS), ...(file.extraTestPatterns ?? [])],
    ignorePatterns: file.ignorePatterns ?? DEFAULT_IGNORE_PATTERNS,
    policyFiles: [...(file.policyFiles ?? DEFAULT_POLICY_FILES), ...(file.extraPolicyFiles ?? [])],
    fixtures: file.fixtures,
    clock: file.clock,
    locale: file.locale,
    sandbox: file.sandbox ?? 'bwrap',
    test: {
      command: file.test?.command,
      junit: file.test?.junit ?? [],
      timeoutSeconds: file.test?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      logCapBytes: file.test?.logCapBytes ?? DEFAULT_LOG_CAP_BYTES,
      env: { ...(file.test?.env ?? {}) },
    },
    symbols: { docstringChanges: file.symbols?.docstringChanges ?? false },
    credit: {
      mutantBudget: file.credit?.mutantBudget ?? DEFAULT_MUTANT_BUDGET,
      assertionFunctions: file.credit?.assertionFunctions ?? [],
      require: file.credit?.require ?? 'change',
      timeoutFactor: file.credit?.timeoutFactor ?? 3,
    },
    trust:
      file.trust === undefined
        ? undefined
        : { runnerKeys: toTrustedKeys(file.trust.runnerKeys), reviewerKeys: toTrustedKeys(file.trust.reviewerKeys) },
  };
}

export const DEFAULT_CONFIG: Config = normaliseConfig({});

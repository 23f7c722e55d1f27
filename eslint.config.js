// `npm run lint` (part of `npm test`): typescript-eslint's type-checked rules on the TypeScript
// (src/, test/ and scripts/*.ts: one program, from tsconfig.test.json), ESLint's recommended
// rules on the plain JavaScript (bin/, scripts/); zero warnings.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const readonly = (names) => Object.fromEntries(names.map((n) => [n, 'readonly']));
/** Node's globals that the plain scripts use (ESLint has no environments any more); add one here when needed. */
const nodeGlobals = readonly([
  'process',
  'console',
  'Buffer',
  'URL',
  'setTimeout',
  'clearTimeout',
  'setImmediate',
  'performance',
  'TextDecoder',
  'TextEncoder',
]);
const commonJsGlobals = readonly(['require', 'module', 'exports', '__dirname', '__filename']);

export default defineConfig(
  // Build output, run artefacts, the example project (a repository under review, not this
  // package's code) and test fixtures.
  { ignores: ['dist/', 'review/', '.bench/', 'examples/', 'test/fixtures/'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: nodeGlobals },
  },
  {
    files: ['**/*.cjs', 'bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...nodeGlobals, ...commonJsGlobals } },
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked, tseslint.configs.stylisticTypeChecked],
    languageOptions: { parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test awaits its own top-level test() and describe() calls.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      // `const { key: _dropped, ...rest } = o` is how the code drops a key.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // Index signatures are read with brackets (process.env['SEED']), as noPropertyAccessFromIndexSignature would ask.
      '@typescript-eslint/dot-notation': ['error', { allowIndexSignaturePropertyAccess: true }],
      // On strings, numbers and booleans `||` also replaces '', 0, NaN and false, and the code means it
      // (an empty job id is a missing one): `??` there would fail open. Object operands are still checked.
      '@typescript-eslint/prefer-nullish-coalescing': [
        'error',
        { ignorePrimitives: { string: true, number: true, boolean: true, bigint: true } },
      ],
      // The code narrows with `as T`, never `x!` (off: it asks for the opposite at some 75 places).
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      // Off: an `async` function without `await` implements a Promise-returning interface, and its
      // synchronous throw must reach the caller as a rejection; dropping `async` would change that.
      '@typescript-eslint/require-await': 'off',
    },
  },
);

// ESLint (flat config) with typescript-eslint, type-aware. Cross-folder relative imports are banned:
// libraries are reached through their `@trawl/<lib>` alias.
'use strict';
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-output/**', 'bench/results/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../../*', '../../../*'], message: 'Import other folders through @trawl/<lib>.' }] },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Tests, the benchmark and the proofs may use loose JSON shapes (kubectl's) and print to the console.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'bench/**/*.ts', '**/test/**/*.ts', 'deploy/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      'no-console': 'off',
      'no-restricted-imports': 'off',
    },
  },
  {
    // Rules that need types (the whole program through the project service): a promise nobody
    // awaits hides its rejection, and a switch on a union without a `default` must name every
    // member, so a new member (a response type, a problem code) fails lint until it is handled.
    // A switch with a `default` chose to treat the rest alike and is left alone.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  { files: ['**/*.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);

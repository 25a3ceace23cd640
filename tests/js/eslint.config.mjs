// ESLint for the trace viewer's modules (flow/views/viewer_assets/) and their tests (tests/js/), run by
// ./dev.sh check from the repository root: `tests/js/node_modules/.bin/eslint --config tests/js/eslint.config.mjs`.
// With --config, the patterns below are relative to the working directory, the repository root.

import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['**/node_modules/'] },
  js.configs.recommended,
  {
    files: ['flow/views/viewer_assets/**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.browser },
  },
  {
    files: ['tests/js/**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
  },
  {
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-shadow': 'error',
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none' }],
    },
  },
];

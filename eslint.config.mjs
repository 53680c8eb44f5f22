// One flat ESLint configuration. Besides the usual rules it enforces the package boundaries of
// docs/architecture.md: no reaching into another package's src/ or dist/, the server and the CLI never
// import a provider, no default exports, node: built-ins.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const bareBuiltins = builtinModules.filter((m) => !m.startsWith('_') && !m.includes('/'));

const internals = {
  group: [
    '@rea/*/src',
    '@rea/*/src/*',
    '@rea/*/dist',
    '@rea/*/dist/*',
    'rea/src/*',
    'rea/dist/*',
    '**/packages/*/src/**',
    '**/packages/*/dist/**',
    '**/providers/*/src/**',
    '**/providers/*/dist/**',
  ],
  message: 'Import a workspace package through its name and public entry, never its src/ or dist/ internals.',
};
const builtins = {
  paths: bareBuiltins.map((name) => ({ name, message: `Import node:${name} instead.` })),
};

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'coverage/**',
      'docs/public/**',
      '**/fixtures/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      'no-restricted-imports': ['error', { patterns: [internals], ...builtins }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'No default exports: use named exports.' },
        { selector: 'ExportSpecifier[exported.name="default"]', message: 'No default exports: use named exports.' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The server and the CLI receive providers from the composition root (`rea`); they never import one.
    files: ['packages/server/**', 'packages/cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            internals,
            {
              group: ['@rea/provider-*', '!@rea/provider-kit', '@rea/artifact', '@rea/javascript', '@rea/native'],
              message:
                'The server and the CLI never import a provider; the rea-mcp package (packages/rea) composes them.',
            },
          ],
          ...builtins,
        },
      ],
    },
  },
  {
    // Config files of tools that require a default export.
    files: ['jest.config.mjs', 'eslint.config.mjs', 'tools/jest/*.mjs'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);

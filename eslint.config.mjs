// One flat ESLint configuration. Besides the usual rules it enforces the package boundaries of
// docs/architecture.md: no reaching into another package's src/ or dist/, the server and the CLI never
// import a provider, an engine library only from its provider's engine seam, `isReaError` rather than
// `instanceof ReaError`, no default exports, node: built-ins. tests/contract/test/lintRules.test.ts
// shows each of these rules failing on a violating fixture.
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

/** Engine clients REA uses today; outside a provider's seam no source file may import them. */
const ENGINE_LIBRARIES = ['execa', 'chrome-remote-interface', 'yauzl', '@electron/asar', '@alexaltea/capstone-js'];
const engineMessage =
  "An engine library is imported only in its provider's engine seam (src/engine.ts or src/engine/); the rest of the provider talks to the seam.";
const namedEngines = { group: ENGINE_LIBRARIES.flatMap((name) => [name, `${name}/*`]), message: engineMessage };
// In a provider's source, anything but Node built-ins, workspace packages and zod is an engine library,
// so a new provider's engine is covered without naming it here.
const anyEngine = { regex: '^(?!node:|zod(/|$)|@rea/|rea(/|$)|\\.)', message: engineMessage };
// Selector regular expressions may not contain a slash: it is written \u002F.
const engineEscape = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('/', '\\u002F');

/** The `no-restricted-imports` options: the package boundaries, node: built-ins and `extra` patterns. */
function restrictedImports(...extra) {
  return ['error', { patterns: [internals, ...extra], ...builtins }];
}

/** `no-restricted-syntax` options: no default exports, the brand check for errors, and `extra` selectors. */
function restrictedSyntax(...extra) {
  return [
    'error',
    { selector: 'ExportDefaultDeclaration', message: 'No default exports: use named exports.' },
    { selector: 'ExportSpecifier[exported.name="default"]', message: 'No default exports: use named exports.' },
    {
      selector: 'BinaryExpression[operator="instanceof"][right.name="ReaError"]',
      message:
        'Use isReaError(value) from @rea/evidence: instanceof fails across two copies of the package (bundled and installed).',
    },
    ...extra,
  ];
}

/** A dynamic import() of a module whose name matches `source` (a regular expression body). */
const dynamicImport = (source) => ({
  selector: `ImportExpression > Literal.source[value=/${source}/]`,
  message: engineMessage,
});
const namedEngineSource = `^(${ENGINE_LIBRARIES.map(engineEscape).join('|')})(\\u002F|$)`;
const anyEngineSource = '^(?!node:|zod(\\u002F|$)|@rea\\u002F|rea(\\u002F|$)|\\.)';

// Provider sources: the provider folders, the two providers that keep their library names, the examples.
const PROVIDER_SOURCES = [
  'packages/providers/*/src/**',
  'packages/artifact/src/**',
  'packages/javascript/src/**',
  'examples/providers/*/src/**',
];
// Engine seams: a provider's src/engine.ts or src/engine/, and the owned-process supervisor (execa's).
const ENGINE_SEAMS = [
  'packages/providers/*/src/engine.ts',
  'packages/providers/*/src/engine/**',
  'packages/artifact/src/engine/**',
  'packages/javascript/src/engine.ts',
  'packages/javascript/src/engine/**',
  'examples/providers/*/src/engine.ts',
  'examples/providers/*/src/engine/**',
  'packages/provider-kit/src/supervisor/ownedProcess.ts',
];

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
      'no-restricted-imports': restrictedImports(),
      'no-restricted-syntax': restrictedSyntax(),
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Source files import no engine library; provider sources import nothing but built-ins, workspace
    // packages and zod outside their engine seam.
    files: ['packages/*/src/**', 'packages/providers/*/src/**', 'examples/providers/*/src/**'],
    ignores: [...PROVIDER_SOURCES, ...ENGINE_SEAMS],
    rules: {
      'no-restricted-imports': restrictedImports(namedEngines),
      'no-restricted-syntax': restrictedSyntax(dynamicImport(namedEngineSource)),
    },
  },
  {
    files: PROVIDER_SOURCES,
    ignores: ENGINE_SEAMS,
    rules: {
      'no-restricted-imports': restrictedImports(anyEngine),
      'no-restricted-syntax': restrictedSyntax(dynamicImport(anyEngineSource)),
    },
  },
  {
    // The server and the CLI receive providers from the composition root (`rea`); they never import one.
    files: ['packages/server/**', 'packages/cli/**'],
    rules: {
      'no-restricted-imports': restrictedImports(
        {
          group: ['@rea/provider-*', '!@rea/provider-kit', '@rea/artifact', '@rea/javascript', '@rea/native'],
          message: 'The server and the CLI never import a provider; the rea-mcp package (packages/rea) composes them.',
        },
        namedEngines,
      ),
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

// One jest configuration for the whole workspace: TypeScript through swc, native ESM, and workspace
// siblings resolved to their source through their exports maps (tools/workspace.mjs).
import { listPackages, sourceEntries } from './tools/workspace.mjs';

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
for (const pkg of listPackages()) {
  for (const { specifier, source } of sourceEntries(pkg)) moduleNameMapper[`^${escape(specifier)}$`] = source;
}

const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const ignored = ['/node_modules/', '/dist/'];

const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper,
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};

/** @type {import('jest').Config} */
export default {
  // Real processes and engines: give each suite room, and let two workers share the two cores.
  testTimeout: 60_000,
  maxWorkers: 2,
  // Each run has a private TMPDIR; REA-named entries left in it at the end fail the run.
  globalSetup: '<rootDir>/tools/jest/tempSetup.mjs',
  globalTeardown: '<rootDir>/tools/jest/tempTeardown.mjs',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/packages/**/test/**/*.test.ts'],
      testPathIgnorePatterns: [...ignored, '\\.e2e\\.test\\.ts$', '\\.engine\\.test\\.ts$', '\\.contract\\.test\\.ts$'],
    },
    {
      ...common,
      // The cross-package suites, and each provider's own run of the provider contract (test/*.contract.test.ts).
      displayName: 'contract',
      testMatch: [
        '<rootDir>/tests/contract/test/**/*.test.ts',
        '<rootDir>/packages/**/test/**/*.contract.test.ts',
        '<rootDir>/examples/providers/*/test/**/*.contract.test.ts',
      ],
      testPathIgnorePatterns: [...ignored, '\\.e2e\\.test\\.ts$', '\\.engine\\.test\\.ts$'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/**/test/**/*.e2e.test.ts'],
      testPathIgnorePatterns: ignored,
    },
    {
      ...common,
      displayName: 'engine',
      testMatch: ['<rootDir>/**/test/**/*.engine.test.ts'],
      testPathIgnorePatterns: ignored,
    },
  ],
};

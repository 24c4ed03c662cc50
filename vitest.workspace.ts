import { defineWorkspace } from 'vitest/config';

// Two projects: fast unit tests beside the code, and integration tests that start
// a real redis-server and the embedded ClickHouse engine (chDB).
export default defineWorkspace([
  {
    test: {
      name: 'unit',
      include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'bench/**/*.test.ts'],
    },
  },
  {
    test: {
      name: 'integration',
      include: ['test/**/*.test.ts'],
      globalSetup: ['test/support/global-setup.ts'],
      testTimeout: 60_000,
      hookTimeout: 120_000,
      // chDB binds one data directory per process: each test file runs in its own fork
      // with its own data directory.
      pool: 'forks',
    },
  },
]);

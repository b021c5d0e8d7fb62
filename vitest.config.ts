import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['e2e/**', 'node_modules/**', 'out/**', 'dist/**'],
    // Child processes, not worker threads: better-sqlite3 is a native addon.
    pool: 'forks',
    // CI and dev machines have 2 cores (vitest 4 replaced poolOptions.*.maxForks with this).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default'],
    // The store worker, bundled once per run (see the file).
    globalSetup: ['test/support/globalSetup.ts'],
  },
});

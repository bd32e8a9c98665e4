import { defineConfig } from 'vitest/config';

// Two cores: run test files in two forks; the long bug-zoo files set their own timeouts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

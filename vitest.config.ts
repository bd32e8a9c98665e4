import { configDefaults, defineConfig } from 'vitest/config';

// `npm test`: every test file except the long campaigns, named *.slow.test.ts, which `npm run test:slow` runs
// (vitest.slow.config.ts), and the longest real-code campaigns, named *.nightly.test.ts, which `npm run test:nightly`
// runs (vitest.nightly.config.ts, in the nightly workflow). Two cores: run test files in two forks.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '**/*.slow.test.ts', '**/*.nightly.test.ts'],
    setupFiles: ['test/setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

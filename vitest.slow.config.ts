import { configDefaults, defineConfig } from 'vitest/config';
import quick from './vitest.config.ts';

// `npm run test:slow`: only the long campaigns (the bug zoo, the 1,000-seed determinism sweep, ...), the files named
// *.slow.test.ts that `npm test` leaves out, with the same setup, pool and timeouts (the campaigns set longer ones).
// The verbose reporter prints each test as it ends, so a campaign of several minutes is not silent.
export default defineConfig({
  test: {
    ...quick.test,
    include: ['test/**/*.slow.test.ts'],
    exclude: [...configDefaults.exclude],
    reporters: ['verbose'],
  },
});

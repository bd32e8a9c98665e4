import { configDefaults, defineConfig } from 'vitest/config';
import quick from './vitest.config.ts';

// `npm run test:nightly`: the longest campaigns of real OpenClaw code (differentials against the model, memory over
// thousands of instances, the loader's speed-ups against its baseline), the files named *.nightly.test.ts, which
// neither `npm test` nor `npm run test:slow` runs (they would take .ci/run past its time). The nightly workflow runs
// them with the openclaw/ workspace installed; without it they skip, each naming the command that installs it.
export default defineConfig({
  test: {
    ...quick.test,
    include: ['test/**/*.nightly.test.ts'],
    exclude: [...configDefaults.exclude],
    reporters: ['verbose'],
  },
});

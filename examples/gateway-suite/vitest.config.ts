// The example's own vitest configuration, as a gateway repository would have it (gatesim runs inside vitest).
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['*.test.ts'], testTimeout: 120_000 } });

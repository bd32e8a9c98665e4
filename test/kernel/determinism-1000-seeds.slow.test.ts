// Determinism of the whole kernel over many seeds: the kernel workload (processes exchanging messages under every
// fault type, with kills, restarts, disk writes and SQL writes) gives the same traceHash for each of 1,000 random
// seeds, run twice in one process, and different seeds give different runs. About 40 s on two busy cores, so it runs
// in `npm run test:slow`; determinism.test.ts (in `npm test`) checks a sample in a fresh process and the divergence
// finder.
import { describe, expect, it } from 'vitest';
import { explainMismatch, hashOf, seedCount, seeds } from './determinism-support.ts';

describe('the same seed gives the same traceHash', () => {
  it(`for ${seedCount} random seeds, each run twice in one process`, { timeout: 180_000 }, async () => {
    const hashes = new Set<string>();
    let checked = 0;
    for (const seed of seeds) {
      const first = await hashOf(seed);
      const second = await hashOf(seed);
      if (first !== second) expect.fail(await explainMismatch(seed));
      hashes.add(first);
      checked++;
    }
    expect(checked).toBe(seedCount);
    // Different seeds give different runs: a constant hash would pass the comparison above vacuously.
    expect(hashes.size).toBe(seedCount);
  });
});

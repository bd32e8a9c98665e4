// The benchmark hunts the six seed bugs, each in the scenario that focuses on it and in chaos. The seeds' own fixes
// are in bugIds too (variants to compare, with no focused scenario): the full `npm run bench` once crashed on the
// first of them ("no scenario focuses on exec-dedupe-memory") after the six hunts; asking for one is a clear error.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bugIds } from '../../src/index.ts';
import { scenarios } from '../../scenarios/index.ts';

describe('npm run bench', () => {
  it('refuses to hunt a variant, naming the seed bugs, and exits 2', () => {
    const out = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--only', 'hunt', '--bugs', 'exec-dedupe-memory'], { encoding: 'utf8' });
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('exec-dedupe-memory: not a seed bug');
    expect(out.stderr).toContain('exec-replay, send-dup, send-flag, send-stale, orphan-leaf, flush-cursor');
  });

  it('has a focused scenario for exactly the six seed bugs', () => {
    const focused = bugIds.filter((bug) => scenarios.some((scenario) => scenario.focus.includes(bug)));
    expect(focused).toEqual(['exec-replay', 'send-dup', 'send-flag', 'send-stale', 'orphan-leaf', 'flush-cursor']);
  });
});

// Shared by the kernel determinism tests (determinism.test.ts and the 1,000-seed sweep,
// determinism-1000-seeds.slow.test.ts): one list of random seeds, the workload's length, and a run's hash or trace.
import { expect } from 'vitest';
import type { ProcessContext } from '../../src/ports.ts';
import { runKernelWorkload } from '../../sim/kernel/workload.ts';
import { Prng } from '../../sim/kernel/prng.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { describeDivergence, firstDivergence, type TraceEvent } from '../../sim/kernel/trace.ts';

const sql = await loadSqlJs();

/** Long enough for every fault type to fire several times; short enough for 2,000 runs in about half a minute. */
export const simTimeMs = 20_000;
export const seedCount = 1_000;

function randomSeeds(count: number): string[] {
  const prng = new Prng('determinism-test-seeds');
  const seeds = new Set<string>();
  while (seeds.size < count) seeds.add(String(prng.int(0, 2 ** 48)));
  return [...seeds];
}

export const seeds = randomSeeds(seedCount);

export async function hashOf(seed: string): Promise<string> {
  const result = await runKernelWorkload({ seed, sql, simTimeMs });
  result.sim.dispose();
  expect(result.stopReason).toBe('time-cap');
  expect(result.crashes).toBe(0);
  return result.traceHash;
}

export async function traceOf(seed: string, perturb?: (ctx: ProcessContext, round: number) => void): Promise<TraceEvent[]> {
  const options = { seed, sql, simTimeMs, keepTrace: true };
  const result = await runKernelWorkload(perturb === undefined ? options : { ...options, perturb });
  result.sim.dispose();
  return result.sim.trace.events;
}

/** On a mismatch, rerun the seed with traces kept and say where the runs first differ. */
export async function explainMismatch(seed: string): Promise<string> {
  const divergence = firstDivergence(await traceOf(seed), await traceOf(seed));
  const where = divergence === undefined ? 'hashes differed but the kept traces agree' : describeDivergence(divergence);
  return `seed ${seed}: ${where}`;
}

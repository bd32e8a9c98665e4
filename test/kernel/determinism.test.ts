// Determinism of the whole kernel: the kernel workload (processes exchanging messages under every fault type, with
// kills, restarts, disk writes and SQL writes) gives the same traceHash for the same seed, twice in one process and
// again in a fresh process; and a deliberately injected nondeterminism is reported at its first divergent event.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProcessContext } from '../../src/ports.ts';
import { runKernelWorkload } from '../../sim/kernel/workload.ts';
import { Prng } from '../../sim/kernel/prng.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { describeDivergence, firstDivergence, serialiseEvent, type TraceEvent } from '../../sim/kernel/trace.ts';

const sql = await loadSqlJs();
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** Long enough for every fault type to fire several times; short enough for 2,000 runs in about half a minute. */
const simTimeMs = 20_000;
const seedCount = 1_000;
const freshProcessSampleSize = 20;

function randomSeeds(count: number): string[] {
  const prng = new Prng('determinism-test-seeds');
  const seeds = new Set<string>();
  while (seeds.size < count) seeds.add(String(prng.int(0, 2 ** 48)));
  return [...seeds];
}

const seeds = randomSeeds(seedCount);

async function hashOf(seed: string): Promise<string> {
  const result = await runKernelWorkload({ seed, sql, simTimeMs });
  result.sim.dispose();
  expect(result.stopReason).toBe('time-cap');
  expect(result.crashes).toBe(0);
  return result.traceHash;
}

async function traceOf(seed: string, perturb?: (ctx: ProcessContext, round: number) => void): Promise<TraceEvent[]> {
  const options = { seed, sql, simTimeMs, keepTrace: true };
  const result = await runKernelWorkload(perturb === undefined ? options : { ...options, perturb });
  result.sim.dispose();
  return result.sim.trace.events;
}

interface Perturbation {
  baseline: TraceEvent[];
  perturbed: TraceEvent[];
  /** Whether `inject` ran: false if `name` never reached the round. */
  fired: boolean;
}

/** The trace of `seed`, then its trace again with `inject` run once, by process `name` in workload round `round`. */
async function perturbOnce(
  seed: string,
  name: string,
  round: number,
  inject: (ctx: ProcessContext, round: number) => void,
): Promise<Perturbation> {
  const baseline = await traceOf(seed);
  let fired = false;
  const perturbed = await traceOf(seed, (ctx, atRound) => {
    if (fired || ctx.name !== name || atRound !== round) return;
    fired = true;
    inject(ctx, atRound);
  });
  return { baseline, perturbed, fired };
}

/** On a mismatch, rerun the seed with traces kept and say where the runs first differ. */
async function explainMismatch(seed: string): Promise<string> {
  const divergence = firstDivergence(await traceOf(seed), await traceOf(seed));
  const where = divergence === undefined ? 'hashes differed but the kept traces agree' : describeDivergence(divergence);
  return `seed ${seed}: ${where}`;
}

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

  it(`for a sample of ${freshProcessSampleSize} seeds, again in a fresh process`, { timeout: 120_000 }, async () => {
    const stride = Math.floor(seedCount / freshProcessSampleSize);
    const sample = seeds.filter((_, i) => i % stride === 0).slice(0, freshProcessSampleSize);
    expect(sample).toHaveLength(freshProcessSampleSize);
    const here: Record<string, string> = {};
    for (const seed of sample) here[seed] = await hashOf(seed);
    const { stdout } = await run('npx', ['tsx', 'test/kernel/fixtures/hash-seeds.ts', String(simTimeMs), ...sample], {
      cwd: repoRoot,
      timeout: 110_000,
    });
    const fresh = JSON.parse(stdout) as Record<string, string>;
    expect(fresh).toEqual(here);
  });
});

describe('an injected nondeterminism is reported at its first divergent event', () => {
  const seed = seeds[0] as string;

  it('an extra model note on the second run only', async () => {
    const { baseline, perturbed, fired } = await perturbOnce(seed, 'beta', 3, (ctx, round) => {
      ctx.note('perturbed', { round });
    });
    expect(fired).toBe(true);
    const injected = perturbed.findIndex((event) => event.kind === 'model.perturbed');
    expect(injected).toBeGreaterThan(0);
    const divergence = firstDivergence(baseline, perturbed);
    expect(divergence?.index).toBe(injected);
    expect(divergence?.right).toBe(serialiseEvent(perturbed[injected] as TraceEvent));
    expect(divergence?.left).toBe(serialiseEvent(baseline[injected] as TraceEvent));
    expect(describeDivergence(divergence as NonNullable<typeof divergence>)).toContain(`event #${injected}`);
  });

  it('an extra send on the second run only, which also shifts every later network draw', async () => {
    const { baseline, perturbed, fired } = await perturbOnce(seed, 'gamma', 5, (ctx) => {
      // The workload never sends to itself, so this send is recognisable in the trace.
      ctx.net.send(ctx.name, 'injected');
    });
    expect(fired).toBe(true);
    const injected = perturbed.findIndex(
      (event) => event.kind === 'net.send' && event.fields.from === 'gamma' && event.fields.to === 'gamma',
    );
    expect(injected).toBeGreaterThan(0);
    expect(firstDivergence(baseline, perturbed)?.index).toBe(injected);
  });

  it('wherever a note is injected, the divergence is at it (or absent if it never fired)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...seeds.slice(0, 20)),
        fc.constantFrom('alpha', 'beta', 'gamma'),
        fc.nat(60),
        async (chosenSeed, name, round) => {
          const { baseline, perturbed, fired } = await perturbOnce(chosenSeed, name, round, (ctx) => {
            ctx.note('perturbed', {});
          });
          const divergence = firstDivergence(baseline, perturbed);
          if (!fired) {
            expect(divergence).toBeUndefined();
            return;
          }
          expect(divergence?.index).toBe(perturbed.findIndex((event) => event.kind === 'model.perturbed'));
        },
      ),
      { numRuns: 15 },
    );
  });
});

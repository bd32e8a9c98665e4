// Determinism of the whole kernel: the kernel workload (processes exchanging messages under every fault type, with
// kills, restarts, disk writes and SQL writes) gives the same traceHash for a sample of seeds in this process and
// again in a fresh process; and a deliberately injected nondeterminism is reported at its first divergent event. The
// sweep of 1,000 seeds, each run twice, is determinism-1000-seeds.slow.test.ts (`npm run test:slow`).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProcessContext } from '../../src/ports.ts';
import { describeDivergence, firstDivergence, serialiseEvent, type TraceEvent } from '../../sim/kernel/trace.ts';
import { childEnv } from '../hermetic-env.ts';
import { hashOf, seedCount, seeds, simTimeMs, traceOf } from './determinism-support.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

const freshProcessSampleSize = 20;

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

describe('the same seed gives the same traceHash', () => {
  it(`for a sample of ${freshProcessSampleSize} seeds, again in a fresh process`, { timeout: 120_000 }, async () => {
    const stride = Math.floor(seedCount / freshProcessSampleSize);
    const sample = seeds.filter((_, i) => i % stride === 0).slice(0, freshProcessSampleSize);
    expect(sample).toHaveLength(freshProcessSampleSize);
    const here: Record<string, string> = {};
    for (const seed of sample) here[seed] = await hashOf(seed);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/kernel/fixtures/hash-seeds.ts', String(simTimeMs), ...sample], {
      cwd: repoRoot,
      env: childEnv(),
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

// The kernel figures: three workloads of the same shape (bench/workloads.ts), a bare typed-array heap (the
// baseline), plain callbacks through the Scheduler, and simulated processes awaiting sleeps through the Simulation.
// After warm-up rounds each round runs all three in turn and a figure is the median over the rounds, so the three
// are measured under the same conditions. Targets (issue 2): plain callbacks at half the baseline or better, async
// events at a quarter or better.
import type { SqlJsStatic } from 'sql.js';
import { median, round } from './stats.ts';
import { timeAsync, timeBaseline, timePlain, type Timing, type WorkloadShape } from './workloads.ts';

export const plainToBaselineMin = 0.5;
export const asyncToBaselineMin = 0.25;

export interface KernelShape {
  events: number;
  population: number;
  processes: number;
  delayMsMax: number;
  repeats: number;
  warmups: number;
}

export interface KernelFigures {
  eventsPerSec: number;
  asyncEventsPerSec: number;
  baselineEventsPerSec: number;
  plainToBaseline: number;
  asyncToBaseline: number;
  shape: KernelShape;
  samples: { eventsPerSec: number[]; asyncEventsPerSec: number[]; baselineEventsPerSec: number[] };
}

function perSecond(timing: Timing): number {
  return timing.events / (timing.wallMs / 1_000);
}

export async function measureKernel(shape: KernelShape, sql: SqlJsStatic): Promise<KernelFigures> {
  if (shape.events <= shape.population) throw new Error('the kernel workload needs more events than pending events');
  if (shape.population % shape.processes !== 0) throw new Error('the population must be a multiple of the processes');
  const workload: WorkloadShape = { ...shape, delaySeed: 0x5eed };
  const baseline: number[] = [];
  const plain: number[] = [];
  const async: number[] = [];
  for (let index = 0; index < shape.warmups + shape.repeats; index++) {
    const baselineRate = perSecond(timeBaseline(workload));
    const plainRate = perSecond(await timePlain(workload));
    const asyncRate = perSecond(await timeAsync(workload, sql));
    if (index < shape.warmups) continue;
    baseline.push(baselineRate);
    plain.push(plainRate);
    async.push(asyncRate);
  }
  const baselineEventsPerSec = median(baseline);
  const eventsPerSec = median(plain);
  const asyncEventsPerSec = median(async);
  return {
    eventsPerSec: round(eventsPerSec),
    asyncEventsPerSec: round(asyncEventsPerSec),
    baselineEventsPerSec: round(baselineEventsPerSec),
    plainToBaseline: round(eventsPerSec / baselineEventsPerSec, 3),
    asyncToBaseline: round(asyncEventsPerSec / baselineEventsPerSec, 3),
    shape,
    samples: {
      eventsPerSec: plain.map((value) => round(value)),
      asyncEventsPerSec: async.map((value) => round(value)),
      baselineEventsPerSec: baseline.map((value) => round(value)),
    },
  };
}

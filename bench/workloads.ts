// The three kernel workloads the benchmark times. Each keeps `population` events pending and runs `events` events
// in all, drawing delays from the same DelayStream, so they do the same schedule-and-pop operations:
// - bare: the baseline heap (bench/baseline-heap.ts), no kernel at all;
// - plain: plain callbacks through the kernel's Scheduler, each rescheduling itself (no continuation, no settle);
// - async: `population` simulated processes of a Simulation, each looping `await ctx.timers.sleep(delay)`, so every
//   event resumes an awaiting continuation and the scheduler settles after it.
// Only the run is timed, never the set-up; wall time comes from sim/cli/real.ts alone.
import type { SqlJsStatic } from 'sql.js';
import type { ProcessContext } from '../src/ports.ts';
import { Scheduler, SimClock, Simulation } from '../sim/kernel/index.ts';
import { wallNowMs } from '../sim/cli/real.ts';
import { runBareHeap } from './baseline-heap.ts';
import { DelayStream } from './delays.ts';

export interface WorkloadShape {
  events: number;
  /** Events pending at all times (sleeping loops in the async workload). */
  population: number;
  /** Simulated processes in the async workload; each runs population / processes sleeping loops. */
  processes: number;
  delayMsMax: number;
  delaySeed: number;
}

export interface Timing {
  events: number;
  wallMs: number;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`bench: ${message}`);
}

export function timeBaseline(shape: WorkloadShape): Timing {
  const delays = new DelayStream(shape.delaySeed, shape.delayMsMax);
  const startMs = wallNowMs();
  const { pops, checksum } = runBareHeap(shape.events, shape.population, delays);
  const wallMs = wallNowMs() - startMs;
  check(pops === shape.events, `baseline popped ${pops} of ${shape.events}`);
  check(checksum >= 0, 'baseline checksum');
  return { events: pops, wallMs };
}

export async function timePlain(shape: WorkloadShape): Promise<Timing> {
  const delays = new DelayStream(shape.delaySeed, shape.delayMsMax);
  const scheduler = new Scheduler(
    new SimClock(),
    { stepsMax: shape.events, simTimeMsMax: Number.MAX_SAFE_INTEGER },
    { state: () => 'running', defer: () => {} },
  );
  let scheduled = 0;
  const tick = (): void => {
    if (scheduled === shape.events) return;
    scheduled++;
    scheduler.schedule(delays.next(), tick);
  };
  for (let i = 0; i < shape.population; i++) tick();
  const startMs = wallNowMs();
  const stopReason = await scheduler.run();
  const wallMs = wallNowMs() - startMs;
  check(stopReason === 'idle', `plain workload stopped early: ${stopReason}`);
  check(scheduler.steps === shape.events, `plain workload ran ${scheduler.steps} of ${shape.events} events`);
  return { events: scheduler.steps, wallMs };
}

export async function timeAsync(shape: WorkloadShape, sql: SqlJsStatic): Promise<Timing> {
  const { population, processes } = shape;
  check(population % processes === 0, `--population ${population} must be a multiple of --processes ${processes}`);
  check(shape.events > population, 'the async workload needs more events than pending sleeps');
  const tasksPerProcess = population / processes;
  const delays = new DelayStream(shape.delaySeed, shape.delayMsMax);
  const sim = new Simulation({
    seed: 'bench',
    sql,
    keepTrace: false,
    stepsMax: shape.events,
    simTimeMsMax: Number.MAX_SAFE_INTEGER,
  });
  // Each loop's first event starts it (a main, or a task the main spawned); every later event resumes a sleep.
  const sleepsMax = shape.events - population;
  let sleeps = 0;
  const loop = async (ctx: ProcessContext): Promise<void> => {
    while (sleeps < sleepsMax) {
      sleeps++;
      await ctx.timers.sleep(delays.next());
    }
  };
  for (let i = 0; i < processes; i++) {
    sim.spawn(`p${i}`, (ctx) => {
      for (let task = 1; task < tasksPerProcess; task++) ctx.spawnTask(`loop${task}`, () => loop(ctx));
      return loop(ctx);
    });
  }
  const startMs = wallNowMs();
  const summary = await sim.run();
  const wallMs = wallNowMs() - startMs;
  sim.dispose();
  check(summary.stopReason === 'idle', `async workload stopped early: ${summary.stopReason}`);
  check(summary.crashes === 0, 'a benchmark process crashed');
  check(summary.steps === shape.events, `async workload ran ${summary.steps} of ${shape.events} events`);
  return { events: summary.steps, wallMs };
}

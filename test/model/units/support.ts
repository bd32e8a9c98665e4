// Helpers for the model's unit tests: run one part of the model inside a real Simulation, as the one process `unit`,
// so the part touches the clock, timers, disk and SQLite only through the ProcessContext the kernel hands it.
import type { SqlJsStatic } from 'sql.js';
import type { ProcessContext } from '../../../src/ports.ts';
import { Simulation } from '../../../sim/kernel/simulation.ts';
import type { TraceEvent } from '../../../sim/kernel/trace.ts';

export interface ProcessRun<T> {
  /** What `main` returned. */
  value: T;
  sim: Simulation;
}

export interface InProcessOptions {
  /** Called after the process is spawned and before the run: schedule kernel events, set fault knobs. */
  prepare?: (sim: Simulation) => void;
  simTimeMsMax?: number;
}

/**
 * Spawns `unit` running `main`, runs the simulation until it is idle, and returns main's result. A throw inside the
 * process (a failed expectation, a model assertion) fails the test with that error; a main that never finished
 * fails it too, so an expectation that was never reached cannot pass silently. SQLite engines are released before
 * returning; the disk and the trace stay readable.
 */
export async function inProcess<T>(
  sql: SqlJsStatic,
  seed: string,
  main: (ctx: ProcessContext, sim: Simulation) => Promise<T>,
  options: InProcessOptions = {},
): Promise<ProcessRun<T>> {
  const sim = new Simulation({ seed, sql, simTimeMsMax: options.simTimeMsMax ?? 10_000_000 });
  let outcome: { value: T } | undefined;
  sim.spawn('unit', async (ctx) => {
    outcome = { value: await main(ctx, sim) };
  });
  options.prepare?.(sim);
  try {
    const summary = await sim.run();
    const crash = sim.processes.crashes[0];
    if (crash !== undefined) throw crash.error;
    if (outcome === undefined) throw new Error(`main of unit did not finish (stop reason ${summary.stopReason})`);
    return { value: outcome.value, sim };
  } finally {
    sim.dispose();
  }
}

export function traceOf(sim: Simulation, kind: string): TraceEvent[] {
  return sim.trace.events.filter((event) => event.kind === kind);
}

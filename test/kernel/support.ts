// Small helpers shared by the kernel tests: building a simulation, reading the trace, and a process that does
// nothing (so tests can drive the kernel's primitives directly from kernel events with its incarnation).
import type { SqlJsStatic } from 'sql.js';
import type { ProcessMain } from '../../src/ports.ts';
import type { Incarnation } from '../../sim/process.ts';
import { Simulation } from '../../sim/simulation.ts';
import type { TraceEvent, TraceKind } from '../../sim/trace.ts';

export function makeSim(sql: SqlJsStatic, seed: string, simTimeMsMax = 10_000_000): Simulation {
  return new Simulation({ seed, sql, simTimeMsMax });
}

/** A process whose main returns at once; the incarnation stays alive until it is killed. */
export const idleMain: ProcessMain = async () => {};

/** The live incarnation of `name`; fails the test if it is not running. */
export function incarnationOf(sim: Simulation, name: string): Incarnation {
  const incarnation = sim.processes.current(name);
  if (incarnation === undefined) throw new Error(`process ${name} is not running`);
  return incarnation;
}

export function eventsOfKind(sim: Simulation, kind: TraceKind): TraceEvent[] {
  return sim.trace.events.filter((event) => event.kind === kind);
}

/** Numeric field of a trace event; fails loudly if it is missing. */
export function numberField(event: TraceEvent, field: string): number {
  const value = event.fields[field];
  if (typeof value !== 'number') throw new Error(`trace event ${event.kind} has no numeric field ${field}`);
  return value;
}

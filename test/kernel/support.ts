// Small helpers shared by the kernel tests: building a simulation, reading the trace, a process that does nothing
// (so tests can drive the kernel's primitives directly from kernel events with its incarnation), and a process that
// records every message it receives.
import type { SqlJsStatic } from 'sql.js';
import type { Delivery, ProcessContext, ProcessMain } from '../../src/ports.ts';
import type { Incarnation } from '../../sim/kernel/process.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import type { TraceEvent, TraceKind } from '../../sim/kernel/trace.ts';

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

/** One delivery as the receiving process saw it. */
export interface Received {
  from: string;
  to: string;
  payload: string;
  atMs: number;
  incarnation: number;
}

/** The record of `delivery`, received now by the process behind `ctx`. */
export function receivedBy(ctx: ProcessContext, delivery: Delivery): Received {
  return {
    from: delivery.from,
    to: ctx.name,
    payload: String(delivery.payload),
    atMs: ctx.clock.nowMs(),
    incarnation: ctx.incarnation,
  };
}

export interface RecordingReceiverOptions {
  /**
   * Asked after each delivery is logged; the delivery is acknowledged when it returns true. Without it nothing is
   * acknowledged and the receiver makes no random draw.
   */
  ack?: (received: Received, ctx: ProcessContext) => boolean;
}

/** A process that receives forever and appends every delivery to `log`. */
export function recordingReceiver(log: Received[], options: RecordingReceiverOptions = {}): ProcessMain {
  const { ack } = options;
  return async (ctx) => {
    for (;;) {
      const delivery = await ctx.net.receive();
      const received = receivedBy(ctx, delivery);
      log.push(received);
      if (ack?.(received, ctx) === true) delivery.ack();
    }
  };
}

/** Spawns an idle sender `a`, then a recording receiver `b`; returns the log `b` appends to. */
export function spawnSenderAndReceiver(sim: Simulation, options?: RecordingReceiverOptions): Received[] {
  const log: Received[] = [];
  sim.spawn('a', idleMain);
  sim.spawn('b', recordingReceiver(log, options));
  return log;
}

/** Send from the live incarnation of `from` at `atMs`, as a kernel event; fails the run if `from` is not running. */
export function sendAt(sim: Simulation, atMs: number, from: string, to: string, payload: string): void {
  sim.at(atMs, () => sim.network.send(incarnationOf(sim, from), to, payload));
}

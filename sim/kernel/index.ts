// The kernel's public surface. One curated list; nothing else is exported.
export { AssertionError, assert } from './assert.ts';
export { SimClock } from './clock.ts';
export { defaultDiskFaults, type DiskFaults, SimDisk } from './disk.ts';
export { defaultLinkConfig, type LinkConfig, SimNetwork } from './network.ts';
export { Incarnation, ProcessTable } from './process.ts';
export { Prng } from './prng.ts';
export { Scheduler, type SchedulerLimits, type StopReason, settleQuietHopsDefault } from './scheduler.ts';
export { type RunSummary, Simulation, type SimulationOptions } from './simulation.ts';
export { defaultSqliteFaults, loadSqlJs, SimSqlite, type SqliteFaults } from './sqlite.ts';
export {
  describeDivergence,
  type Divergence,
  firstDivergence,
  serialiseEvent,
  Trace,
  type TraceEvent,
  type TraceFields,
  type TraceKind,
} from './trace.ts';

// How the trace viewer reads a trace: which swimlane each event belongs to, which events are faults (and what to call
// them), which are kernel noise to be collapsed, a one-line description of each, and the time axis. The axis is
// simulated time with long idle gaps cut short (a 2-hour quiet stretch would otherwise squeeze the interesting
// second into one pixel); each cut is drawn as a break labelled with the time it hides.
import type { TraceEvent } from '../kernel/trace.ts';
import { ReorderDetector } from '../run/coverage.ts';
import { assert } from '../kernel/assert.ts';

export const lanes = [
  { id: 'faults', label: 'faults (all)' },
  { id: 'user', label: 'user & platform' },
  { id: 'gateway', label: 'gateway' },
  { id: 'runner', label: 'runner' },
  { id: 'tool-server', label: 'tool server' },
  { id: 'node-host', label: 'node host' },
  { id: 'network', label: 'network' },
  { id: 'disk', label: 'disk' },
  { id: 'databases', label: 'databases' },
  { id: 'other', label: 'other' },
] as const;
export type LaneId = (typeof lanes)[number]['id'];

const laneOfNote: Record<string, LaneId> = {
  'user-says': 'user',
  visible: 'user',
  'platform-duplicate-key': 'user',
  'inbound-abandoned': 'user',
  'gateway-ready': 'gateway',
  ingest: 'gateway',
  'inbound-unknown-session': 'gateway',
  'system-event': 'gateway',
  'exec-ingest': 'gateway',
  'exec-duplicate-dropped': 'gateway',
  'heartbeat-skip': 'gateway',
  'sweep-kill': 'gateway',
  'deliver-attempt': 'gateway',
  delivered: 'gateway',
  'runner-ready': 'runner',
  'turn-start': 'runner',
  'turn-retry': 'runner',
  'turn-transient': 'runner',
  'turn-completed': 'runner',
  'prompt-persisted': 'runner',
  'orphan-repair': 'runner',
  'history-repair': 'runner',
  'transcript-repaired': 'runner',
  merge: 'runner',
  'model-call': 'runner',
  answer: 'runner',
  'tool-call': 'runner',
  'tool-call-retry': 'runner',
  'tool-call-expired': 'runner',
  'tool-call-abandoned': 'runner',
  result: 'runner',
  flush: 'runner',
  'agent-evicted': 'runner',
  'tool-sent': 'tool-server',
  'tool-busy': 'tool-server',
  'tool-refused': 'tool-server',
  'tool-fenced': 'tool-server',
  'tool-event': 'tool-server',
  'node-ready': 'node-host',
  'exec-run': 'node-host',
};

const laneOfProcess: Record<string, LaneId> = {
  platform: 'user',
  gateway: 'gateway',
  runner: 'runner',
  'tool-server': 'tool-server',
  'node-host': 'node-host',
};

/** Kernel bookkeeping shown only as density, never one by one (unless it is the violation's step). */
const noiseKinds = new Set(['net.send', 'net.deliver', 'net.reconnect', 'disk.write', 'disk.append', 'disk.sync', 'disk.rename', 'disk.remove', 'sql.write', 'proc.spawn']);

export function laneOf(event: TraceEvent): LaneId {
  const kind = event.kind;
  const fields = event.fields;
  if (kind.startsWith('model.')) {
    const note = kind.slice('model.'.length);
    if (note === 'task-failed') return laneOfProcess[String(fields.process)] ?? 'other';
    return laneOfNote[note] ?? 'other';
  }
  if (kind.startsWith('proc.')) return laneOfProcess[String(fields.name)] ?? 'other';
  if (kind.startsWith('net.')) return 'network';
  if (kind.startsWith('disk.')) return 'disk';
  if (kind.startsWith('sql.')) return 'databases';
  if (kind === 'fault') {
    if (fields.kind === 'supervisor-kill') return laneOfProcess[String(fields.target)] ?? 'other';
    if (fields.kind === 'config-bump') return 'gateway';
    return 'faults';
  }
  return 'other';
}

/**
 * Labels faults as they landed. Stateful because a reorder is only visible against the deliveries before it (the
 * coverage report's ReorderDetector: a delivery overtaken on its link, not counting resends after a reconnect).
 */
export class FaultLabeller {
  private readonly reorders = new ReorderDetector();

  label(event: TraceEvent): string | undefined {
    const f = event.fields;
    switch (event.kind) {
      case 'fault':
        if (f.kind === 'supervisor-kill') return `supervisor kills ${String(f.target)}`;
        if (f.kind === 'fault-phase-end') return 'fault phase ends';
        return String(f.kind);
      case 'proc.kill':
        return `SIGKILL ${String(f.name)}`;
      case 'net.drop':
        return f.reason === 'fault' ? 'message dropped' : `message dropped (${String(f.reason)})`;
      case 'net.duplicate':
        return `duplicate ${String(f.from)} → ${String(f.to)}`;
      case 'net.reset':
      case 'net.partition':
      case 'net.hold':
        return `${event.kind.slice(4)} ${String(f.a)} ↔ ${String(f.b)}`;
      case 'disk.crash':
        return Number(f.tornBytes) > 0 ? `torn append (${String(f.tornBytes)} bytes)` : 'unsynced writes lost';
      case 'disk.sync':
        return f.reason === 'writeback' ? 'background writeback' : undefined;
      case 'sql.busy':
        return 'database is locked';
      case 'net.resend':
        this.reorders.resent(event);
        return undefined;
      case 'net.deliver':
        return this.reorders.reordered(event) ? 'reordered delivery' : undefined;
      default:
        return undefined;
    }
  }
}

export function isNoise(event: TraceEvent, faultLabel: string | undefined): boolean {
  return faultLabel === undefined && noiseKinds.has(event.kind);
}

/** One line for the log and the marks' tooltips; run text is quoted as JSON so whitespace and quotes stay visible. */
export function describeEvent(event: TraceEvent): string {
  const f = event.fields;
  const q = (value: unknown): string => JSON.stringify(value);
  switch (event.kind) {
    case 'model.user-says':
      return `user says ${q(f.text)} (delivery ${String(f.delivery)})`;
    case 'model.visible':
      return `user sees ${q(f.text)} (${String(f.kind)}, key ${String(f.key)})`;
    case 'model.ingest':
      return `ingest ${String(f.delivery)} as ${String(f.row)} (${Number(f.inserted) > 0 ? 'new' : 'already known'})`;
    case 'model.turn-start':
      return `turn ${String(f.turn)} starts (attempt ${String(f.attempt)})`;
    case 'model.tool-call':
      return `${String(f.tool)}(${q(f.text)}) in ${String(f.turn)}`;
    case 'model.result':
      return `result of ${String(f.turn)}: blocks ${String(f.blocks)}, dispatched ${String(f.kept)}`;
    case 'model.flush':
      return `state.db flush for ${String(f.turn)}: ${String(f.written)} rows from index ${String(f.from)}`;
    case 'proc.restart':
      return `restart ${String(f.name)} (incarnation ${String(f.incarnation)})`;
    default:
      return `${event.kind} ${fieldsText(f)}`;
  }
}

export function fieldsText(fields: TraceEvent['fields']): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? JSON.stringify(value) : String(value)}`)
    .join(' ');
}

/** Idle stretches longer than the cap (this, or a twentieth of the run if longer) are cut to it, with a break mark. */
const gapCapMsMin = 2_000;
const gapCapShareOfRun = 20;

export interface TimeAxis {
  /** Position of a simulated time on the axis, in percent of its width. */
  percent(timeMs: number): number;
  breaks: { percent: number; hiddenMs: number }[];
  ticks: { percent: number; timeMs: number }[];
}

export function timeAxis(events: readonly TraceEvent[], endMs: number): TimeAxis {
  const gapCapMs = Math.max(gapCapMsMin, Math.floor(endMs / gapCapShareOfRun));
  const times: number[] = [0];
  const compressed: number[] = [0];
  const breaks: { at: number; hiddenMs: number }[] = [];
  const add = (timeMs: number): void => {
    const last = times[times.length - 1] ?? 0;
    if (timeMs <= last) return;
    const gapMs = timeMs - last;
    const base = compressed[compressed.length - 1] ?? 0;
    if (gapMs > gapCapMs) breaks.push({ at: base + gapCapMs / 2, hiddenMs: gapMs - gapCapMs });
    times.push(timeMs);
    compressed.push(base + Math.min(gapMs, gapCapMs));
  };
  for (const event of events) add(event.timeMs);
  add(endMs);
  const total = Math.max(compressed[compressed.length - 1] ?? 0, 1);
  const percent = (timeMs: number): number => (100 * compressedAt(times, compressed, timeMs)) / total;
  const ticks = Array.from({ length: 11 }, (_, index) => {
    const target = (total * index) / 10;
    return { percent: (100 * index) / 10, timeMs: timeAtCompressed(times, compressed, target) };
  });
  assert(times.length === compressed.length, 'axis arrays');
  return { percent, breaks: breaks.map((cut) => ({ percent: (100 * cut.at) / total, hiddenMs: cut.hiddenMs })), ticks };
}

/** Last index with values[index] <= target (values ascending, values[0] <= target). */
function floorIndex(values: readonly number[], target: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((values[mid] ?? 0) <= target) low = mid;
    else high = mid - 1;
  }
  return low;
}

function compressedAt(times: readonly number[], compressed: readonly number[], timeMs: number): number {
  const index = floorIndex(times, timeMs);
  const base = compressed[index] ?? 0;
  const next = compressed[index + 1];
  const nextTime = times[index + 1];
  const offset = timeMs - (times[index] ?? 0);
  if (next === undefined || nextTime === undefined) return base;
  return base + Math.min(offset, next - base);
}

/** The simulated time at a point of the axis; inside a cut gap, the half after the break counts back from its end. */
function timeAtCompressed(times: readonly number[], compressed: readonly number[], target: number): number {
  const index = floorIndex(compressed, target);
  const startMs = times[index] ?? 0;
  const base = compressed[index] ?? 0;
  const endMs = times[index + 1];
  const next = compressed[index + 1];
  if (endMs === undefined || next === undefined) return startMs;
  const isCut = endMs - startMs > next - base;
  if (isCut && target - base > (next - base) / 2) return endMs - (next - target);
  return startMs + (target - base);
}

export function formatTimeMs(ms: number): string {
  if (ms < 1_000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(2)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1_000)).padStart(2, '0')}s`;
  return `${Math.floor(ms / 3_600_000)}h${String(Math.floor((ms % 3_600_000) / 60_000)).padStart(2, '0')}m`;
}

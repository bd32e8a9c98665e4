// The trace: every notable thing a run does, as typed events stamped with simulated time. Each event has one
// canonical serialisation (`<timeMs> <kind> <json of fields in insertion order>`); the serialisations are folded
// into a rolling 64-bit FNV-1a hash, the run's `traceHash`. Two runs of the same seed string must produce the same
// hash on every process and machine; when they do not, `firstDivergence` names the first event that differs.
import { assert } from './assert.ts';

export type TraceValue = string | number | boolean | null;
export type TraceFields = Record<string, TraceValue>;

/** Kernel event kinds; the model's own steps are `model.<name>`. */
export type KernelTraceKind =
  | 'net.send'
  | 'net.deliver'
  | 'net.drop'
  | 'net.duplicate'
  | 'net.reset'
  | 'net.reconnect'
  | 'net.resend'
  | 'net.partition'
  | 'net.heal'
  | 'net.hold'
  | 'net.release'
  | 'disk.write'
  | 'disk.append'
  | 'disk.rename'
  | 'disk.remove'
  | 'disk.sync'
  /** A stalled fsync (issue 48 item 4) returned, its data synced; a killed writer's never ends. */
  | 'disk.stall-end'
  | 'disk.crash'
  | 'sql.write'
  | 'sql.busy'
  /** A stalled write (issue 48 item 4) ended: its work applied (`landed`) or failed; a killed writer's never ends. */
  | 'sql.stall-end'
  | 'proc.spawn'
  | 'proc.kill'
  | 'proc.stop'
  | 'proc.cont'
  | 'proc.restart'
  /** A restarted incarnation's start-up (issue 24 item 6) is over and its main runs. */
  | 'proc.ready'
  | 'proc.exit'
  | 'fault';

export type TraceKind = KernelTraceKind | `model.${string}` | `check.${string}`;

/**
 * One typed event of a run, at a simulated time; the canonical serialisation of all of them is hashed into
 * traceHash.
 */
export interface TraceEvent {
  index: number;
  timeMs: number;
  kind: TraceKind;
  fields: TraceFields;
}

const FNV_PRIME_LOW = 0x1b3;
const FNV_OFFSET_HIGH = 0xcbf29ce4;
const FNV_OFFSET_LOW = 0x84222325;

export function serialiseEvent(event: Pick<TraceEvent, 'timeMs' | 'kind' | 'fields'>): string {
  return `${event.timeMs} ${event.kind} ${JSON.stringify(event.fields)}`;
}

export class Trace {
  readonly events: TraceEvent[] = [];
  private count = 0;
  // 64-bit FNV-1a state as two 32-bit halves.
  private high = FNV_OFFSET_HIGH;
  private low = FNV_OFFSET_LOW;
  private listeners: ((event: TraceEvent) => void)[] = [];
  /** Kept events folded into the hash so far. */
  private hashed = 0;

  constructor(
    private readonly nowMs: () => number,
    /** Keep events in memory (for reports, divergence and the checkers); the hash is kept either way. */
    readonly keepEvents = true,
  ) {}

  get length(): number {
    return this.count;
  }

  onEvent(listener: (event: TraceEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Record one event; `fields` must not change afterwards (the kept events are hashed when the hash is read). */
  record(kind: TraceKind, fields: TraceFields): TraceEvent {
    const event: TraceEvent = { index: this.count++, timeMs: this.nowMs(), kind, fields };
    if (this.keepEvents) this.events.push(event);
    else this.hashEvent(event);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  /**
   * 16 hex digits. With the events kept, they are folded in when the hash is first asked for (a campaign's passing
   * runs never ask): the same characters in the same order, so the same hash.
   */
  get hash(): string {
    if (this.keepEvents) for (; this.hashed < this.events.length; this.hashed++) this.hashEvent(this.events[this.hashed] as TraceEvent);
    return hex32(this.high) + hex32(this.low);
  }

  /** serialiseEvent(event) + '\n', folded piece by piece, without building the concatenated string. */
  private hashEvent(event: TraceEvent): void {
    this.fold(String(event.timeMs));
    this.fold(' ');
    this.fold(event.kind);
    this.fold(' ');
    this.fold(JSON.stringify(event.fields));
    this.fold('\n');
  }

  private fold(text: string): void {
    let high = this.high;
    let low = this.low;
    for (let i = 0; i < text.length; i++) {
      low ^= text.charCodeAt(i);
      // (high:low) * 0x100000001b3 mod 2^64, in 32-bit pieces.
      const lowProduct = Math.imul(low & 0xffff, FNV_PRIME_LOW);
      const lowProductHigh = Math.imul(low >>> 16, FNV_PRIME_LOW) + (lowProduct >>> 16);
      const newLow = ((lowProductHigh & 0xffff) << 16) | (lowProduct & 0xffff);
      const carry = lowProductHigh >>> 16;
      high = (Math.imul(high, FNV_PRIME_LOW) + (low << 8) + carry) | 0;
      low = newLow;
    }
    this.high = high >>> 0;
    this.low = low >>> 0;
  }
}

function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

export interface Divergence {
  index: number;
  left: string | undefined;
  right: string | undefined;
}

/** The first event at which two traces differ, or undefined if they are identical. */
export function firstDivergence(
  left: readonly Pick<TraceEvent, 'timeMs' | 'kind' | 'fields'>[],
  right: readonly Pick<TraceEvent, 'timeMs' | 'kind' | 'fields'>[],
): Divergence | undefined {
  const n = Math.max(left.length, right.length);
  for (let i = 0; i < n; i++) {
    const a = left[i];
    const b = right[i];
    const sa = a === undefined ? undefined : serialiseEvent(a);
    const sb = b === undefined ? undefined : serialiseEvent(b);
    if (sa !== sb) return { index: i, left: sa, right: sb };
  }
  return undefined;
}

export function describeDivergence(divergence: Divergence): string {
  assert(divergence.index >= 0, 'divergence index');
  return [
    `traces diverge at event #${divergence.index}`,
    `  first:  ${divergence.left ?? '(trace ended)'}`,
    `  second: ${divergence.right ?? '(trace ended)'}`,
  ].join('\n');
}

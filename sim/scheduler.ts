// The scheduler: a binary min-heap of events ordered by (timeMs, sequence). Sequence numbers are unique, so no two
// events tie and events due at the same instant fire in insertion order. Keys live in typed arrays indexed by slot;
// callbacks live in a parallel array. Every event has an owner: 0 is the kernel, any other number is a process
// incarnation, and an event whose owner has been killed is skipped (fenced) instead of run.
//
// Promise continuations. Model code is ordinary async TypeScript: it awaits kernel primitives, which the kernel
// resolves from inside an event. A resolved primitive's continuation runs as a microtask, in JavaScript's
// deterministic microtask order. After an event that resumed at least one continuation, `run()` settles: it hops
// through the microtask queue (`await null`) until `settleQuietHopsMin` consecutive hops pass without any kernel
// activity (a primitive call, a trace note, a resolution). So a continuation chain runs to its next primitive call
// at the simulated instant of the event that resumed it, before the next event is popped. Events that resumed
// nothing (plain callbacks) run back to back with no hop at all. A continuation that computes for more than
// `settleQuietHopsMin` microtask hops without touching the kernel still runs deterministically (microtask order is
// specified by ECMAScript), only possibly after a later event; nothing in the model does that.
import { assert, assertNonNegativeInteger } from './assert.ts';
import type { SimClock } from './clock.ts';

export type EventCallback = () => void;

export interface SchedulerLimits {
  stepsMax: number;
  simTimeMsMax: number;
}

export type StopReason = 'idle' | 'steps-cap' | 'time-cap' | 'stopped';

/** Tells the scheduler whether an owner (a process incarnation) may still run. */
export interface Fence {
  isAlive(owner: number): boolean;
}

const INITIAL_CAPACITY = 1024;
export const settleQuietHopsMin = 4;

export class Scheduler {
  private heap = new Int32Array(INITIAL_CAPACITY);
  private slotTime = new Float64Array(INITIAL_CAPACITY);
  private slotSeq = new Float64Array(INITIAL_CAPACITY);
  private slotOwner = new Int32Array(INITIAL_CAPACITY);
  private slotFn: (EventCallback | undefined)[] = [];
  private freeSlots: number[] = [];
  private slotCount = 0;
  private size = 0;
  private sequence = 0;
  private stopRequested = false;

  steps = 0;
  fencedSteps = 0;
  /** Bumped by every kernel primitive call, trace note and resolution; settle() watches it. */
  activity = 0;
  /** Continuations resumed by the current event; run() settles when it is non-zero. */
  resumed = 0;
  stopReason: StopReason | undefined;

  constructor(
    readonly clock: SimClock,
    readonly limits: SchedulerLimits,
    private readonly fence: Fence,
  ) {
    assertNonNegativeInteger(limits.stepsMax, 'stepsMax');
    assertNonNegativeInteger(limits.simTimeMsMax, 'simTimeMsMax');
  }

  get pending(): number {
    return this.size;
  }

  /** Schedule `fn` at now + delayMs on behalf of `owner`. Returns the event's sequence number. */
  schedule(delayMs: number, fn: EventCallback, owner = 0): number {
    assertNonNegativeInteger(delayMs, 'delayMs');
    return this.scheduleAt(this.clock.nowMs() + delayMs, fn, owner);
  }

  scheduleAt(timeMs: number, fn: EventCallback, owner = 0): number {
    assertNonNegativeInteger(timeMs, 'event time');
    assert(timeMs >= this.clock.nowMs(), 'an event cannot be scheduled in the past');
    const slot = this.allocateSlot();
    const seq = this.sequence++;
    this.slotTime[slot] = timeMs;
    this.slotSeq[slot] = seq;
    this.slotOwner[slot] = owner;
    this.slotFn[slot] = fn;
    this.push(slot);
    return seq;
  }

  /** Time of the next event, or undefined if there is none. */
  peekTimeMs(): number | undefined {
    if (this.size === 0) return undefined;
    return this.slotTime[this.heap[0] as number];
  }

  stop(): void {
    this.stopRequested = true;
  }

  /**
   * Pop and run one event without settling continuations. Returns false when the run must stop (idle, a cap, or
   * stop()); `stopReason` says why.
   */
  stepSync(): boolean {
    if (this.stopRequested) return this.halt('stopped');
    if (this.size === 0) return this.halt('idle');
    if (this.steps >= this.limits.stepsMax) return this.halt('steps-cap');
    const slot = this.heap[0] as number;
    const timeMs = this.slotTime[slot] as number;
    if (timeMs > this.limits.simTimeMsMax) return this.halt('time-cap');
    this.pop();
    const fn = this.slotFn[slot] as EventCallback;
    const owner = this.slotOwner[slot] as number;
    this.slotFn[slot] = undefined;
    this.freeSlots.push(slot);
    this.clock.advanceTo(timeMs);
    this.steps++;
    if (owner !== 0 && !this.fence.isAlive(owner)) {
      this.fencedSteps++;
      return true;
    }
    fn();
    return true;
  }

  /** One event, then its continuations settle. */
  async step(): Promise<boolean> {
    const more = this.stepSync();
    if (this.resumed > 0) {
      this.resumed = 0;
      await this.settle();
    }
    return more;
  }

  /** Loop step() until idle, a cap, or stop(). */
  async run(): Promise<StopReason> {
    this.stopReason = undefined;
    for (;;) {
      const more = this.stepSync();
      if (this.resumed > 0) {
        this.resumed = 0;
        await this.settle();
      }
      if (!more) return this.lastStopReason();
    }
  }

  /** Hop the microtask queue until it has been quiet for settleQuietHopsMin hops. */
  async settle(): Promise<void> {
    let quiet = 0;
    let hops = 0;
    while (quiet < settleQuietHopsMin) {
      const before = this.activity;
      await null;
      hops++;
      assert(hops < 1_000_000, 'settle: continuations did not quiesce within a million microtask hops');
      quiet = this.activity === before ? quiet + 1 : 0;
    }
    this.resumed = 0;
  }

  lastStopReason(): StopReason {
    return this.stopReason ?? 'idle';
  }

  private halt(reason: StopReason): false {
    this.stopReason = reason;
    this.stopRequested = false;
    return false;
  }

  private allocateSlot(): number {
    const reused = this.freeSlots.pop();
    if (reused !== undefined) return reused;
    const slot = this.slotCount++;
    if (slot >= this.slotTime.length) this.grow();
    return slot;
  }

  private grow(): void {
    const capacity = this.slotTime.length * 2;
    const time = new Float64Array(capacity);
    time.set(this.slotTime);
    this.slotTime = time;
    const seq = new Float64Array(capacity);
    seq.set(this.slotSeq);
    this.slotSeq = seq;
    const owner = new Int32Array(capacity);
    owner.set(this.slotOwner);
    this.slotOwner = owner;
    const heap = new Int32Array(capacity);
    heap.set(this.heap);
    this.heap = heap;
  }

  private less(a: number, b: number): boolean {
    const ta = this.slotTime[a] as number;
    const tb = this.slotTime[b] as number;
    if (ta !== tb) return ta < tb;
    return (this.slotSeq[a] as number) < (this.slotSeq[b] as number);
  }

  private push(slot: number): void {
    const heap = this.heap;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as number;
      if (!this.less(slot, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = slot;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap[--this.size] as number;
    const n = this.size;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.less(heap[right] as number, heap[left] as number)) child = right;
      if (!this.less(heap[child] as number, last)) break;
      heap[i] = heap[child] as number;
      i = child;
    }
    heap[i] = last;
  }
}

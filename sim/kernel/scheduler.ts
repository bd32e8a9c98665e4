// The scheduler: a binary min-heap of events ordered by (timeMs, sequence). Sequence numbers are unique, so no two
// events tie and events due at the same instant fire in insertion order. The keys live inline, in heap order, in
// typed arrays beside each event's slot; an event's owner and callback live in per-slot arrays. Every event has an
// owner: 0 is the kernel, any other number is a process incarnation, and an event whose owner has been killed is
// skipped (fenced) instead of run.
//
// Promise continuations. Model code is ordinary async TypeScript: it awaits kernel primitives, which the kernel
// resolves from inside an event (a wake event: a resolution, a timer callback, a task start). A resolved primitive's
// continuation runs as a microtask, in JavaScript's deterministic microtask order. After an event that resumed at
// least one continuation, `run()` settles: it hops through the microtask queue (each hop one microtask: a `then` on
// an already-resolved promise in run(), an `await null` in settle()) until `settleQuietHops` consecutive hops pass
// without any kernel activity (a primitive call, a trace note, a resolution). So a continuation chain runs to its
// next primitive call at the simulated instant of the event that resumed it, before the next event is popped, as
// long as it never spends more than settleQuietHops - 1 consecutive microtask hops (returns through nested async
// functions, awaits of already-settled promises) without touching the kernel. The default, 8, is twice what the
// model needs: test/zoo/settle-depth-suffices.test.ts checks that the model's traces do not change when it is
// raised to 64. Events that resumed nothing (plain callbacks) run back to back with no hop at all. A chain deeper
// than that still runs deterministically (microtask order is specified by ECMAScript), only after a later event.
// A real component's code can run far longer chains without touching the kernel (a release scanning a transcript line
// by line through async generators: several hops a line, hundreds of lines a chunk read). While a caller holds the
// settle (holdSettle, sim/real's mirror append around each call into the release), a settle waits for
// settleQuietHopsHeld quiet hops instead (1,024: a held settle costs about 0.1 ms), so such a chain runs at the instant
// that resumed it, or goes on at its holder's next event; a hold whose holder died no longer counts. Nothing else
// changes: a run that never holds the settle settles exactly as before.
import { assert, assertNonNegativeInteger, fail } from './assert.ts';
import type { SimClock } from './clock.ts';

export type EventCallback = () => void;

export interface SchedulerLimits {
  stepsMax: number;
  simTimeMsMax: number;
  /** Quiet microtask hops that end a settle; default settleQuietHopsDefault. */
  settleQuietHops?: number;
}

export type StopReason = 'idle' | 'steps-cap' | 'time-cap' | 'stopped';

/** What an owner (a process incarnation) may do now: run, nothing ever again (killed), or wait (SIGSTOP). */
export type OwnerState = 'running' | 'dead' | 'stopped';

/** Tells the scheduler whether an owner may still run, and keeps what a stopped owner would run. */
export interface Fence {
  state(owner: number): OwnerState;
  /** Keep `resume` until the stopped `owner` continues. */
  defer(owner: number, resume: () => void): void;
}

const INITIAL_CAPACITY = 1024;
/** What a dead owner's event holds once released (releaseOwner): never called, since the event is fenced. */
const fenced: EventCallback = () => fail('the event of a dead owner ran');
/** Default number of quiet microtask hops that end a settle (see above): 12, since block streaming (src/block-stream.ts) has continuation chains of 9-10 hops (chaos seed 301: the trace at 8 hops differed from 10 and 64; test/zoo/settle-depth-suffices.test.ts). */
export const settleQuietHopsDefault = 12;
const settleHopsMax = 1_000_000;
/** Quiet microtask hops that end a settle while some live holder holds it (holdSettle). */
export const settleQuietHopsHeld = 1_024;

export class Scheduler {
  // The heap, in heap order: each entry's key inline (so sifting never chases an index) and its slot.
  private heapTime = new Float64Array(INITIAL_CAPACITY);
  private heapSeq = new Float64Array(INITIAL_CAPACITY);
  private heapSlot = new Int32Array(INITIAL_CAPACITY);
  // Per slot: what an entry carries besides its key. A slot is free from its event's pop to its next reuse.
  private slotOwner = new Int32Array(INITIAL_CAPACITY);
  /** 1 for an event that resumes a continuation (scheduleWake), 0 for a plain callback. */
  private slotWake = new Uint8Array(INITIAL_CAPACITY);
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
    this.settleQuietHops = limits.settleQuietHops ?? settleQuietHopsDefault;
    assert(this.settleQuietHops >= 1, 'settleQuietHops must be at least 1');
  }

  private readonly settleQuietHops: number;
  /** The live checks of those who hold the settle (holdSettle), each until it lets go. */
  private readonly settleHolders = new Set<() => boolean>();

  /**
   * Hold the settle: until the returned function is called (or `alive` turns false), a settle ends only after
   * settleQuietHopsHeld quiet hops. For a caller about to run a long pure-promise chain (header).
   */
  holdSettle(alive: () => boolean): () => void {
    const holder = () => alive();
    this.settleHolders.add(holder);
    let held = true;
    return () => {
      assert(held, 'a settle hold is let go once');
      held = false;
      this.settleHolders.delete(holder);
    };
  }

  /** The quiet hops that end a settle now: more while a live holder holds it. */
  private quietHopsNow(): number {
    if (this.settleHolders.size === 0) return this.settleQuietHops;
    for (const holder of this.settleHolders) if (!holder()) this.settleHolders.delete(holder);
    return this.settleHolders.size === 0 ? this.settleQuietHops : Math.max(this.settleQuietHops, settleQuietHopsHeld);
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
    return this.insert(timeMs, fn, owner, 0);
  }

  /**
   * Schedule `wake` (a promise's resolve function) at now + delayMs on behalf of `owner`. When the event runs, the
   * scheduler counts a resumption and kernel activity before calling it, so the continuation it resumes settles.
   */
  scheduleWake(delayMs: number, wake: EventCallback, owner: number): number {
    assertNonNegativeInteger(delayMs, 'delayMs');
    return this.insert(this.clock.nowMs() + delayMs, wake, owner, 1);
  }

  private insert(timeMs: number, fn: EventCallback, owner: number, wake: number): number {
    assertNonNegativeInteger(timeMs, 'event time');
    assert(timeMs >= this.clock.nowMs(), 'an event cannot be scheduled in the past');
    const slot = this.allocateSlot();
    const seq = this.sequence++;
    this.slotOwner[slot] = owner;
    this.slotWake[slot] = wake;
    if (this.slotFn[slot] !== undefined) fail(`event slot ${slot} allocated while in use`);
    this.slotFn[slot] = fn;
    this.push(timeMs, seq, slot);
    return seq;
  }

  /**
   * Let go of what the events of a dead `owner` would have run: each stays in the queue, popped at its time and
   * fenced as before (the same steps, the same clock), but its callback, which may hold the whole state of the dead
   * incarnation (a real release's module state, about 60 to 90 MB an incarnation), is dropped now instead of then.
   * A run's dead incarnations were kept until their last timers fell due (issue 46: a 2026.7.1 chaos run held six).
   */
  releaseOwner(owner: number): void {
    if (owner === 0 || this.fence.state(owner) !== 'dead') return;
    for (let slot = 0; slot < this.slotCount; slot++) if (this.slotOwner[slot] === owner && this.slotFn[slot] !== undefined) this.slotFn[slot] = fenced;
  }

  /** Time of the next event, or undefined if there is none. */
  peekTimeMs(): number | undefined {
    if (this.size === 0) return undefined;
    return this.heapTime[0];
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
    const timeMs = this.heapTime[0] as number;
    if (timeMs > this.limits.simTimeMsMax) return this.halt('time-cap');
    const slot = this.heapSlot[0] as number;
    this.pop();
    const fn = this.slotFn[slot];
    if (fn === undefined) fail(`event slot ${slot} popped twice`);
    const owner = this.slotOwner[slot] as number;
    this.slotFn[slot] = undefined;
    this.freeSlots.push(slot);
    this.clock.advanceTo(timeMs);
    this.steps++;
    const wake = this.slotWake[slot] === 1;
    if (owner !== 0) {
      const state = this.fence.state(owner);
      if (state === 'dead') {
        this.fencedSteps++;
        return true;
      }
      if (state === 'stopped') {
        this.fence.defer(owner, () => this.resume(fn, wake));
        return true;
      }
    }
    this.resume(fn, wake);
    return true;
  }

  private resume(fn: EventCallback, wake: boolean): void {
    if (wake) {
      this.resumed++;
      this.activity++;
    }
    fn();
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

  /**
   * Loop step() until idle, a cap, or stop(). The same rule as step() then settle(), without an async frame per
   * event: settling is a chain of `then` hops on one resolved promise, and the next event is popped straight from
   * the last quiet hop.
   */
  run(): Promise<StopReason> {
    this.stopReason = undefined;
    return new Promise<StopReason>((resolve, reject) => {
      const resolved = Promise.resolve();
      let more = true;
      let quiet = 0;
      let hops = 0;
      let before = 0;
      const loop = (): void => {
        for (;;) {
          more = this.stepSync();
          if (this.resumed > 0) {
            quiet = 0;
            hops = 0;
            before = this.activity;
            void resolved.then(hop);
            return;
          }
          if (!more) {
            resolve(this.lastStopReason());
            return;
          }
        }
      };
      const hop = (): void => {
        try {
          hops++;
          assert(hops < settleHopsMax, 'settle: continuations did not quiesce within a million microtask hops');
          quiet = this.activity === before ? quiet + 1 : 0;
          if (quiet < this.quietHopsNow()) {
            before = this.activity;
            void resolved.then(hop);
            return;
          }
          this.resumed = 0;
          if (more) {
            loop();
            return;
          }
          resolve(this.lastStopReason());
        } catch (error) {
          reject(error);
        }
      };
      try {
        loop();
      } catch (error) {
        reject(error);
      }
    });
  }

  /** Hop the microtask queue until it has been quiet for settleQuietHops hops. */
  async settle(): Promise<void> {
    let quiet = 0;
    let hops = 0;
    while (quiet < this.quietHopsNow()) {
      const before = this.activity;
      await null;
      hops++;
      assert(hops < settleHopsMax, 'settle: continuations did not quiesce within a million microtask hops');
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
    if (slot >= this.heapSlot.length) this.grow();
    return slot;
  }

  private grow(): void {
    const capacity = this.heapSlot.length * 2;
    this.heapTime = widen(this.heapTime, new Float64Array(capacity));
    this.heapSeq = widen(this.heapSeq, new Float64Array(capacity));
    this.heapSlot = widen(this.heapSlot, new Int32Array(capacity));
    this.slotOwner = widen(this.slotOwner, new Int32Array(capacity));
    this.slotWake = widen(this.slotWake, new Uint8Array(capacity));
  }

  /** Sift a new entry up from the end. */
  private push(timeMs: number, seq: number, slot: number): void {
    const heapTime = this.heapTime;
    const heapSeq = this.heapSeq;
    const heapSlot = this.heapSlot;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const parentTime = heapTime[parent] as number;
      if (parentTime < timeMs || (parentTime === timeMs && (heapSeq[parent] as number) < seq)) break;
      heapTime[i] = parentTime;
      heapSeq[i] = heapSeq[parent] as number;
      heapSlot[i] = heapSlot[parent] as number;
      i = parent;
    }
    heapTime[i] = timeMs;
    heapSeq[i] = seq;
    heapSlot[i] = slot;
  }

  /** Remove the root: sift the last entry down from the top. */
  private pop(): void {
    const heapTime = this.heapTime;
    const heapSeq = this.heapSeq;
    const heapSlot = this.heapSlot;
    const n = --this.size;
    const lastTime = heapTime[n] as number;
    const lastSeq = heapSeq[n] as number;
    const lastSlot = heapSlot[n] as number;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let childTime = heapTime[child] as number;
      let childSeq = heapSeq[child] as number;
      const right = child + 1;
      if (right < n) {
        const rightTime = heapTime[right] as number;
        const rightSeq = heapSeq[right] as number;
        if (rightTime < childTime || (rightTime === childTime && rightSeq < childSeq)) {
          child = right;
          childTime = rightTime;
          childSeq = rightSeq;
        }
      }
      if (lastTime < childTime || (lastTime === childTime && lastSeq < childSeq)) break;
      heapTime[i] = childTime;
      heapSeq[i] = childSeq;
      heapSlot[i] = heapSlot[child] as number;
      i = child;
    }
    heapTime[i] = lastTime;
    heapSeq[i] = lastSeq;
    heapSlot[i] = lastSlot;
  }
}

/** Copy `from` into the larger `to` and return it. */
function widen<T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

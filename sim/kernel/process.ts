// Processes. A process is a name plus a main function; each start of it is an incarnation with a fresh id. A
// SIGKILL ends the incarnation at once: it is fenced, so its timers and pending events are skipped by the
// scheduler, its pending awaits are never resumed, and a continuation that was already queued when it died finds
// every primitive inert (no send, no write, no timer). Its memory is gone because the next incarnation runs main
// again from scratch; what it wrote to disk and committed to SQLite stays. Kill hooks let the network drop its
// mailbox and resend buffers. A SIGSTOP freezes an incarnation (its events and resumptions wait) until SIGCONT: a
// slow process, not a dead one.
//
// Start-up time (issue 24 item 6): a restarted incarnation may take a start-up delay (container start, module load)
// before its main runs. It is running from its spawn on, as a container host sees a container from `docker run` on
// (nanoclaw's `activeContainers` holds it before the agent runner's poll loop starts), so a supervisor sees it before
// its start-up work is done; its start time is the spawn's. A kill during the start-up fences it like any other kill.
// The delay comes from `startupDelay` (the harness draws it from the run's PRNG); without one, main runs at once.
import type { ProcessMain } from '../../src/ports.ts';
import { assert } from './assert.ts';
import type { Fence, OwnerState, Scheduler } from './scheduler.ts';
import type { Trace } from './trace.ts';

// Promise executors run synchronously, so sleep() and later() can take the settling functions out through module
// variables instead of allocating a closure per call.
let capturedResolve: ((value: never) => void) | undefined;
let capturedReject: ((error: Error) => void) | undefined;
function captureSettlers(resolve: (value: never) => void, reject: (error: Error) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}
function never(): void {}

export class Incarnation {
  alive = true;
  /** SIGSTOP: a stopped incarnation runs nothing; what would resume it waits in `deferred` until SIGCONT. */
  stopped = false;
  readonly deferred: (() => void)[] = [];
  private readonly killHooks: (() => void)[] = [];

  constructor(
    readonly id: number,
    readonly name: string,
    /** How many incarnations of this name came before this one. */
    readonly generation: number,
    private readonly scheduler: Scheduler,
    /** When it started (simulated ms), as a host knows a process's or container's start time. */
    readonly startedAtMs = 0,
    /** How long its start-up takes before main runs (0: main runs at once). */
    readonly startupMs = 0,
  ) {}

  /** Its main has been started (the start-up is over). */
  began = false;
  /** Starts main unless it already began (set by whoever starts the incarnation; idempotent). */
  begin: () => void = never;

  onKill(hook: () => void): void {
    this.killHooks.push(hook);
  }

  /** Releases called at this incarnation's death, each until its wait forgets it (holdUntilDeath). */
  private readonly releases = new Set<() => void>();

  /**
   * Call `release` at this incarnation's death unless the returned function is called first. A wait that a shared
   * object keeps (a database's change waiters) lets go of its resume with it, and with the resume the whole state of
   * the dead incarnation (issue 46), while what the wait does at its time stays the same (a dead owner's event is
   * fenced).
   */
  holdUntilDeath(release: () => void): () => void {
    this.releases.add(release);
    return () => this.releases.delete(release);
  }

  /** Called by the process table only. */
  die(): void {
    assert(this.alive, `incarnation ${this.name}#${this.id} killed twice`);
    this.alive = false;
    this.stopped = false;
    this.deferred.length = 0;
    for (const hook of this.killHooks) hook();
    this.killHooks.length = 0;
    for (const release of this.releases) release();
    this.releases.clear();
  }

  /**
   * Wait delayMs of simulated time. The same contract as a suspend() whose register schedules the resume, with
   * less allocation on the hottest primitive: no wrapper closures (the wake event is the promise's own resolve),
   * since the event is owned by this incarnation, a kill fences it and the promise never settles.
   */
  sleep(delayMs: number): Promise<void> {
    const scheduler = this.scheduler;
    scheduler.activity++;
    if (!this.alive) return new Promise<void>(never);
    const promise = new Promise<void>(captureSettlers);
    const resolve = capturedResolve as (() => void) | undefined;
    capturedResolve = undefined;
    capturedReject = undefined;
    assert(resolve !== undefined, 'sleep: the promise executor did not run');
    try {
      scheduler.scheduleWake(delayMs, resolve, this.id);
    } catch (error) {
      // As if the executor had thrown: the sleep rejects rather than throwing synchronously.
      return Promise.reject(error);
    }
    return promise;
  }

  /**
   * A general way a process waits: `register` receives a resume function that the kernel calls from an event. If the
   * incarnation is dead by then (or already), the promise never settles.
   */
  suspend<T>(register: (resume: (value: T) => void, fail: (error: Error) => void) => void): Promise<T> {
    this.scheduler.activity++;
    if (!this.alive) return new Promise<T>(never);
    // The resume and fail functions are unnamed arrows on purpose: tsx (esbuild with keepNames) wraps every function
    // bound to a name in a call that defines its `name` property, which on this path cost a tenth of a campaign.
    return new Promise<T>((resolve, reject) => {
      register(
        (value) => this.settle(resolve, value),
        (error) => this.settle(reject, error),
      );
    });
  }

  /**
   * A call that completes in an event of this incarnation after `latency()` ms: `work` runs then, and the call settles
   * with what it returns or throws (SQLite's calls). The same contract as a suspend() whose register schedules that
   * event, with one closure per call instead of five; `latency` is asked only if the incarnation is alive, as a
   * register would be (it draws from the PRNG).
   */
  later<T>(latency: () => number, work: () => T): Promise<T> {
    const scheduler = this.scheduler;
    scheduler.activity++;
    if (!this.alive) return new Promise<T>(never);
    const promise = new Promise<T>(captureSettlers);
    const resolve = capturedResolve as ((value: T) => void) | undefined;
    const reject = capturedReject;
    capturedResolve = undefined;
    capturedReject = undefined;
    assert(resolve !== undefined && reject !== undefined, 'later: the promise executor did not run');
    try {
      scheduler.schedule(latency(), () => this.complete(work, resolve, reject), this.id);
    } catch (error) {
      // As if a register had thrown inside the executor: the call rejects rather than throwing synchronously.
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return promise;
  }

  private complete<T>(work: () => T, resolve: (value: T) => void, reject: (error: Error) => void): void {
    let value: T;
    try {
      value = work();
    } catch (error) {
      this.settle(reject, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.settle(resolve, value);
  }

  /** Settle a suspended call: not at all if the incarnation died, at SIGCONT if it is stopped, else now. */
  private settle<V>(settle: (value: V) => void, value: V): void {
    if (!this.alive) return;
    if (this.stopped) {
      this.deferred.push(() => this.settle(settle, value));
      return;
    }
    this.scheduler.resumed++;
    this.scheduler.activity++;
    settle(value);
  }
}

export interface ProcessCrash {
  name: string;
  incarnation: number;
  timeMs: number;
  error: unknown;
}

export class ProcessTable implements Fence {
  private readonly byId: (Incarnation | undefined)[] = [undefined];
  private readonly live = new Map<string, Incarnation>();
  private readonly mains = new Map<string, ProcessMain>();
  private readonly generations = new Map<string, number>();
  readonly crashes: ProcessCrash[] = [];
  /**
   * The start-up delay of a restarted incarnation (by process name), drawn when it is spawned; undefined: a restart
   * runs main at once and its trace event carries no delay (every run made before start-up times were modelled).
   */
  startupDelay: ((name: string) => number) | undefined;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly trace: Trace,
    private readonly start: (incarnation: Incarnation, main: ProcessMain) => void,
  ) {}

  state(owner: number): OwnerState {
    const incarnation = this.byId[owner];
    if (incarnation?.alive !== true) return 'dead';
    return incarnation.stopped ? 'stopped' : 'running';
  }

  /** Keep `resume` until the stopped incarnation `owner` continues. */
  defer(owner: number, resume: () => void): void {
    const incarnation = this.byId[owner];
    assert(incarnation?.stopped === true, `defer for incarnation ${owner}, which is not stopped`);
    incarnation.deferred.push(resume);
  }

  /** The incarnation with this id, alive or dead. */
  incarnation(id: number): Incarnation | undefined {
    return this.byId[id];
  }

  current(name: string): Incarnation | undefined {
    return this.live.get(name);
  }

  isRunning(name: string): boolean {
    return this.live.has(name);
  }

  names(): string[] {
    return [...this.mains.keys()];
  }

  /** Start a new incarnation of `name` now. */
  spawn(name: string, main?: ProcessMain): Incarnation {
    assert(!this.live.has(name), `process ${name} is already running`);
    const body = main ?? this.mains.get(name);
    assert(body !== undefined, `process ${name} has no main function`);
    this.mains.set(name, body);
    const generation = this.generations.get(name) ?? 0;
    this.generations.set(name, generation + 1);
    const timed = generation > 0 && this.startupDelay !== undefined;
    const startupMs = timed ? (this.startupDelay?.(name) ?? 0) : 0;
    assert(Number.isSafeInteger(startupMs) && startupMs >= 0, `the start-up of ${name} takes ${startupMs} ms, not whole ms from 0`);
    const incarnation = new Incarnation(this.byId.length, name, generation, this.scheduler, this.scheduler.clock.nowMs(), startupMs);
    this.byId.push(incarnation);
    this.live.set(name, incarnation);
    this.trace.record(generation === 0 ? 'proc.spawn' : 'proc.restart', timed ? { name, incarnation: incarnation.id, startupMs } : { name, incarnation: incarnation.id });
    this.start(incarnation, body);
    return incarnation;
  }

  /** SIGKILL. Returns false if the process was not running (a kill of a dead process is a no-op). */
  kill(name: string): boolean {
    const incarnation = this.live.get(name);
    if (incarnation === undefined) return false;
    this.live.delete(name);
    this.trace.record('proc.kill', { name, incarnation: incarnation.id });
    incarnation.die();
    this.scheduler.releaseOwner(incarnation.id);
    return true;
  }

  /** SIGSTOP: the running incarnation of `name` stops making progress until cont(). Returns false if none runs. */
  stop(name: string): boolean {
    const incarnation = this.live.get(name);
    if (incarnation === undefined || incarnation.stopped) return false;
    incarnation.stopped = true;
    this.trace.record('proc.stop', { name, incarnation: incarnation.id });
    return true;
  }

  /** SIGCONT: a stopped incarnation goes on; what it missed while stopped resumes now, in order. */
  cont(name: string): void {
    const incarnation = this.live.get(name);
    if (incarnation === undefined || !incarnation.stopped) return;
    incarnation.stopped = false;
    const deferred = incarnation.deferred.splice(0);
    this.trace.record('proc.cont', { name, incarnation: incarnation.id, deferred: deferred.length });
    this.scheduler.schedule(0, () => {
      for (const resume of deferred) resume();
    }, incarnation.id);
  }

  /** Start `name` again after delayMs unless it is already running by then. */
  restart(name: string, delayMs: number): void {
    assert(this.mains.has(name), `cannot restart unknown process ${name}`);
    this.scheduler.schedule(delayMs, () => {
      if (!this.live.has(name)) this.spawn(name);
    });
  }

  /**
   * The faults stop: a start-up still running is slow only because of them, so it ends within `maxMs` from now (as a
   * slow LLM response in flight then completes within a normal latency).
   */
  hurryStartups(maxMs: number): void {
    assert(Number.isSafeInteger(maxMs) && maxMs >= 0, `a start-up is hurried to ${maxMs} ms, not whole ms from 0`);
    const nowMs = this.scheduler.clock.nowMs();
    for (const incarnation of this.live.values()) {
      if (incarnation.began || incarnation.startedAtMs + incarnation.startupMs <= nowMs + maxMs) continue;
      this.scheduler.schedule(maxMs, incarnation.begin, incarnation.id);
    }
  }

  /** A task of a live incarnation threw: the process crashes (as an uncaught exception would kill it). */
  crashed(incarnation: Incarnation, error: unknown): void {
    if (!incarnation.alive) return;
    this.crashes.push({
      name: incarnation.name,
      incarnation: incarnation.id,
      timeMs: this.scheduler.clock.nowMs(),
      error,
    });
    this.trace.record('proc.exit', {
      name: incarnation.name,
      incarnation: incarnation.id,
      error: error instanceof Error ? error.message : String(error),
    });
    this.live.delete(incarnation.name);
    incarnation.die();
    this.scheduler.releaseOwner(incarnation.id);
  }
}

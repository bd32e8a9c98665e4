// Real OpenClaw components in place of the model's gateway parts (`--openclaw <release>`): the system-event queue, the
// heartbeat wakes and (node-events.ts) the node-event ingestion of a pinned release, loaded afresh for each gateway
// incarnation (one OpenclawInstance shared by the parts of that incarnation, as one process shares its module state),
// and adapted to the ports the model's gateway calls (src/system-events.ts SystemEventQueuePort, src/heartbeat-wake.ts
// HeartbeatWakesPort, src/environment.ts NodeEventsPort). The machine they run on has an OpenClaw install (home.ts).
//
// What the adapters keep beside the real code, and why:
// - The system-event queue: the model hangs acknowledgement hooks (`onDurable`) and its durable exec key on each event;
//   the real queue holds text, timestamp and context key only. The adapter keeps the model's event objects in a list
//   parallel to the real queue and checks after every call that the two agree (same length, same texts), so the real
//   queue decides what is accepted, refused, dropped past the cap and drained. Neither release can put drained
//   events back (the model's `requeue` after a heartbeat prompt that was not persisted): the adapter drains what was
//   queued since and enqueues the requeued events, then those, through the real queue, which applies its own
//   dedupe to them again (docs/MODEL.md names this departure).
// - The heartbeat wakes: the real module keeps the pending wakes, the coalesce and retry timers (simulated timers of
//   the gateway's incarnation) and the batch loop; the model's heartbeat runner is its handler. 2026.4.24 exports
//   requestHeartbeatNow({ reason, agentId, sessionKey }); 2026.7.1 renamed it requestHeartbeat and added `source` and
//   `intent` (an exec event is source and reason `exec-event`, intent `event`, as its handleNodeEvent asks); 2026.8.1
//   keeps it. 2026.9.6 replaced the module by the session-event wake (src/infra/session-event-wake.ts): the same
//   request as requestSessionEventWake, the handler set through heartbeat-wake.ts's setHeartbeatWakeHandler, now a
//   wrapper of the session-event wake's; it dispatches up to 4 targets (sessions) at once, where the older wakes ran
//   one batch at a time.
// - The queue keys: 2026.9.6's queue takes agent-qualified keys only (`agent:<id>:<rest>`); the adapter gives it the
//   key its own ingestion would (OpenclawSystemEvents.queueKey: gatesim's chat keys as they are, the node default
//   `node-<nodeId>` as `agent:main:node-<nodeId>`) and keeps the model's key everywhere else.
import type { GatewayParts, HeartbeatWakesPort, ProcessContext, Random, SystemEvent, SystemEventQueuePort, Wake, WakeHandler, WakeReason, WakeTarget } from '../../../src/index.ts';
import type { EnqueueResult } from '../../../src/index.ts';
import { simEpochMs } from '../../../src/pi-format.ts';
import { transcriptPath } from '../../../src/session-dbs.ts';
import { assert } from '../../kernel/assert.ts';
import type { Simulation } from '../../kernel/simulation.ts';
import { openclawIncarnationBinding, simulatedDiskFs, simulatedDiskFsPromises, simulatedProcesses } from './binding.ts';
import { componentSource, openclawComponentOf, type OpenclawSystemEvents, type RealSystemEvent } from './components.ts';
import { installOpenclaw, openclawConfigText, openclawHome } from './home.ts';
import { authorizesExecEvents, RealNodeEvents } from './node-events.ts';
import { RealOrphanMerge } from './orphan-merge.ts';
import { realSessionFileRepairs } from './session-file-repair.ts';
import { RealSessionWriteLock, sweepStaleLocks } from './write-lock.ts';
import { installMirrorStore, RealMirrorAppend } from './mirror-append.ts';
import { openclawAgentDbPath, RealSqliteMirrorAppend } from './mirror-append-sqlite.ts';
import { OpenclawInstance } from './instance.ts';
import { virtualPackageRoot } from '../openclaw-hooks.mjs';
import { releaseSimulatedSqlite } from '../openclaw-hooks/sqlite.mjs';
import type { OpenclawChoice } from './choice.ts';
import { openclawSqliteEraReleases } from './releases.ts';
import { isSqliteEra } from './node-events.ts';
import { loadSimulatedSqlite } from '../openclaw-hooks/sqlite.mjs';

// The SQLite era's node:sqlite runs on an engine a process loads once, asynchronously, while an instance loads
// synchronously: loaded here, so that every path to a release's parts (a run, a test, the library) finds it ready.
await loadSimulatedSqlite();

export { isSqliteEra } from './node-events.ts';

export { type OpenclawChoice, type OpenclawGatewayPart, openclawGatewayParts } from './choice.ts';

/** What the real code reached that the hooks do not simulate, across the run (a run with any fails loudly). */
export interface OpenclawEscapes {
  readonly escapes: string[];
  /**
   * The run ended: close its simulated node:sqlite connections without writing (releaseSimulatedSqlite; the disk's
   * files stay as the run left them). The SQLite era's parts only.
   */
  finish?: () => void;
  /**
   * Where the release keeps its agent DB, for the checkers' reader (sim/checkers/agent-db.ts): the SQLite era's parts
   * only (the checkers judge its sessions and transcript events where a part writes them).
   */
  agentDbPath?: string;
}

/**
 * The gateway parts of `choice`, each gateway incarnation with a fresh instance of the release's chunks bound to it:
 * its clock, timers (fenced by the incarnation), a PRNG stream of its own, and the simulated disk as it sees it.
 */
export function openclawGatewayPartsFor(sim: Simulation, choice: OpenclawChoice): GatewayParts & OpenclawEscapes {
  const escapes: string[] = [];
  // The machine's directories and the OpenClaw installation on it (config, session store of the gateway's sessions,
  // installed when the gateway first names them): one per run.
  const home = openclawHome();
  // The machine's process table (`process.kill(pid, 0)`, /proc/<pid>/...), as every instance of the run sees it.
  const processes = simulatedProcesses(sim.processes, virtualPackageRoot(choice.release));
  // The disk calls of the run's instances through node:fs/promises (the mirror append's pump watches them).
  let diskCalls = 0;
  const sqliteEra = isSqliteEra(choice.release);
  const newInstance = (ctx: ProcessContext): OpenclawInstance => {
    const owner = sim.processes.incarnation(ctx.incarnation);
    assert(owner !== undefined, `no incarnation ${ctx.incarnation} for ${ctx.name}`);
    const random = sim.prng.fork(`openclaw/${ctx.name}/${ctx.incarnation}`) as Random;
    const onEscape = (what: string) => escapes.push(`${ctx.name}#${ctx.incarnation}: ${what}`);
    const fsPromises = countedCalls(simulatedDiskFsPromises(sim.disk, owner, home, () => simEpochMs + ctx.clock.nowMs(), onEscape, processes), () => {
      diskCalls += 1;
    });
    const binding = openclawIncarnationBinding(choice.release, owner, { clock: ctx.clock, timers: ctx.timers, random }, { fs: simulatedDiskFs(sim.disk, owner, home, processes), fsPromises, processes, onEscape });
    // The SQLite era's node:sqlite is the simulated one, its files the disk's binary files as this incarnation sees
    // them (a new database needs its folder, as on Linux); the engine was loaded before the run (sim/run/harness.ts).
    if (sqliteEra) binding.sqliteFiles = { ...sim.disk.binaryFilesOf(owner), directoryExists: (path) => home.mode(sim.disk, path) !== undefined };
    return new OpenclawInstance(choice.release, binding);
  };
  // The parts of one process share one instance per incarnation (one process's module state): the gateway's queue,
  // wakes, node events and mirror lock; the runner's merge policy and run-attempt lock.
  const current = new Map<string, { incarnation: number; instance: OpenclawInstance }>();
  const instanceOf = (ctx: ProcessContext): OpenclawInstance => {
    const held = current.get(ctx.name);
    if (held?.incarnation === ctx.incarnation) return held.instance;
    const instance = newInstance(ctx);
    current.set(ctx.name, { incarnation: ctx.incarnation, instance });
    return instance;
  };
  const parts: GatewayParts & OpenclawEscapes = { escapes };
  if (sqliteEra) {
    parts.finish = () => releaseSimulatedSqlite(sim.disk);
    parts.agentDbPath = openclawAgentDbPath;
  }
  // The installed config: the SQLite era's mirror append writes the agent DB, and its deployment sets what its writers
  // reach (home.ts openclawConfigText); every other choice keeps the config as before.
  const config = openclawConfigText({ sqliteWrites: sqliteEra && choice.parts.includes('mirror-append') });
  // Where the model keeps its transcripts (src/session-dbs.ts transcriptPath), the sessions directory the locks are in.
  const transcriptsDir = transcriptPath('x').replace(/\/[^/]*$/, '');
  if (choice.parts.includes('system-events')) parts.systemEvents = (ctx) => new RealSystemEventQueue(openclawComponentOf(instanceOf(ctx), 'system-events'), ctx);
  if (choice.parts.includes('heartbeat-wake')) {
    parts.heartbeatWakes = (ctx, _timers, handler) => {
      const owner = sim.processes.incarnation(ctx.incarnation);
      assert(owner !== undefined, `no incarnation ${ctx.incarnation} for ${ctx.name}`);
      return new RealHeartbeatWakes(instanceOf(ctx), ctx, handler, () => sim.scheduler.holdSettle(() => owner.alive));
    };
  }
  if (choice.parts.includes('node-events')) {
    // 2026.7.1 takes an exec event only after the gateway's own system.run invoke: the gateway issues them (node-events.ts).
    if (authorizesExecEvents(choice.release)) parts.systemRunInvokes = true;
    parts.nodeEvents = (ctx, gateway) => {
      assert(gateway.events instanceof RealSystemEventQueue, 'node-events runs with the real system-event queue of the same instance');
      installOpenclaw(home, gateway.sessions, config);
      if (!sqliteEra) return new RealNodeEvents(instanceOf(ctx), ctx, gateway.events, gateway.sessions);
      const owner = sim.processes.incarnation(ctx.incarnation);
      assert(owner !== undefined, `no incarnation ${ctx.incarnation} for ${ctx.name}`);
      return new RealNodeEvents(instanceOf(ctx), ctx, gateway.events, gateway.sessions, () => sim.scheduler.holdSettle(() => owner.alive));
    };
  }
  // The runner's orphan-merge policy: an instance of the runner incarnation's own, made at its first question.
  // The runner's session-file repair: an instance of its own per runner incarnation (session-file-repair.ts).
  if (choice.parts.includes('session-file-repair')) parts.sessionFileRepair = realSessionFileRepairs(sim, choice.release, home, (what) => escapes.push(what));
  if (choice.parts.includes('orphan-merge')) parts.orphanMerge = (ctx) => new RealOrphanMerge(() => instanceOf(ctx));
  // The session write lock of both its callers, each incarnation with the instance of its process (write-lock.ts).
  // The gateway's incarnation sweeps the sessions directory for stale lock files at its start, as the release's does.
  if (choice.parts.includes('session-write-lock')) {
    parts.sessionWriteLock = (ctx, caller) => {
      if (caller === 'delivery-mirror') ctx.spawnTask('session-locks-sweep', () => sweepStaleLocks(instanceOf(ctx), ctx, transcriptsDir));
      return new RealSessionWriteLock(() => instanceOf(ctx), ctx, caller);
    };
  }
  // The delivery mirror's append, in the instance of the gateway's incarnation (mirror-append.ts); the session store
  // it reads beside the transcripts is installed once per run.
  if (choice.parts.includes('mirror-append') && sqliteEra) {
    // The SQLite era's: into the agent DB (mirror-append-sqlite.ts), the sessions' entries written there by the release.
    parts.mirrorAppend = (ctx, sessions) => {
      installOpenclaw(home, sessions, config);
      const owner = sim.processes.incarnation(ctx.incarnation);
      assert(owner !== undefined, `no incarnation ${ctx.incarnation} for ${ctx.name}`);
      return new RealSqliteMirrorAppend(() => instanceOf(ctx), ctx, () => sim.scheduler.holdSettle(() => owner.alive), () => diskCalls);
    };
  } else if (choice.parts.includes('mirror-append')) {
    parts.mirrorAppend = (ctx, sessions) => {
      installMirrorStore(home, sessions, transcriptPath);
      const owner = sim.processes.incarnation(ctx.incarnation);
      assert(owner !== undefined, `no incarnation ${ctx.incarnation} for ${ctx.name}`);
      return new RealMirrorAppend(() => instanceOf(ctx), ctx, sim.disk, owner, home, choice.release, () => sim.scheduler.holdSettle(() => owner.alive), () => diskCalls);
    };
  }
  return parts;
}

/** The same functions, each counted (`counted`) before it runs. */
function countedCalls(functions: Record<string, (...args: never[]) => Promise<unknown>>, counted: () => void): Record<string, (...args: never[]) => Promise<unknown>> {
  return Object.fromEntries(
    Object.entries(functions).map(([name, fn]) => [
      name,
      (...args: never[]) => {
        counted();
        return fn(...args);
      },
    ]),
  );
}

/** The real queue of one gateway incarnation, with the model's event objects kept beside it. */
export class RealSystemEventQueue implements SystemEventQueuePort {
  private readonly beside = new Map<string, SystemEvent[]>();

  constructor(
    private readonly real: OpenclawSystemEvents,
    private readonly ctx: ProcessContext,
  ) {}

  enqueueSystemEvent(sessionKey: string, text: string, options: { contextKey: string | null; trusted?: boolean; execKey: string | null }): EnqueueResult {
    const queued = this.real.enqueueSystemEvent(text, { sessionKey: this.real.queueKey(sessionKey), contextKey: options.contextKey, trusted: options.trusted ?? true });
    const events = this.eventsOf(sessionKey);
    if (!queued) {
      const cleaned = text.trim();
      const duplicateOf = cleaned.length === 0 ? null : ([...events].reverse().find((event) => event.text === cleaned) ?? null);
      this.check(sessionKey);
      return { queued: false, duplicateOf };
    }
    const entries = this.real.peekSystemEventEntries(this.real.queueKey(sessionKey));
    const last = entries.at(-1);
    assert(last !== undefined, `the real queue of ${sessionKey} holds the event it accepted`);
    const event: SystemEvent = { text: last.text, ts: this.ctx.clock.nowMs(), contextKey: last.contextKey ?? null, trusted: options.trusted ?? true, onDurable: [], execKey: options.execKey };
    events.push(event);
    // Past its cap the real queue dropped its oldest events: so are their model objects.
    events.splice(0, Math.max(0, events.length - entries.length));
    this.check(sessionKey);
    return { queued: true, event };
  }

  peek(sessionKey: string): readonly SystemEvent[] {
    this.check(sessionKey);
    return this.eventsOf(sessionKey);
  }

  drainSystemEvents(sessionKey: string): SystemEvent[] {
    const drained = this.real.drainSystemEventEntries(this.real.queueKey(sessionKey));
    const events = this.eventsOf(sessionKey);
    this.beside.set(sessionKey, []);
    assert(drained.length === events.length && drained.every((entry, index) => entry.text === events[index]?.text), `the real queue of ${sessionKey} drained ${drained.length} events, the model's objects are ${events.length}`);
    return events;
  }

  /** No release can put drained events back: enqueue them again, before what was queued since (the real dedupe applies). */
  requeue(sessionKey: string, events: SystemEvent[]): void {
    const since = this.drainSystemEvents(sessionKey);
    for (const event of [...events, ...since]) {
      const result = this.enqueueSystemEvent(sessionKey, event.text, { contextKey: event.contextKey, trusted: event.trusted, execKey: event.execKey });
      const kept = result.queued ? result.event : result.duplicateOf;
      // The acknowledgements wait for whichever event now stands for this one (or are sent when none does).
      if (kept !== null) kept.onDurable.push(...event.onDurable);
      else for (const ack of event.onDurable) ack();
    }
  }

  /** The real queue's entries now (what adoptEnqueued compares with after the release's own code ran). */
  snapshot(sessionKey: string): RealSystemEvent[] {
    return this.real.peekSystemEventEntries(this.real.queueKey(sessionKey));
  }

  /**
   * The release's own code (its handleNodeEvent, in the same instance) enqueued into the real queue directly: make
   * the model's object for what it accepted, if anything (the queue changed since `before`). Such an event carries no
   * durable exec key: the release's ingestion keeps none (the model's heartbeat runner leaves out a replay only by the
   * key the model's own ingestion gives it).
   */
  adoptEnqueued(sessionKey: string, before: readonly RealSystemEvent[]): SystemEvent | undefined {
    const entries = this.real.peekSystemEventEntries(this.real.queueKey(sessionKey));
    const changed = entries.length !== before.length || entries.some((entry, index) => entry.text !== before[index]?.text || entry.ts !== before[index]?.ts);
    const events = this.eventsOf(sessionKey);
    if (!changed) {
      this.check(sessionKey);
      return undefined;
    }
    const last = entries.at(-1);
    assert(last !== undefined, `the real queue of ${sessionKey} holds the event the release accepted`);
    const event: SystemEvent = { text: last.text, ts: this.ctx.clock.nowMs(), contextKey: last.contextKey ?? null, trusted: last.trusted ?? false, onDurable: [], execKey: null };
    events.push(event);
    events.splice(0, Math.max(0, events.length - entries.length));
    this.check(sessionKey);
    return event;
  }

  private eventsOf(sessionKey: string): SystemEvent[] {
    let events = this.beside.get(sessionKey);
    if (events === undefined) {
      events = [];
      this.beside.set(sessionKey, events);
    }
    return events;
  }

  /** The model's objects and the real queue agree: the same texts in the same order. */
  private check(sessionKey: string): void {
    const entries = this.real.peekSystemEventEntries(this.real.queueKey(sessionKey));
    const events = this.eventsOf(sessionKey);
    assert(entries.length === events.length && entries.every((entry, index) => entry.text === events[index]?.text), `the real queue of ${sessionKey} holds ${entries.length} events, the model's objects are ${events.length}`);
  }
}

interface RealWakeRequest {
  reason?: string;
  agentId?: string;
  sessionKey?: string;
}

/** Let go of a settle hold after `hops` microtask hops (deterministic: microtask order is ECMAScript's). */
async function letGoAfter(hops: number, letGo: () => void): Promise<void> {
  for (let hop = 0; hop < hops; hop++) await null;
  letGo();
}

/** How a release takes a wake request: 2026.4.24's requestHeartbeatNow, or the source-and-intent request of the rest. */
type WakeRequestShape = 'reason' | 'source-and-intent';

/**
 * Microtask hops the settle stays held after the handler returns, in the releases whose dispatch goes on long after
 * (RealHeartbeatWakes): enough for the release's chain from the handler's answer to the end of its dispatch (about 30
 * hops in 2026.9.6: the race with the abort signal, the gateway's work admission, its AsyncLocalStorage run).
 */
const wakeTailHops = 256;

/**
 * The real heartbeat wakes of one gateway incarnation (2026.9.6: its session-event wakes), running the model's heartbeat
 * runner as their handler.
 *
 * The SQLite-era releases' dispatch of a wake goes on for tens of microtask hops after the handler answers (2026.9.6:
 * Promise.race with the abort signal, runWithGatewayDetachedWorkAdmission, the attempts' AsyncLocalStorage), touching
 * nothing of the kernel, before it ends the target's turn and schedules what is pending; past the kernel's 8 quiet
 * hops that tail ran only at a later event, at a later simulated time (an unscoped wake requested at 0.8 s, due at
 * 1.05 s, ran at 120.8 s in the wake test's plan). So for them the adapter holds the kernel's settle
 * (sim/kernel/scheduler.ts holdSettle, as the mirror append does) from the handler's start until wakeTailHops hops
 * after its answer: the tail runs at the instant of the answer, as it would in a process. 2026.4.24 and 2026.7.1 are
 * served as before (their tails are short; their recorded trace hashes stand).
 */
class RealHeartbeatWakes implements HeartbeatWakesPort {
  private readonly request: (options: Record<string, unknown>) => void;
  private readonly shape: WakeRequestShape;

  constructor(
    instance: OpenclawInstance,
    private readonly ctx: ProcessContext,
    handler: WakeHandler,
    holdSettle: () => () => void,
  ) {
    // The component table names the release's functions: its request function first (renamed in 2026.7.1, the
    // session-event wake's in 2026.9.6), and where the handler is set (2026.9.6: heartbeat-wake.ts's wrapper).
    const { sourceFile, functions, also = [] } = componentSource('heartbeat-wake', instance.release);
    const requestName = functions[0] ?? 'requestHeartbeatNow';
    this.shape = requestName === 'requestHeartbeatNow' ? 'reason' : 'source-and-intent';
    this.request = instance.function(sourceFile, requestName);
    const handlerFile = also.find((extra) => extra.name === 'setHeartbeatWakeHandler')?.sourceFile ?? sourceFile;
    const setHandler = instance.function<(next: (wake: RealWakeRequest) => Promise<{ status: string; reason?: string }>) => unknown>(handlerFile, 'setHeartbeatWakeHandler');
    const holdsTail = (openclawSqliteEraReleases as readonly string[]).includes(instance.release);
    setHandler(async (wake) => {
      const letGo = holdsTail ? holdSettle() : undefined;
      try {
        const outcome = await handler(this.wakeOf(wake));
        return outcome === 'ran' ? { status: 'ran' } : { status: 'skipped', reason: 'requests-in-flight' };
      } finally {
        if (letGo !== undefined) void letGoAfter(wakeTailHops, letGo);
      }
    });
  }

  requestHeartbeatNow(reason: WakeReason, target: WakeTarget = {}): void {
    const scope = { ...(target.agentId === undefined ? {} : { agentId: target.agentId }), ...(target.sessionKey === undefined ? {} : { sessionKey: target.sessionKey }) };
    this.request(this.shape === 'source-and-intent' ? { source: reason, intent: 'event', reason, ...scope } : { reason, ...scope });
  }

  private wakeOf(wake: RealWakeRequest): Wake {
    const reasons: readonly string[] = ['retry', 'interval', 'default', 'exec-event'];
    const reason = (reasons.includes(wake.reason ?? '') ? wake.reason : 'default') as WakeReason;
    return { agentId: wake.agentId, sessionKey: wake.sessionKey, reason, requestedAtMs: this.ctx.clock.nowMs() };
  }
}

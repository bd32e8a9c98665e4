// The real OpenClaw components gatesim can run in place of the model's (docs/ARCHITECTURE.md section 8, issue 22 step 3), and
// where each lives in each pinned release: a source file and the real names of its functions, read in the releases'
// dist/ chunks (`//#region <file>` and the closing export line; the chunk and letter are the resolver's business).
// Where the two releases differ, the table says so: 2026.7.1 renamed `requestHeartbeatNow` to `requestHeartbeat` and
// moved the run attempt from `src/agents/pi-embedded-runner/` to `src/agents/embedded-agent-runner/`; its
// session-file repair shares a chunk with OpenClaw's own SessionManager (`src/agents/sessions/session-manager.ts`),
// where 2026.4.24 imports pi's from `@mariozechner/pi-coding-agent`. The SQLite-era releases (2026.8.1, 2026.9.6) have
// the system-event queue, the wakes, the node events (their session entry read from the agent DB on the simulated
// node:sqlite), the orphan merge and the mirror append (into the agent DB) only (choice.ts says why not the rest): 2026.8.1 renamed the
// run attempt's `attempt.prompt-helpers.ts` to `attempt-prompt-helpers.ts`; 2026.9.6 qualifies every queue key by its
// agent (`resolveSystemEventQueueKey` of `src/infra/system-event-ownership.ts`, as its handleNodeEvent does through
// `withSystemEventOwner`) and replaced the heartbeat wake by the session-event wake (`src/infra/session-event-wake.ts`:
// requestSessionEventWake, requestSessionEventWakeAndWait, setSessionEventWakesEnabled), keeping
// `setHeartbeatWakeHandler` in `src/infra/heartbeat-wake.ts` as a wrapper of the session-event wake's handler.
//
// Loadable so far: the system-event queue (loadOpenclawComponent(release, 'system-events', binding)); the heartbeat
// wake, node-events (handleNodeEvent), the orphan-merge policy (the runner's, orphan-merge.ts) and the session write
// lock (the runner's and the gateway's, write-lock.ts) run through their adapters (gateway-parts.ts, node-events.ts),
// and so do the session-file repair (the runner's, session-file-repair.ts) and the mirror append (the gateway's,
// mirror-append.ts). Every component resolves (test/real/openclaw-resolver.test.ts).
import type { HooksBinding } from '../openclaw-hooks.mjs';
import { type ResolvedExport, resolveOpenclawExport } from './chunks.ts';
import { OpenclawInstance } from './instance.ts';
import { OpenclawLookupError, openclawPinnedReleases, type OpenclawRelease } from './releases.ts';

export const openclawComponentNames = [
  'system-events',
  'heartbeat-wake',
  'session-file-repair',
  'session-write-lock',
  'mirror-append',
  'node-events',
  'orphan-merge',
] as const;
export type OpenclawComponentName = (typeof openclawComponentNames)[number];

export interface ComponentSource {
  sourceFile: string;
  /** Real names of the functions gatesim calls, in the release's source file. */
  functions: readonly string[];
  /** Functions of other source files the adapter calls too (2026.9.6's queue key, its wake handler's wrapper). */
  also?: readonly { sourceFile: string; name: string }[];
}

export interface OpenclawComponent {
  name: OpenclawComponentName;
  /** What it replaces in the model (src/). */
  replaces: string;
  /** Where it lives in each release that has it (choice.ts says why the others lack it). */
  sources: Readonly<Partial<Record<OpenclawRelease, ComponentSource>>>;
}

const systemEventFunctions = ['enqueueSystemEvent', 'drainSystemEvents', 'drainSystemEventEntries', 'peekSystemEvents', 'peekSystemEventEntries'];

/** The SQLite era's session-entry writer and reader (src/config/sessions/session-accessor.sqlite-entry.ts). */
const sqliteSessionEntryFunctions = [
  { sourceFile: 'src/config/sessions/session-accessor.sqlite-entry.ts', name: 'replaceSessionEntrySync' },
  { sourceFile: 'src/config/sessions/session-accessor.sqlite-entry.ts', name: 'loadSessionEntryReadOnly' },
] as const;

/** The same file and functions in the JSONL-era releases (2026.4.24, 2026.7.1, 2026.7.35). */
function same(sourceFile: string, functions: readonly string[]): Partial<Record<OpenclawRelease, ComponentSource>> {
  return { '2026.4.24': { sourceFile, functions }, '2026.7.1': { sourceFile, functions }, '2026.7.35': { sourceFile, functions } };
}

export const openclawComponents: Readonly<Record<OpenclawComponentName, OpenclawComponent>> = {
  'system-events': {
    name: 'system-events',
    replaces: 'src/system-events.ts SystemEventQueue (enqueue, drain, peek)',
    sources: {
      ...same('src/infra/system-events.ts', systemEventFunctions),
      '2026.8.1': { sourceFile: 'src/infra/system-events.ts', functions: systemEventFunctions },
      '2026.9.6': { sourceFile: 'src/infra/system-events.ts', functions: systemEventFunctions, also: [{ sourceFile: 'src/infra/system-event-ownership.ts', name: 'resolveSystemEventQueueKey' }] },
    },
  },
  'heartbeat-wake': {
    name: 'heartbeat-wake',
    replaces: "src/heartbeat-wake.ts HeartbeatWakes (the model's heartbeat runner as its handler)",
    sources: {
      '2026.4.24': { sourceFile: 'src/infra/heartbeat-wake.ts', functions: ['requestHeartbeatNow', 'setHeartbeatWakeHandler', 'setHeartbeatsEnabled'] },
      '2026.7.1': { sourceFile: 'src/infra/heartbeat-wake.ts', functions: ['requestHeartbeat', 'setHeartbeatWakeHandler', 'setHeartbeatsEnabled'] },
      '2026.7.35': { sourceFile: 'src/infra/heartbeat-wake.ts', functions: ['requestHeartbeat', 'setHeartbeatWakeHandler', 'setHeartbeatsEnabled'] },
      '2026.8.1': { sourceFile: 'src/infra/heartbeat-wake.ts', functions: ['requestHeartbeat', 'setHeartbeatWakeHandler', 'setHeartbeatsEnabled'] },
      '2026.9.6': {
        sourceFile: 'src/infra/session-event-wake.ts',
        functions: ['requestSessionEventWake', 'requestSessionEventWakeAndWait', 'setSessionEventWakesEnabled'],
        also: [{ sourceFile: 'src/infra/heartbeat-wake.ts', name: 'setHeartbeatWakeHandler' }],
      },
    },
  },
  'session-file-repair': {
    name: 'session-file-repair',
    replaces: 'src/session-file-repair.ts repairSessionFileIfNeeded (at open, under the write lock)',
    sources: same('src/agents/session-file-repair.ts', ['repairSessionFileIfNeeded']),
  },
  'session-write-lock': {
    name: 'session-write-lock',
    replaces: 'src/session-write-lock.ts (the lock file around a transcript write)',
    // The lock, what its callers derive their options from (write-lock.ts: the max hold from a timeout, and 2026.7.1's
    // options from the config and OPENCLAW_SESSION_WRITE_LOCK_* variables), and the gateway's sweep of stale lock files
    // at its start.
    sources: {
      '2026.4.24': { sourceFile: 'src/agents/session-write-lock.ts', functions: ['acquireSessionWriteLock', 'resolveSessionLockMaxHoldFromTimeout', 'cleanStaleLockFiles'] },
      '2026.7.1': { sourceFile: 'src/agents/session-write-lock.ts', functions: ['acquireSessionWriteLock', 'resolveSessionLockMaxHoldFromTimeout', 'resolveSessionWriteLockOptions', 'cleanStaleLockFiles'] },
      '2026.7.35': { sourceFile: 'src/agents/session-write-lock.ts', functions: ['acquireSessionWriteLock', 'resolveSessionLockMaxHoldFromTimeout', 'resolveSessionWriteLockOptions', 'cleanStaleLockFiles'] },
    },
  },
  'mirror-append': {
    name: 'mirror-append',
    replaces: 'src/delivery-mirror.ts (the mirror append of a delivered reply, with its own nested SessionManager)',
    // The SQLite era: the same file and function, writing into the agent DB (mirror-append-sqlite.ts); the adapter
    // also calls the release's session-entry writer and reader (the session rows the append looks up).
    sources: {
      ...same('src/config/sessions/transcript.ts', ['appendAssistantMessageToSessionTranscript']),
      '2026.8.1': { sourceFile: 'src/config/sessions/transcript.ts', functions: ['appendAssistantMessageToSessionTranscript'], also: sqliteSessionEntryFunctions },
      '2026.9.6': { sourceFile: 'src/config/sessions/transcript.ts', functions: ['appendAssistantMessageToSessionTranscript'], also: sqliteSessionEntryFunctions },
    },
  },
  'node-events': {
    name: 'node-events',
    replaces: "src/gateway.ts onNodeEvent (exec events, with OpenClaw's config loader and session store)",
    // The SQLite era: the same file and function; its session entry comes from the agent DB (node-events.ts).
    sources: {
      ...same('src/gateway/server-node-events.ts', ['handleNodeEvent']),
      '2026.8.1': { sourceFile: 'src/gateway/server-node-events.ts', functions: ['handleNodeEvent'] },
      '2026.9.6': { sourceFile: 'src/gateway/server-node-events.ts', functions: ['handleNodeEvent'] },
    },
  },
  'orphan-merge': {
    name: 'orphan-merge',
    replaces: 'src/turn.ts the orphaned-user merge policy (modelOrphanMerge); the repair around it stays the model',
    sources: {
      '2026.4.24': { sourceFile: 'src/agents/pi-embedded-runner/run/attempt.prompt-helpers.ts', functions: ['mergeOrphanedTrailingUserPrompt'] },
      '2026.7.1': { sourceFile: 'src/agents/embedded-agent-runner/run/attempt.prompt-helpers.ts', functions: ['mergeOrphanedTrailingUserPrompt'] },
      '2026.7.35': { sourceFile: 'src/agents/embedded-agent-runner/run/attempt.prompt-helpers.ts', functions: ['mergeOrphanedTrailingUserPrompt'] },
      '2026.8.1': { sourceFile: 'src/agents/embedded-agent-runner/run/attempt-prompt-helpers.ts', functions: ['mergeOrphanedTrailingUserPrompt'] },
      '2026.9.6': { sourceFile: 'src/agents/embedded-agent-runner/run/attempt-prompt-helpers.ts', functions: ['mergeOrphanedTrailingUserPrompt'] },
    },
  },
};

/** Where a component lives in a release; throws OpenclawLookupError when the release does not have it. */
export function componentSource(name: OpenclawComponentName, release: OpenclawRelease): ComponentSource {
  const source = openclawComponents[name].sources[release];
  if (source === undefined) throw new OpenclawLookupError(release, '', '', `openclaw ${release} has no ${name} gatesim can run (sim/real/openclaw/choice.ts says why)`);
  return source;
}

/** Which releases have a component. */
export function releasesWithComponent(name: OpenclawComponentName): OpenclawRelease[] {
  return openclawPinnedReleases.filter((release) => openclawComponents[name].sources[release] !== undefined);
}

/**
 * Where each function of a component lives in a release (chunk, export letter), its own file's then those of other
 * files (`also`); throws if the release lacks one.
 */
export function resolveOpenclawComponent(release: OpenclawRelease, name: OpenclawComponentName): ResolvedExport[] {
  const { sourceFile, functions, also = [] } = componentSource(name, release);
  return [...functions.map((fn) => resolveOpenclawExport(release, sourceFile, fn)), ...also.map((extra) => resolveOpenclawExport(release, extra.sourceFile, extra.name))];
}

// ---------------------------------------------------------------------------------------------------------------
// The system-event queue.

/** An event as the real queue holds it. 2026.7.1 has no `trusted` field (its text is sanitised instead). */
export interface RealSystemEvent {
  text: string;
  /** Date.now() at enqueue: simulated wall-clock ms (simEpochMs + simulated ms). */
  ts: number;
  contextKey?: string | null;
  deliveryContext?: unknown;
  trusted?: boolean;
}

export interface RealEnqueueOptions {
  sessionKey: string;
  contextKey?: string | null;
  trusted?: boolean;
  deliveryContext?: unknown;
}

/** The real queue's functions, bound to one instance (one incarnation's module state). */
export interface OpenclawSystemEvents {
  readonly release: OpenclawRelease;
  readonly instance: OpenclawInstance;
  /** True when queued; false when refused (empty text, or a duplicate by the release's own rule). */
  enqueueSystemEvent(text: string, options: RealEnqueueOptions): boolean;
  drainSystemEvents(sessionKey: string): string[];
  drainSystemEventEntries(sessionKey: string): RealSystemEvent[];
  peekSystemEvents(sessionKey: string): string[];
  peekSystemEventEntries(sessionKey: string): RealSystemEvent[];
  /**
   * The key the release's own callers give its queue for a session key of gatesim's agent (`main`): the key itself,
   * or in 2026.9.6 the agent-qualified key of `resolveSystemEventQueueKey(sessionKey, 'main')`, as its handleNodeEvent
   * passes it (`withSystemEventOwner`): its queue refuses a key that does not parse as `agent:<id>:<rest>`. gatesim's
   * chat sessions (`agent:main:chat:<n>`) keep their key; the node default (`node-<nodeId>`) becomes
   * `agent:main:node-<nodeId>`.
   */
  queueKey(sessionKey: string): string;
}

/** The agent of every session gatesim runs (`agent:main:chat:<n>`). */
export const gatesimAgentId = 'main';

export interface OpenclawComponentApis {
  'system-events': OpenclawSystemEvents;
}

export type LoadableOpenclawComponent = keyof OpenclawComponentApis;

function systemEvents(instance: OpenclawInstance): OpenclawSystemEvents {
  const { sourceFile, also = [] } = componentSource('system-events', instance.release);
  const fn = <F extends (...args: never[]) => unknown>(name: string) => instance.function<F>(sourceFile, name);
  const owner = also.find((extra) => extra.name === 'resolveSystemEventQueueKey');
  const resolveKey = owner === undefined ? undefined : instance.function<(sessionKey: string, agentId?: string) => string>(owner.sourceFile, owner.name);
  return {
    queueKey: (sessionKey) => (resolveKey === undefined ? sessionKey : resolveKey(sessionKey, gatesimAgentId)),
    release: instance.release,
    instance,
    enqueueSystemEvent: fn('enqueueSystemEvent'),
    drainSystemEvents: fn('drainSystemEvents'),
    drainSystemEventEntries: fn('drainSystemEventEntries'),
    peekSystemEvents: fn('peekSystemEvents'),
    peekSystemEventEntries: fn('peekSystemEventEntries'),
  };
}

const loaders: { [K in LoadableOpenclawComponent]: (instance: OpenclawInstance) => OpenclawComponentApis[K] } = {
  'system-events': systemEvents,
};

export function isLoadableOpenclawComponent(name: string): name is LoadableOpenclawComponent {
  return name in loaders;
}

/** A component of an existing instance (components of one incarnation share its module state). */
export function openclawComponentOf<K extends LoadableOpenclawComponent>(instance: OpenclawInstance, name: K): OpenclawComponentApis[K] {
  return loaders[name](instance);
}

/**
 * A real component of a release in a fresh instance bound to one incarnation (`binding`: openclawIncarnationBinding
 * or openclawBinding). Call it once per process incarnation: the instance's module state starts empty, as a real
 * process's does after a restart, and is freed with the returned object.
 */
export function loadOpenclawComponent<K extends LoadableOpenclawComponent>(release: OpenclawRelease, name: K, binding: HooksBinding): OpenclawComponentApis[K] {
  return openclawComponentOf(new OpenclawInstance(release, binding), name);
}

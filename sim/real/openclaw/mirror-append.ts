// The delivery mirror's append of a pinned OpenClaw release (`appendAssistantMessageToSessionTranscript`, region
// src/config/sessions/transcript.ts: 2026.4.24 dist/transcript-C5WPUIcy.js, 2026.7.1 dist/transcript-0TRBwczD.js) in
// place of the model's (src/delivery-mirror.ts DeliveryMirror.append), behind src/delivery-mirror.ts MirrorAppendPort
// and src/environment.ts GatewayParts.mirrorAppend. Seed code `ma`. It runs in the instance of the gateway's
// incarnation (shared with the gateway's other parts: with `wl`, the same held-lock map as the release's lock).
//
// What the releases do (read in the chunks; docs/MODEL.md "The mirror append, real"):
// - both: the text trimmed (empty: `{ ok: false, reason: "empty text" }`, nothing touched); the session store
//   (`sessions.json`, read afresh) names the key's entry, whose `sessionId` and `sessionFile` (resolved within the
//   store's directory, `resolveAndPersistSessionFile`, which writes the store when the entry lacks the file) give the
//   transcript; the entry is an assistant message `{content: [text], api, provider: "openclaw", model:
//   "delivery-mirror", usage zeros, stopReason "stop", timestamp, idempotencyKey}` (api `openai-responses` in
//   2026.4.24, `openclaw-transcript` in 2026.7.1); a message already carrying the key (a scan of every line) is the
//   answer and nothing is written; so is (both releases, without a key in 2026.7.1 only when the mirror is not an
//   "identified" one, which the gateway's mirror is not) the latest assistant message in file order when its text is
//   the same (`findLatestEquivalentAssistantMessageId`).
// - 2026.4.24 (`appendExactAssistantMessageToSessionTranscript`): no lock; a missing file gets a header
//   (`ensureSessionHeader`: existsSync, mkdir, writeFile mode 0600, the pi header with the entry's sessionId and the
//   process cwd); then pi 0.70.2's `SessionManager.open(file).appendMessage(message)`: the file loaded synchronously
//   (lines that do not parse skipped, an empty or headerless file truncated to a fresh header), the entry a child of the
//   last entry in file order, appended with appendFileSync (onto a torn last line as it is), no fsync.
// - 2026.7.1 (`persistSessionTranscriptTurn`, dist/session-accessor-B4Nfa9CN.js): the release's own session write lock
//   (`acquireSessionWriteLock` with the config's options, `allowReentrant`) around the header (`ensureTranscriptHeader`:
//   a missing or empty file gets one, flag wx or w), the key scan (newest line first), the leaf read from the file's end
//   (`readTranscriptLeafInfo`, with a forward scan through readline when the last line is no parent-linked entry), a
//   linear transcript migrated to parent links, and one line appended through `open(file, "a+")` (a newline first when
//   the file's last byte is not one), no fsync; then the store entry's `updatedAt` touched (`updateSessionStore`).
//
// What the adapter keeps of the model (src/delivery-mirror.ts): which file (the key's current session, from state.db),
// the lock around the append for 2026.4.24 (the model's, or the release's under `wl`), and a failure's outcome
// (`mirror-skipped`). The release finds that file through a session store the adapter keeps beside the transcripts
// (`/data/sessions/sessions.json`, passed as `storePath` as a deployment with `session.store` there would): installed
// with each session key's first session (no write of the run), and brought up to date after a rotation (/clear) with
// the release's own `updateSessionStore` before the append, as OpenClaw's session reset writes the new session id.
// The release's lock errors become the model's SessionWriteLockError (the mirror is skipped); `ok: false` is a skip
// with the release's reason; any other error of the release goes up as it is.
import type { MirrorAppendOutcome, MirrorAppendPort, MirrorAppendRequest } from '../../../src/delivery-mirror.ts';
import type { ProcessContext } from '../../../src/ports.ts';
import { simEpochMs } from '../../../src/pi-format.ts';
import { SessionWriteLockError } from '../../../src/session-write-lock.ts';
import { assert } from '../../kernel/assert.ts';
import type { SimDisk } from '../../kernel/disk.ts';
import type { Incarnation } from '../../kernel/process.ts';
import type { SimulatedDirectories } from './binding.ts';
import { componentSource } from './components.ts';
import type { OpenclawInstance } from './instance.ts';
import { isJulyLine, type OpenclawRelease } from './releases.ts';
import { isRealLockError } from './write-lock.ts';

/** The pump's first tick, its longest, and a bound on its ticks per call (callRelease). */
const pumpStartMs = 1;
const pumpMaxMs = 1_024;
const pumpTicksMax = 100_000;

/** The session store the mirror's release reads, beside the model's transcripts (src/session-dbs.ts transcriptPath). */
export const mirrorStorePath = '/data/sessions/sessions.json';
/** The agent of every session key the model uses (`agent:main:chat:<n>`). */
const agentId = 'main';

/**
 * The session id the store names a model session by. OpenClaw's ids are UUIDs; the model's first session of a key is
 * the key (`agent:main:chat:0`) and a rotated one adds `~<hash>` (src/session-db.ts rotatedSessionId), which 2026.7.1's
 * store refuses (`isSafeSessionId`: letters, digits and `._:@-`; normalizeSessionStore drops such an entry), so the
 * store writes `~` as `_`. The transcript is found by the entry's `sessionFile`, the model's file.
 */
export function storeSessionIdOf(sessionId: string): string {
  return sessionId.replace(/~/g, '_');
}

/** The store as installed: each key's first session is the key itself (src/session-db.ts currentSessionId). */
export function mirrorStoreText(sessions: readonly string[], transcriptPath: (sessionId: string) => string): string {
  const store = Object.fromEntries(sessions.map((key) => [key, { sessionId: storeSessionIdOf(key), sessionFile: transcriptPath(key), updatedAt: simEpochMs }]));
  return `${JSON.stringify(store, null, 2)}\n`;
}

/** Install the mirror's store (one per run: the same sessions at every incarnation, so a second call must agree). */
export function installMirrorStore(home: SimulatedDirectories, sessions: readonly string[], transcriptPath: (sessionId: string) => string): void {
  const text = mirrorStoreText(sessions, transcriptPath);
  const installed = home.installed.get(mirrorStorePath);
  assert(installed === undefined || installed === text, `${mirrorStorePath} was installed with other contents`);
  home.installed.set(mirrorStorePath, text);
}

/** Which releases' appends take the session write lock themselves (2026.7.1's persistSessionTranscriptTurn). */
export function appendLocksItself(release: OpenclawRelease): boolean {
  return isJulyLine(release);
}

type RealAppend = (params: Record<string, unknown>) => Promise<{ ok: true; sessionFile: string; messageId: string } | { ok: false; reason: string; code?: string }>;
type RealUpdateStore = (storePath: string, mutator: (store: Record<string, Record<string, unknown>>) => void) => Promise<unknown>;

interface StoreEntry {
  sessionId?: unknown;
  sessionFile?: unknown;
}

/** The ids of the entries a transcript's lines hold (lines that do not parse, and lines without an id, left out). */
function entryIdsOf(text: string | undefined): Set<string> {
  const ids = new Set<string>();
  for (const line of (text ?? '').split(/\r?\n/)) {
    try {
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === 'string') ids.add(id);
    } catch {
      continue;
    }
  }
  return ids;
}

/** The release's mirror append of one gateway incarnation, as the model's port. */
export class RealMirrorAppend implements MirrorAppendPort {
  readonly locksItself: boolean;
  private appendFn: RealAppend | undefined;
  private updateStore: RealUpdateStore | undefined;

  constructor(
    private readonly instance: () => OpenclawInstance,
    private readonly ctx: ProcessContext,
    private readonly disk: SimDisk,
    private readonly owner: Incarnation,
    private readonly home: SimulatedDirectories,
    release: OpenclawRelease,
    /** Holds the kernel's settle for the length of a call into the release (sim/kernel/scheduler.ts holdSettle). */
    private readonly holdSettle: () => () => void,
    /** How many disk calls the gateway's instance has made so far (the pump's sign of progress). */
    private readonly diskCalls: () => number,
  ) {
    this.locksItself = appendLocksItself(release);
  }

  async append(request: MirrorAppendRequest): Promise<MirrorAppendOutcome> {
    if (this.appendFn === undefined) {
      const instance = this.instance();
      const { sourceFile, functions } = componentSource('mirror-append', instance.release);
      this.appendFn = instance.function<RealAppend>(sourceFile, functions[0] ?? 'appendAssistantMessageToSessionTranscript');
      this.updateStore = instance.function<RealUpdateStore>('src/config/sessions/store.ts', 'updateSessionStore');
    }
    await this.followRotation(request);
    const before = entryIdsOf(this.disk.readNow(this.owner, request.path));
    let result: Awaited<ReturnType<RealAppend>>;
    // The release scans the transcript line by line through async generators (its key scan and leaf read), long
    // chains of promise continuations that touch no kernel primitive: the settle is held while it runs, so they run
    // at the instant that resumed them (without it, a scan went on only at the next event that resumed any
    // continuation, up to a minute later, while it held the lock).
    const appendFn = this.appendFn;
    try {
      result = await this.callRelease(() => appendFn({ agentId, sessionKey: request.sessionKey, text: request.text, storePath: mirrorStorePath, ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }) }));
    } catch (error) {
      if (!isRealLockError(error)) throw error;
      this.ctx.note('session-lock-timeout', { path: request.path, code: error.code, real: true });
      throw new SessionWriteLockError(error.message);
    }
    if (!result.ok) return { appended: false, skipped: `openclaw: ${result.reason}` };
    assert(result.sessionFile === request.path, `the release mirrored into ${result.sessionFile}, the model's file is ${request.path}`);
    assert(typeof result.messageId === 'string' && result.messageId.length > 0, 'the release answers the id of the mirror entry');
    if (!before.has(result.messageId)) return { appended: true, entryId: result.messageId };
    return { appended: false, existingEntryId: result.messageId, rule: this.ruleOf(request, result.messageId) };
  }

  /**
   * A call into the release, with the settle held and a pump beside it. The release scans the transcript line by line
   * through async generators, and returns from its last disk call (2026.7.1: the store's chmod) through several
   * layers of queues: long chains of promise continuations that touch no kernel primitive. The kernel's settle (8
   * quiet hops) cuts such a chain short, and the rest of it runs only after the next event that resumes a continuation
   * of any process (seconds to a minute later: without hold and pump, plan 658986442 failed, 16 of its 32 appends
   * ending late). So the settle is held while the call runs (up to 1,024 quiet hops), and the chain runs at the instant
   * that resumed it (chaos seed 17 with 2026.7.1: median 0.9 s from the showing to the mirror, 4.8 s without the
   * hold; with the hold alone every append of seed 17 and plan 658986442 ended at its last disk call's millisecond).
   * The pump guards a chain longer than that: a task of the incarnation ticks while the call is pending, every
   * pumpStartMs ms while the release makes disk calls, backing off by doubling to pumpMaxMs while it makes none (a
   * lock wait). The cost: such an append finishes up to pumpStartMs later than its last disk call.
   */
  private callRelease<T>(call: () => Promise<T>): Promise<T> {
    return callReleaseHeld(this.ctx, this.holdSettle, this.diskCalls, call);
  }

  /** Why the release answered an entry that was there: it carries the key, or it is the latest assistant text. */
  private ruleOf(request: MirrorAppendRequest, entryId: string): string {
    for (const line of (this.disk.readNow(this.owner, request.path) ?? '').split(/\r?\n/)) {
      try {
        const entry = JSON.parse(line) as { id?: unknown; message?: { idempotencyKey?: unknown } };
        if (entry.id === entryId) return request.idempotencyKey !== undefined && entry.message?.idempotencyKey === request.idempotencyKey ? 'idempotency-key' : 'latest-equivalent-assistant';
      } catch {
        continue;
      }
    }
    return 'latest-equivalent-assistant';
  }

  /** After a /clear the key's current session is a new one: the store's entry is brought to it, by the release's writer. */
  private async followRotation(request: MirrorAppendRequest): Promise<void> {
    const text = this.disk.readNow(this.owner, mirrorStorePath) ?? this.home.installed.get(mirrorStorePath);
    let entry: StoreEntry | undefined;
    try {
      entry = text === undefined ? undefined : (JSON.parse(text) as Record<string, StoreEntry>)[request.sessionKey];
    } catch {
      entry = undefined;
    }
    const sessionId = storeSessionIdOf(request.sessionId);
    if (entry?.sessionId === sessionId && entry.sessionFile === request.path) return;
    const update = this.updateStore;
    assert(update !== undefined, 'the release is loaded before the store is written');
    const nowMs = simEpochMs + this.ctx.clock.nowMs();
    await this.callRelease(() =>
      update(mirrorStorePath, (store) => {
        store[request.sessionKey] = { ...store[request.sessionKey], sessionId, sessionFile: request.path, updatedAt: nowMs };
      }),
    );
    this.ctx.note('mirror-store-rebound', { session: request.sessionKey, sessionId: request.sessionId, real: true });
  }
}

/**
 * A call into the release, with the settle held and a pump beside it (RealMirrorAppend's callRelease: why, there).
 * Shared with the SQLite era's append (mirror-append-sqlite.ts).
 */
export async function callReleaseHeld<T>(ctx: ProcessContext, holdSettle: () => () => void, diskCalls: () => number, call: () => Promise<T>): Promise<T> {
  let pending = true;
  const letGo = holdSettle();
  ctx.spawnTask('mirror-append-pump', async () => {
    let delayMs = pumpStartMs;
    let seen = diskCalls();
    for (let tick = 0; pending && tick < pumpTicksMax; tick++) {
      await ctx.timers.sleep(delayMs);
      const calls = diskCalls();
      delayMs = calls === seen ? Math.min(pumpMaxMs, delayMs * 2) : pumpStartMs;
      seen = calls;
    }
  });
  try {
    return await call();
  } finally {
    pending = false;
    letGo();
  }
}

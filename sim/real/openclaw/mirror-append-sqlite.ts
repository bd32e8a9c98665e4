// The delivery mirror's append of a SQLite-era release (2026.8.1 dist/transcript-CHHQWkes.js, 2026.9.6
// dist/transcript-C4vTCmt6.mjs: `appendAssistantMessageToSessionTranscript`, region src/config/sessions/transcript.ts)
// in place of the model's (src/delivery-mirror.ts DeliveryMirror.append), behind MirrorAppendPort, as the JSONL era's
// `ma` runs (mirror-append.ts). Seed code `ma`. It runs in the instance of the gateway's incarnation, on the simulated
// node:sqlite: the delivered reply becomes a transcript event of the key's session in the release's agent DB
// (`<stateDir>/agents/main/agent/openclaw-agent.sqlite`), never a line of the model's JSONL file.
//
// What the releases do (read in the chunks; docs/MODEL.md "The mirror append in the SQLite era"): the text trimmed
// (blank: `{ ok: false, reason: "empty text" }`); the key's session entry read from the agent DB
// (`resolveSessionEntrySelection`; none: `unknown sessionKey`); the entry an assistant message `{content: [text],
// api: "openclaw-transcript", provider: "openclaw", model: "delivery-mirror", usage zeros, stopReason "stop",
// timestamp, idempotencyKey}` with `openclawDelivery: { mediaUrls: [] }`; then `persistSessionTranscriptTurn` (the
// session's write admission queue, one IMMEDIATE transaction): a message already carrying the key is the answer and
// nothing is written (its text must match, the timestamp aside, or the append throws a conflict); a header event
// (`type: "session"`, version 4) first in an empty transcript; the event a child of the active leaf; the session
// entry's `updatedAt` touched in the same transaction. The latest equivalent assistant message (the latest message on
// the active branch is an assistant one with the same text) is the answer instead, before the transaction: 2026.8.1
// for every mirror the gateway makes (it skips the rule only for an "identified" mirror, by an
// `openclawDeliveryMirror` marker the gateway's does not carry), 2026.9.6 only for a mirror without an idempotency key.
//
// How the model's parts and the release share the release's store (decided here; docs/MODEL.md): the agent DB holds
// what the release writes, and the model's runner keeps its own stores (state.db, the JSONL transcripts), which the
// release does not read. The release finds a session through its session entry in the agent DB: the adapter writes it
// with the release's own writer (`replaceSessionEntrySync`, a write of the run, traced) before the key's first mirror
// of each gateway incarnation that finds it missing, and again after a rotation (/clear) names a new session for the
// key, as OpenClaw's reset writes the new session id (noted `mirror-store-rebound`). The session id is the model's,
// `~` written `_` (storeSessionIdOf: 2026.9.6's entries take OpenClaw's safe ids). So the agent DB's transcript of a
// session holds the mirror's events only, and the release's latest-equivalent rule compares with its previous mirror
// event, never with the runner's answer (which the JSONL era's release read in the shared file).
//
// What the adapter keeps of the model: which session (the key's current one, from state.db) and a failure's outcome
// (`mirror-skipped`: `ok: false` with the release's reason; an error of the release, a busy database say, as the model's
// mirror logs one). The append serializes its writes itself (the session's write admission queue; the session write
// lock is a no-op stub in these releases): the model's mirror takes no lock around it (`locksItself`). The call runs
// with the kernel's settle held and the mirror's pump beside it (mirror-append.ts callReleaseHeld): the release's
// queues and dynamic imports are promise chains that touch no kernel primitive.
import type { MirrorAppendOutcome, MirrorAppendPort, MirrorAppendRequest } from '../../../src/delivery-mirror.ts';
import type { ProcessContext } from '../../../src/ports.ts';
import { simEpochMs } from '../../../src/pi-format.ts';
import { assert } from '../../kernel/assert.ts';
import { openclawDefaultHome } from './binding.ts';
import { componentSource } from './components.ts';
import type { OpenclawInstance } from './instance.ts';
import { callReleaseHeld, storeSessionIdOf } from './mirror-append.ts';

/** Where the release keeps the main agent's sessions and transcripts (its `resolveOpenClawAgentSqlitePath`). */
export const openclawAgentDbPath = `${openclawDefaultHome}/.openclaw/agents/main/agent/openclaw-agent.sqlite`;

/** The agent of every session key the model uses (`agent:main:chat:<n>`). */
const agentId = 'main';

/** What the release's transaction reports of each message it took (`onMessageCommitted`). */
interface CommittedMessage {
  appended?: unknown;
  messageId?: unknown;
}

type RealAppend = (params: Record<string, unknown>) => Promise<{ ok: true; messageId: string } | { ok: false; reason: string; code?: string }>;
type RealReplace = (scope: { agentId: string; sessionKey: string }, entry: Record<string, unknown>) => void;
type RealLoad = (scope: { agentId: string; sessionKey: string }) => { sessionId?: unknown } | undefined;

interface Release {
  append: RealAppend;
  replace: RealReplace;
  load: RealLoad;
}

/** The SQLite era's mirror append of one gateway incarnation, as the model's port. */
export class RealSqliteMirrorAppend implements MirrorAppendPort {
  /** The release serializes its own writes (its write admission queue); the model's mirror takes no lock around it. */
  readonly locksItself = true;
  private release: Release | undefined;

  constructor(
    private readonly instance: () => OpenclawInstance,
    private readonly ctx: ProcessContext,
    /** Holds the kernel's settle for the length of a call into the release (sim/kernel/scheduler.ts holdSettle). */
    private readonly holdSettle: () => () => void,
    /** How many disk calls the gateway's instance has made so far (the pump's sign of progress). */
    private readonly diskCalls: () => number,
  ) {}

  async append(request: MirrorAppendRequest): Promise<MirrorAppendOutcome> {
    const release = this.loaded();
    await this.bind(release, request);
    const committed: CommittedMessage[] = [];
    const result = await callReleaseHeld(this.ctx, this.holdSettle, this.diskCalls, () =>
      release.append({
        agentId,
        sessionKey: request.sessionKey,
        text: request.text,
        ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
        onMessageCommitted: (message: CommittedMessage) => committed.push(message),
      }),
    );
    if (!result.ok) return { appended: false, skipped: `openclaw: ${result.reason}` };
    assert(typeof result.messageId === 'string' && result.messageId.length > 0, 'the release answers the id of the mirror event');
    const taken = committed.find((message) => message.messageId === result.messageId);
    if (taken?.appended === true) return { appended: true, entryId: result.messageId };
    // Taken without a write: the key's message (the transaction found it), or the latest equivalent assistant message
    // (found before the transaction, so nothing was committed).
    return { appended: false, existingEntryId: result.messageId, rule: taken === undefined ? 'latest-equivalent-assistant' : 'idempotency-key' };
  }

  private loaded(): Release {
    if (this.release !== undefined) return this.release;
    const instance = this.instance();
    const { sourceFile, functions, also = [] } = componentSource('mirror-append', instance.release);
    const fileOf = (name: string): string => {
      const found = also.find((extra) => extra.name === name);
      assert(found !== undefined, `openclaw ${instance.release}'s mirror append names where ${name} is`);
      return found.sourceFile;
    };
    this.release = {
      append: instance.function<RealAppend>(sourceFile, functions[0] ?? 'appendAssistantMessageToSessionTranscript'),
      replace: instance.function<RealReplace>(fileOf('replaceSessionEntrySync'), 'replaceSessionEntrySync'),
      load: instance.function<RealLoad>(fileOf('loadSessionEntryReadOnly'), 'loadSessionEntryReadOnly'),
    };
    return this.release;
  }

  /** The key's session entry in the agent DB names the model's current session: written by the release's writer when not. */
  private async bind(release: Release, request: MirrorAppendRequest): Promise<void> {
    const sessionId = storeSessionIdOf(request.sessionId);
    const scope = { agentId, sessionKey: request.sessionKey };
    // A synchronous read (node:sqlite): nothing to hold the settle for.
    const before = release.load(scope);
    if (before?.sessionId === sessionId) return;
    // The release's synchronous writer: it opens the agent DB as the append does (synchronously). Its asynchronous one
    // (upsertSessionEntryCore) opens a database this process has not opened through an integrity check in a forked
    // child process (dist/openclaw-agent-db-maintenance-*.mjs assertSqliteIntegrityWithProcess), not simulated.
    release.replace(scope, { sessionId, updatedAt: simEpochMs + this.ctx.clock.nowMs() });
    this.ctx.note('mirror-store-rebound', { session: request.sessionKey, sessionId: request.sessionId, real: true, ...(before === undefined ? { installed: true } : {}) });
  }
}

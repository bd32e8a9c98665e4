// Client connections (issue 24 item 1): OpenClaw's own clients (WebChat, the CLI) talk to the gateway over a
// WebSocket. The model of the gateway's side:
// - `chat.send {sessionKey, message, idempotencyKey}` is answered at once with `{runId, status}`: `started` for a new
//   key, `in_flight` for a key whose run has not ended, `ok` for one whose run ended (OpenClaw's chat.send handler).
//   The fixed gateway dedupes by the key durably: the key is the messages_in row id, written (INSERT OR IGNORE) before
//   the answer, so a client's retry with the same key is one user message whatever happened to the gateway between.
//   `memory` is OpenClaw's own dedupe: a map in the gateway's memory, pruned every 60 s of entries older than 5 min
//   whose run ended; a restart forgets it, and a retry after it is a second run. `off` (tests only) dedupes nothing.
// - The run's replies reach the client as `chat` events of state `final`, each with the session's stream seq (the
//   outbound row's seq) and the connection it was written to (a frame written to one WebSocket never arrives over
//   another). A reply is published once it is written to the session's live connection, or when no client is
//   connected (the client catches up on its next resume): the event stream is fire-and-forget, as OpenClaw's
//   broadcast is.
// - A (re)connecting client sends `chat.resume {sessionKey, afterSeq}` for its sessions: the gateway replays every
//   published reply after afterSeq, in order, and the connection becomes the session's live one from that cursor on;
//   the stream never writes a seq at or below the cursor of its connection. `inclusive` (tests only) replays from
//   afterSeq on, so the final the client showed last is sent again.
// Publishing and resuming take the session's lock, so a reply is never both replayed and published on a connection.
import { assert } from './assert.ts';
import { retryBusy } from './busy.ts';
import type { ChatClientsKnobs, ModelConfig } from './config.ts';
import { watch } from './idle-poll.ts';
import type { Delivery, ProcessContext, WatchedDatabase } from './ports.ts';
import type { SessionDbs } from './session-dbs.ts';
import { type ChatFinalEvent, type ChatResumed, type ChatResumeRequest, type ChatSendRequest, type ChatSendResponse, type ChatSendStatus, webchatName, WebSocketFrames } from './protocol.ts';

/** OpenClaw's DEDUPE_TTL_MS (server-constants): a dedupe entry older than this is pruned once its run ended. */
export const chatDedupeTtlMs = 300_000;
/** OpenClaw's dedupe cleanup interval (server-maintenance: every 60 s). */
export const chatDedupeCleanupMs = 60_000;
/** At most this many replies are replayed to one resume of one session. */
export const chatReplayRowsMax = 1_000;

/** The messages_in row id of a chat.send (durable dedupe: the key itself). */
export function chatSendRowId(idempotencyKey: string): string {
  return `in:chat:${idempotencyKey}`;
}

export class ChatConnections {
  /** Per client session: the connection its stream is written to, and the last seq written there. */
  private readonly live = new Map<string, { connection: number; cursor: number }>();
  private readonly locks = new Map<string, Promise<void>>();
  /** OpenClaw's dedupe map (`memory`): key -> when accepted, with the row its run took. In memory only. */
  private readonly dedupe = new Map<string, { acceptedAtMs: number; sessionKey: string; rowId: string }>();
  private accepted = 0;
  private readonly frames = new WebSocketFrames();
  private readonly knobs: ChatClientsKnobs;

  constructor(
    private readonly ctx: ProcessContext,
    config: ModelConfig,
    private readonly dbs: SessionDbs,
    /** Wake the runner after a new row (the gateway's wakeRunner). */
    private readonly wakeRunner: () => void,
  ) {
    this.knobs = config.knobs.clients;
    assert(this.knobs.sessions.every((session) => config.sessions.includes(session)), 'client sessions are sessions of the model');
  }

  isClientSession(sessionKey: string): boolean {
    return this.knobs.sessions.includes(sessionKey);
  }

  /** A frame is acted on only when it came over the connection it was written to, and only once. */
  private current(delivery: Delivery<{ connection: number; frame: number }>): boolean {
    return this.frames.accept(delivery.payload, delivery.connection);
  }

  async onChatSend(delivery: Delivery<ChatSendRequest>): Promise<void> {
    const request = delivery.payload;
    if (!this.current(delivery) || !this.isClientSession(request.sessionKey)) {
      this.ctx.note('chat-frame-ignored', { type: request.type, connection: delivery.connection ?? -1 });
      return;
    }
    const key = request.idempotencyKey;
    assert(key.length > 0, 'a chat.send carries its idempotency key');
    const remembered = this.knobs.dedupe === 'memory' ? this.dedupe.get(key) : undefined;
    let status: ChatSendStatus;
    let rowId: string;
    let inserted = 0;
    if (remembered !== undefined) {
      rowId = remembered.rowId;
      status = (await this.rowStatus(request.sessionKey, rowId)) === 'completed' ? 'ok' : 'in_flight';
    } else {
      // Durable: the key is the row. OpenClaw's memory map (and `off`) gives each accepted send a run of its own.
      rowId = this.knobs.dedupe === 'durable' ? chatSendRowId(key) : `${chatSendRowId(key)}:${this.ctx.incarnation}.${++this.accepted}`;
      // OpenClaw reserves `pending-chat:<key>` before it awaits anything, so a concurrent repeat finds it.
      if (this.knobs.dedupe === 'memory') this.dedupe.set(key, { acceptedAtMs: this.ctx.clock.nowMs(), sessionKey: request.sessionKey, rowId });
      inserted = await this.insert(request, rowId);
      status = inserted === 1 ? 'started' : (await this.rowStatus(request.sessionKey, rowId)) === 'completed' ? 'ok' : 'in_flight';
    }
    this.ctx.note('chat-send', { session: request.sessionKey, key, row: rowId, inserted, status, connection: request.connection });
    this.ctx.net.send(webchatName, { type: 'chat.send.res', runId: key, status, connection: request.connection, frame: this.frames.next(request.connection) } satisfies ChatSendResponse);
    if (inserted === 1) this.wakeRunner();
  }

  private async insert(request: ChatSendRequest, rowId: string): Promise<number> {
    const inbound = await this.dbs.inboundDb(request.sessionKey);
    const nowMs = this.ctx.clock.nowMs();
    const kind = request.message.trim().toLowerCase().startsWith('/clear') ? 'command' : 'chat';
    const inserted = await retryBusy(this.ctx, () =>
      inbound.transaction((tx) => {
        const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_in')[0]?.next ?? 1);
        return tx.run('INSERT OR IGNORE INTO messages_in(id, seq, kind, content, trigger, created_at) VALUES (?, ?, ?, ?, 1, ?)', [rowId, seq, kind, request.message, nowMs]).changes;
      }),
    );
    assert(inserted === 0 || inserted === 1, `chat.send ${rowId} is one messages_in row, not ${inserted}`);
    return inserted;
  }

  private async rowStatus(sessionKey: string, rowId: string): Promise<string | undefined> {
    const inbound = await this.dbs.inboundDb(sessionKey);
    const rows = await inbound.query('SELECT status FROM messages_in WHERE id = ?', [rowId]);
    return rows[0]?.status as string | undefined;
  }

  /** OpenClaw's dedupe cleanup (memory): entries older than the TTL go, unless their run has not ended. */
  async pruneDedupe(): Promise<void> {
    const nowMs = this.ctx.clock.nowMs();
    for (const [key, entry] of [...this.dedupe]) {
      if (nowMs - entry.acceptedAtMs <= chatDedupeTtlMs) continue;
      if ((await this.rowStatus(entry.sessionKey, entry.rowId)) !== 'completed') continue;
      this.dedupe.delete(key);
    }
  }

  async onResume(delivery: Delivery<ChatResumeRequest>): Promise<void> {
    const request = delivery.payload;
    if (!this.current(delivery)) {
      this.ctx.note('chat-frame-ignored', { type: request.type, connection: delivery.connection ?? -1 });
      return;
    }
    for (const { sessionKey, afterSeq } of request.sessions) {
      if (!this.isClientSession(sessionKey)) continue;
      await this.locked(sessionKey, () => this.replay(sessionKey, afterSeq, request.connection));
    }
    this.ctx.net.send(webchatName, { type: 'chat.resumed', connection: request.connection, frame: this.frames.next(request.connection) } satisfies ChatResumed);
  }

  private async replay(sessionKey: string, afterSeq: number, connection: number): Promise<void> {
    const live = this.live.get(sessionKey);
    // A second resume over the same connection: what was written there is on its way, so the cursor stays.
    let cursor = live?.connection === connection ? live.cursor : afterSeq;
    const from = this.knobs.replay === 'inclusive' && live?.connection !== connection ? afterSeq - 1 : cursor;
    const outbound = await this.dbs.outboundDb(sessionKey);
    const rows = await outbound.query('SELECT id, seq, kind, content FROM messages_out WHERE delivered = 1 AND seq > ? ORDER BY seq LIMIT ?', [from, chatReplayRowsMax]);
    for (const row of rows) {
      this.write(sessionKey, row, connection);
      cursor = Math.max(cursor, Number(row.seq));
    }
    this.live.set(sessionKey, { connection, cursor });
    this.ctx.note('chat-replay', { session: sessionKey, connection, after: afterSeq, count: rows.length, cursor });
  }

  /**
   * The delivery pollers' pass over a client session: publish its undelivered replies in seq order, each written to
   * the live connection when its seq is past the connection's cursor, then marked delivered. Returns the outbound
   * database as the poll saw it when there was nothing to publish.
   */
  async deliverSession(sessionKey: string): Promise<WatchedDatabase | undefined> {
    let watched: WatchedDatabase | undefined;
    await this.locked(sessionKey, async () => {
      const outbound = await this.dbs.outboundDb(sessionKey);
      const seen = watch(outbound);
      const rows = await outbound.query('SELECT id, seq, kind, content FROM messages_out WHERE delivered = 0 ORDER BY seq LIMIT 10', []);
      if (rows.length === 0) {
        watched = seen;
        return;
      }
      for (const row of rows) {
        let live = this.live.get(sessionKey);
        // The WebSocket it names died: nothing more is written to it (the client resumes on its next connection).
        if (live !== undefined && this.ctx.net.connection?.(webchatName) !== live.connection) {
          this.live.delete(sessionKey);
          live = undefined;
        }
        const seq = Number(row.seq);
        const written = live !== undefined && seq > live.cursor;
        if (live !== undefined && written) {
          this.write(sessionKey, row, live.connection);
          live.cursor = seq;
        }
        await retryBusy(this.ctx, () => outbound.run('UPDATE messages_out SET delivered = 1 WHERE id = ?', [row.id as string]));
        this.ctx.note('chat-published', { session: sessionKey, key: row.id as string, seq, connection: written ? (live?.connection ?? -1) : -1 });
      }
    });
    return watched;
  }

  private write(sessionKey: string, row: Record<string, unknown>, connection: number): void {
    const text = (JSON.parse(row.content as string) as { text: string }).text;
    assert(typeof text === 'string', `messages_out row ${String(row.id)} holds {"text": ...}`);
    const event: ChatFinalEvent = { type: 'chat', state: 'final', sessionKey, seq: Number(row.seq), messageId: row.id as string, text, kind: row.kind as string, connection, frame: this.frames.next(connection) };
    this.ctx.note('chat-final', { session: sessionKey, key: event.messageId, seq: event.seq, connection });
    this.ctx.net.send(webchatName, event);
  }

  /** Run `task` under the session's lock (publishing and resuming never interleave on one session). */
  private locked(sessionKey: string, task: () => Promise<void>): Promise<void> {
    const previous = this.locks.get(sessionKey) ?? Promise.resolve();
    const next = previous.then(task);
    // The chain goes on after a failure (a failed task crashes the process through its caller).
    this.locks.set(sessionKey, next.catch(() => undefined));
    return next;
  }
}

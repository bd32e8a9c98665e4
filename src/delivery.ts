// Outbound delivery (nanoclaw's host): two pollers, fast (1 s) and slow (60 s), scan each session's
// `messages_out` for undelivered rows, with a per-session in-flight guard so the two never deliver one session at
// once. A row is sent first and marked delivered after the platform acknowledges, so delivery is at least once; the
// platform drops a repeat of the same idempotency key, so the user sees it once. The fast poller gives up on a row
// after deliveryAttemptsMax attempts; the slow poller keeps retrying such rows, so no reply is abandoned. A platform
// without idempotency keys shows every send, so the gateway sends again only when it cannot know the first landed:
// the delivered mark is retried until it commits, an acknowledgement that comes after its wait timed out still marks
// the row (and is remembered until then, so no poller sends the row again while the mark is being written), and a row
// marked meanwhile is not sent again (a restart between the send and the mark stays a duplicate).
// With OpenClaw's delivery mirror on, a delivered message (not a reaction) is mirrored into the session's transcript
// after the send succeeded and before its delivery is marked, as deliverOutboundPayloads mirrors before it returns.
//
// A platform that refuses and limits (issue 48, the knob `delivery`; docs/MODEL.md "Platforms that refuse, replies in
// parts"). A row whose text is over the platform's limit goes out in parts (chunk.ts), each its own send with its own
// key (`<row>#<n>`); a row within the limit keeps the row's key. The parts go in order, each only after the one before
// was acknowledged, and the count acknowledged is kept durably (outbound.db's session_state, `delivery-parts:<row>`),
// so a retry, a restart included, resumes at the first part not known taken and never sends a taken part again
// (Hermes' gateway/platforms/base_split_send.py `send_split`: "the chunks before it never go out twice"; OpenClaw
// 2026.7.1 keeps `unknown_after_send` for a partly sent entry and refuses a blind replay). A part whose answer did not
// come (the platform may have taken it) is sent again on the next poll, at least once, as a whole row is. The refusals:
//   - flood control (`rate-limit`): wait the retry_after the platform gave, then send the same part again (OpenClaw's
//     channel retry runner: up to 3 attempts per request, the wait the larger of retry_after and 400 ms, capped at
//     60 s for Telegram sends; the poller's attempts go on after that);
//   - the listener not ready yet after a restart (`not-ready`): a transient refusal, tried again on the next poll
//     (OpenClaw PR #126800 took the adapter-not-ready error out of its permanent errors);
//   - the chat not found (`not-found`): permanent (OpenClaw's PERMANENT_ERROR_PATTERNS, Hermes' dead targets): the
//     row is given up, and visibly: the reply is recorded in state.db's `delivery_obligations` in state `failed` with
//     the platform's error, as Hermes' delivery ledger records a definitive rejection, before the row is closed;
//   - a text over the limit (`too-long`): not sent again as it is (the fixed delivery never sends one).
// The sabotages (tests only) are the ways real gateways got this wrong, each named by its mode.
import { assert } from './assert.ts';
import type { ModelConfig } from './config.ts';
import type { ProcessContext, SqlDatabase, WatchedDatabase } from './ports.ts';
import { idlePoll, watch } from './idle-poll.ts';
import { type OutboundSend, platformName, type SendRefused, type SendRefusalReason } from './protocol.ts';
import { ignoreBusy, retryBusy } from './busy.ts';
import { ReplyWaiter } from './reply-waiter.ts';
import type { SessionDbs } from './session-dbs.ts';
import type { DeliveryMirror } from './delivery-mirror.ts';
import type { ChatConnections } from './chat-send.ts';
import { chunkText } from './chunk.ts';
import { stateDbPath, stateDbSchema } from './session-db.ts';
import type { DeliveryKnobs } from './delivery-knobs.ts';
import type { StreamRowContent } from './block-stream.ts';

/** A row of a streamed reply (block-stream.ts): its stream, the whole reply, and whether it is the stream's last row. */
interface StreamOfRow {
  stream: string;
  reply: string;
  last: boolean;
}

/** outbound.db session_state: a stream the gateway gave up (its later rows are closed unsent). */
const streamGivenUpPrefix = 'stream-given-up:';

/** The stream a row belongs to, from its content (rows of no stream carry none). */
function streamOf(content: string): StreamOfRow | undefined {
  const parsed = JSON.parse(content) as Partial<StreamRowContent>;
  if (parsed.stream === undefined || parsed.reply === undefined) return undefined;
  return { stream: parsed.stream, reply: parsed.reply, last: parsed.last === true };
}

/** How long a poller waits for the platform's acknowledgement of a send before it counts the send failed. */
export const sendAckTimeoutMs = 5_000;
/**
 * How long the announce of a task's output waits before its fallback goes (OpenClaw's gateway call from the announce
 * times out on the client after 15 s: openclaw/openclaw#24041, PR #24198).
 */
export const announceTimeoutMs = 15_000;

export { type DeliveryKnobs, type DeliveryMode, deliveryModes } from './delivery-knobs.ts';
import type { FallbackDeliveryMode } from './delivery-knobs.ts';

/** What became of one send: taken (acknowledged), no answer in time, or refused. */
type SendOutcome = { kind: 'acked' } | { kind: 'timeout' } | { kind: 'refused'; reason: SendRefusalReason; retryAfterMs: number };

/** How many times a part refused by flood control is sent again within one poll, after waiting the retry-after. */
export const floodRetriesMax = 2;
/** The longest retry-after a poll waits out (OpenClaw's TELEGRAM_OUTBOUND_RETRY_AFTER_CAP_MS). */
export const floodWaitMaxMs = 60_000;

/** Hermes' delivery ledger (gateway/delivery_ledger.py `_initialize_schema`), the columns the model writes. */
const deliveryObligationsSchema = `CREATE TABLE IF NOT EXISTS delivery_obligations (
  obligation_id TEXT PRIMARY KEY,
  session_key TEXT NOT NULL,
  platform TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  thread_id TEXT,
  content TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at REAL NOT NULL,
  updated_at REAL NOT NULL,
  owner_pid INTEGER,
  owner_started_at INTEGER,
  last_error TEXT
)`;

/** The platform's word for a refusal, as the gateway records it (Telegram's wording). */
const refusalErrors: Readonly<Record<SendRefusalReason, string>> = {
  'rate-limit': 'Too Many Requests: retry after',
  'not-found': 'Bad Request: chat not found',
  'not-ready': 'No active listener',
  'too-long': 'Bad Request: message is too long',
};

export class DeliveryPollers {
  private readonly inFlight = new Set<string>();
  /** Keys acknowledged after their wait timed out (their delivered mark may not have committed yet; an incarnation keeps the few it gets). */
  private readonly lateAcked = new Set<string>();
  private readonly acks: ReplyWaiter;
  /** The announce of a task's output waits longer than a plain send (the knob `fallbackDelivery`). */
  private readonly announceAcks: ReplyWaiter;
  /** Outcomes of sends made under the knob `delivery` (acknowledged, refused, or timed out). */
  private readonly outcomes: ReplyWaiter<SendOutcome>;
  /** Parts acknowledged after their wait timed out, by row: the count of parts known taken (an incarnation keeps them). */
  private readonly lateParts = new Map<string, number>();
  /** The send of each key whose answer is awaited (sends in parts), and the count of sends so far. */
  private readonly attemptOf = new Map<string, number>();
  private attempts = 0;
  private stateDb: SqlDatabase | undefined;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly config: ModelConfig,
    private readonly dbs: SessionDbs,
    private readonly mirror?: DeliveryMirror,
    /** Client connections (chat-send.ts): a client session's replies are published on its event stream instead. */
    private readonly chat?: ChatConnections,
  ) {
    this.acks = new ReplyWaiter(ctx.timers, sendAckTimeoutMs, false);
    this.announceAcks = new ReplyWaiter(ctx.timers, announceTimeoutMs, false);
    this.outcomes = new ReplyWaiter<SendOutcome>(ctx.timers, sendAckTimeoutMs, { kind: 'timeout' });
  }

  /**
   * The platform refused a send (issue 48): the wait for it ends with the refusal; a late one is ignored, and so is a
   * refusal of an earlier send of the same key (the network's later copy of it: chaos seed 24, run 1803, a copy of a
   * flood-control refusal came while the next send of the part waited, the gateway took it for that send's answer and
   * sent the part again after the wait, though that send had been taken).
   */
  onRefused(refused: SendRefused): void {
    if (refused.attempt !== undefined && this.attemptOf.get(refused.key) !== refused.attempt) return;
    this.outcomes.settle(refused.key, { kind: 'refused', reason: refused.reason, retryAfterMs: refused.retryAfterMs });
  }

  onAck(key: string): void {
    if (this.announceAcks.settle(key, true)) return;
    if (this.acks.settle(key, true)) return;
    if (this.outcomes.settle(key, { kind: 'acked' })) return;
    // A late acknowledgement of a part: the parts up to it are taken (each part goes only after the one before it was).
    const part = /^(.*)#(\d+)$/.exec(key);
    if (part !== null) {
      const row = part[1] as string;
      this.lateParts.set(row, Math.max(this.lateParts.get(row) ?? 0, Number(part[2])));
      return;
    }
    // A late acknowledgement: the platform has the message, whichever session's row it is. Until the mark commits,
    // the key is known acknowledged here, so neither poller sends the row again meanwhile (chaos seed 7: the fast
    // poller resent a row 2 ms after its late acknowledgement came, before the mark's write).
    this.lateAcked.add(key);
    for (const sessionKey of this.config.sessions) void this.markDelivered(sessionKey, key);
  }

  private async markDelivered(sessionKey: string, key: string): Promise<void> {
    const outbound = await this.dbs.outboundDb(sessionKey);
    await retryBusy(this.ctx, () => outbound.run('UPDATE messages_out SET delivered = 1 WHERE id = ?', [key]));
  }

  async pollLoop(speed: 'fast' | 'slow'): Promise<void> {
    const { deliveryFastMs, deliverySlowMs } = this.config.timers;
    assert(deliveryFastMs > 0 && deliverySlowMs > 0, `the delivery pollers wait a positive interval (${deliveryFastMs}, ${deliverySlowMs} ms)`);
    // The fast poller skips the polls that would find nothing (idle-poll.ts): after a pass that found no row in any
    // session, it waits for a change to one of their outbound databases. The slow one polls every minute.
    let watched: (WatchedDatabase | undefined)[] | undefined;
    for (;;) {
      await idlePoll(this.ctx, watched, speed === 'fast' ? deliveryFastMs : deliverySlowMs);
      const seen: (WatchedDatabase | undefined)[] = [];
      for (const sessionKey of this.config.sessions) {
        if (this.inFlight.has(sessionKey)) continue;
        this.inFlight.add(sessionKey);
        try {
          assert(this.inFlight.has(sessionKey), `the ${speed} poller holds the in-flight guard of ${sessionKey}`);
          seen.push(await this.deliverSession(sessionKey, speed));
        } finally {
          this.inFlight.delete(sessionKey);
        }
      }
      // A session skipped (the other poller had it) or with rows keeps the poller polling.
      watched = speed === 'fast' && seen.length === this.config.sessions.length ? seen : undefined;
    }
  }

  /** Delivers the session's undelivered rows; returns its outbound database as the poll saw it if it had none. */
  private async deliverSession(sessionKey: string, speed: 'fast' | 'slow'): Promise<WatchedDatabase | undefined> {
    if (this.chat?.isClientSession(sessionKey) === true) return this.chat.deliverSession(sessionKey);
    const outbound = await this.dbs.outboundDb(sessionKey);
    const watched = watch(outbound);
    const attemptsMax = speed === 'fast' ? this.config.timers.deliveryAttemptsMax : Number.MAX_SAFE_INTEGER;
    assert(attemptsMax >= 1, `the ${speed} poller tries a row at least once, not ${attemptsMax} times`);
    const rows = await outbound.query(
      'SELECT id, kind, content FROM messages_out WHERE delivered = 0 AND attempts < ? ORDER BY seq LIMIT 10',
      [attemptsMax],
    );
    if (rows.length === 0) return watched;
    for (const row of rows) {
      const key = row.id as string;
      // The platform acknowledged it late: mark it (again, if the first mark has not committed), never send it again.
      if (this.lateAcked.has(key)) {
        await this.markDelivered(sessionKey, key);
        continue;
      }
      // A block of a streamed reply (block-stream.ts) goes only after the stream's earlier rows, and not at all once
      // the stream was given up.
      const stream = streamOf(row.content as string);
      if (stream !== undefined && !(await this.streamMayGo(sessionKey, outbound, key, stream))) continue;
      const bumped = await ignoreBusy(outbound.run('UPDATE messages_out SET attempts = attempts + 1 WHERE id = ? AND delivered = 0', [key]));
      if (bumped === undefined || bumped.changes === 0) continue;
      // The bump may have waited (a stalled write): an acknowledgement that came meanwhile, of a send of the row before
      // (a late one, or of the network's replay of it), says the platform has it; the row is not sent again.
      if (this.lateAcked.has(key)) {
        await this.markDelivered(sessionKey, key);
        continue;
      }
      const text = (JSON.parse(row.content as string) as { text: string }).text;
      assert(typeof text === 'string', `messages_out row ${key} holds {"text": ...}`);
      const knobs = this.config.knobs.delivery;
      if (knobs !== null) {
        await this.deliverInParts(sessionKey, outbound, key, row.kind as string, text, speed, knobs, stream);
        continue;
      }
      const send: OutboundSend = {
        type: 'send',
        key,
        sessionKey,
        text,
        kind: row.kind as string,
      };
      const fallback = this.config.knobs.fallbackDelivery;
      if (fallback !== null && isTaskOutput(key, send.kind)) {
        await this.deliverWithFallback(sessionKey, send, speed, fallback);
        continue;
      }
      this.ctx.note('deliver-attempt', { session: sessionKey, key, poller: speed });
      const acked = await this.sendAndWait(send);
      if (!acked) {
        if (stream !== undefined && this.config.knobs.blockStreaming === 'drop-failed-block') await this.dropBlock(sessionKey, key, 'timeout');
        continue;
      }
      assert(this.inFlight.has(sessionKey), `${sessionKey} is delivered under its in-flight guard`);
      if (this.mirror !== undefined && send.kind !== 'reaction') {
        if (stream === undefined) await this.mirror.mirrorDelivered(sessionKey, text, key);
        else if (stream.last) await this.mirror.mirrorDelivered(sessionKey, stream.reply, stream.stream);
      }
      await this.markDelivered(sessionKey, key);
      this.ctx.note('delivered', { session: sessionKey, key });
    }
    return undefined;
  }

  private sendAndWait(send: OutboundSend): Promise<boolean> {
    return this.acks.wait(send.key, () => this.ctx.net.send(platformName, send));
  }

  /**
   * A scheduled task's output on two paths (issue 48 item 3; OpenClaw 2026.7.1 `dispatchCronDelivery`): the announce
   * first, waited for announceTimeoutMs; when it did not report delivery in that time, the direct send as its fallback,
   * waited as any send. The fixed paths send under the row's key, so when the announce landed and only its answer was
   * late or lost, the platform drops the fallback as a repeat of the key. A fallback not acknowledged either leaves
   * the row for the next poll (which announces again, under the same key). The sabotages: `fresh-key`, the announce
   * under a key of its own (a second message when both land); `no-fallback`, an announce that timed out counts as
   * delivered and nothing more is sent.
   */
  private async deliverWithFallback(sessionKey: string, send: OutboundSend, speed: 'fast' | 'slow', mode: FallbackDeliveryMode): Promise<void> {
    const key = send.key;
    const announce: OutboundSend = mode === 'fresh-key' ? { ...send, key: `announce:${key}` } : send;
    this.ctx.note('deliver-attempt', { session: sessionKey, key, poller: speed, path: 'announce' });
    let path = 'announce';
    if (!(await this.announceAcks.wait(announce.key, () => this.ctx.net.send(platformName, announce)))) {
      this.ctx.note('announce-failed', { session: sessionKey, key, mode });
      if (mode !== 'no-fallback') {
        this.ctx.note('deliver-attempt', { session: sessionKey, key, poller: speed, path: 'fallback' });
        if (!(await this.sendAndWait(send))) return;
        path = 'fallback';
      } else path = 'announce-assumed';
    }
    assert(this.inFlight.has(sessionKey), `${sessionKey} is delivered under its in-flight guard`);
    if (this.mirror !== undefined) await this.mirror.mirrorDelivered(sessionKey, send.text, key);
    await this.markDelivered(sessionKey, key);
    this.ctx.note('delivered', { session: sessionKey, key, path });
  }

  /**
   * One row under the knob `delivery` (issue 48): its parts in order from the first not known taken, refusals handled
   * as the file's opening comment says. Returns when the row is delivered, given up, or left for a later poll.
   */
  private async deliverInParts(sessionKey: string, outbound: SqlDatabase, row: string, kind: string, text: string, speed: 'fast' | 'slow', knobs: DeliveryKnobs, stream?: StreamOfRow): Promise<void> {
    const parts = chunkText(text, knobs.textLimit);
    assert(parts.length >= 1, `row ${row} has something to send`);
    const progressKey = `delivery-parts:${row}`;
    const stored = await ignoreBusy(outbound.query('SELECT value FROM session_state WHERE key = ?', [progressKey]));
    if (stored === undefined) return;
    let taken = Math.max(Number(stored[0]?.value ?? 0), this.lateParts.get(row) ?? 0);
    if (knobs.mode === 'resend-whole') taken = 0;
    let floods = 0;
    while (taken < parts.length) {
      const key = parts.length === 1 ? row : `${row}#${taken + 1}`;
      const attempt = ++this.attempts;
      const send: OutboundSend = { type: 'send', key, sessionKey, text: parts[taken] as string, kind, attempt };
      this.ctx.note('deliver-attempt', { session: sessionKey, key, poller: speed, part: taken + 1, parts: parts.length });
      this.attemptOf.set(key, attempt);
      const outcome = await this.outcomes.wait(key, () => this.ctx.net.send(platformName, send));
      if (this.attemptOf.get(key) === attempt) this.attemptOf.delete(key);
      if (outcome.kind === 'acked' || (outcome.kind === 'timeout' && knobs.mode === 'skip-unacked')) {
        taken++;
        if (parts.length > 1) await retryBusy(this.ctx, () => outbound.run('INSERT INTO session_state(key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at', [progressKey, String(taken), this.ctx.clock.nowMs()]));
        continue;
      }
      // drop-failed-block (a sabotage): a block whose send failed is dropped, never sent again.
      if (stream !== undefined && this.config.knobs.blockStreaming === 'drop-failed-block') {
        await this.dropBlock(sessionKey, row, outcome.kind === 'timeout' ? 'timeout' : outcome.reason);
        return;
      }
      // No answer: the platform may have the part. The next poll sends it again (at least once).
      if (outcome.kind === 'timeout') return;
      this.ctx.note('send-refused', { session: sessionKey, key, reason: outcome.reason, retryAfterMs: outcome.retryAfterMs });
      if (outcome.reason === 'rate-limit' && floods < floodRetriesMax && outcome.retryAfterMs <= floodWaitMaxMs) {
        floods++;
        await this.ctx.timers.sleep(Math.max(outcome.retryAfterMs, 400));
        if (knobs.mode === 'resend-whole') taken = 0;
        // The platform's acknowledgement of an earlier send of the part may have come while the poll waited (the
        // network's copy of a refused send, taken once the flood ended): the part is taken, not sent again
        // (block-streaming seed 3 run 392: the gateway sent a file a second time 2 s after that acknowledgement).
        const known = parts.length === 1 ? (this.lateAcked.has(row) ? 1 : 0) : (this.lateParts.get(row) ?? 0);
        if (knobs.mode !== 'resend-whole' && known > taken) {
          taken = known;
          if (parts.length > 1) await retryBusy(this.ctx, () => outbound.run('INSERT INTO session_state(key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at', [progressKey, String(taken), this.ctx.clock.nowMs()]));
        }
        continue;
      }
      if (outcome.reason === 'not-ready' && knobs.mode === 'drop-not-ready') {
        await this.markDelivered(sessionKey, row);
        this.ctx.note('delivery-dropped', { session: sessionKey, key: row, reason: outcome.reason });
        return;
      }
      const permanent = outcome.reason === 'not-found' || (outcome.reason === 'not-ready' && knobs.mode === 'give-up-not-ready');
      if (!permanent) return;
      // A block of a stream gives the whole reply up: the record holds the reply, and the stream's later rows are closed.
      if (knobs.mode !== 'give-up-silently') await this.recordGiveUp(sessionKey, stream?.stream ?? row, stream?.reply ?? text, outcome.reason);
      if (stream !== undefined) await retryBusy(this.ctx, () => outbound.run('INSERT OR IGNORE INTO session_state(key, value, updated_at) VALUES (?, ?, ?)', [`${streamGivenUpPrefix}${stream.stream}`, row, this.ctx.clock.nowMs()]));
      await this.markDelivered(sessionKey, row);
      this.ctx.note('delivery-given-up', { session: sessionKey, key: row, reason: outcome.reason, parts: parts.length, taken });
      return;
    }
    assert(this.inFlight.has(sessionKey), `${sessionKey} is delivered under its in-flight guard`);
    // The delivery mirror copies a streamed reply whole, once its last row is delivered.
    if (this.mirror !== undefined && kind !== 'reaction') {
      if (stream === undefined) await this.mirror.mirrorDelivered(sessionKey, text, row);
      else if (stream.last) await this.mirror.mirrorDelivered(sessionKey, stream.reply, stream.stream);
    }
    await this.markDelivered(sessionKey, row);
    this.ctx.note('delivered', { session: sessionKey, key: row, parts: parts.length });
  }

  /**
   * Whether a row of a stream may be sent now: not when the stream was given up (the row is closed: the give-up is
   * recorded for the whole reply), nor while an earlier row of the stream is undelivered (it goes first: the user
   * reads the blocks in order). A busy database leaves the row for the next poll.
   */
  private async streamMayGo(sessionKey: string, outbound: SqlDatabase, row: string, stream: StreamOfRow): Promise<boolean> {
    const givenUp = await ignoreBusy(outbound.query('SELECT value FROM session_state WHERE key = ?', [`${streamGivenUpPrefix}${stream.stream}`]));
    if (givenUp === undefined) return false;
    if (givenUp.length > 0) {
      await this.markDelivered(sessionKey, row);
      this.ctx.note('stream-row-closed', { session: sessionKey, key: row, stream: stream.stream });
      return false;
    }
    const prefix = `${stream.stream}:`;
    const earlier = await ignoreBusy(outbound.query('SELECT COUNT(*) AS n FROM messages_out WHERE delivered = 0 AND substr(id, 1, ?) = ? AND seq < (SELECT seq FROM messages_out WHERE id = ?)', [prefix.length, prefix, row]));
    return earlier !== undefined && Number(earlier[0]?.n ?? 0) === 0;
  }

  /** drop-failed-block (a sabotage): the block's send failed; the row is closed unshown and never sent again. */
  private async dropBlock(sessionKey: string, row: string, reason: string): Promise<void> {
    await this.markDelivered(sessionKey, row);
    this.ctx.note('block-dropped', { session: sessionKey, key: row, reason });
  }

  /**
   * A give-up, recorded where the user's loss can be seen (Hermes' delivery ledger in state.db, gateway/delivery_ledger.py
   * `mark_failed`): the whole reply in state `failed` with the platform's error, committed before the row is closed.
   */
  private async recordGiveUp(sessionKey: string, row: string, text: string, reason: SendRefusalReason): Promise<void> {
    this.stateDb ??= await this.ctx.sqlite.open(stateDbPath, stateDbSchema);
    const db = this.stateDb;
    const nowS = this.ctx.clock.nowMs() / 1_000;
    await retryBusy(this.ctx, () => db.run(deliveryObligationsSchema, []));
    await retryBusy(this.ctx, () =>
      db.run(
        "INSERT INTO delivery_obligations(obligation_id, session_key, platform, chat_id, thread_id, content, state, attempts, created_at, updated_at, owner_pid, owner_started_at, last_error) VALUES (?, ?, 'telegram', ?, NULL, ?, 'failed', 1, ?, ?, ?, NULL, ?) ON CONFLICT(obligation_id) DO UPDATE SET state = 'failed', updated_at = excluded.updated_at, last_error = excluded.last_error",
        [`${sessionKey}|${row}`, sessionKey, sessionKey, text, nowS, nowS, this.ctx.incarnation, refusalErrors[reason]],
      ),
    );
  }
}

/** A row of a turn that ran a scheduled task's occurrence (its result rows are named after the turn, task:<series>@<due>). */
function isTaskOutput(key: string, kind: string): boolean {
  return key.startsWith('task:') && kind !== 'reaction';
}

// OpenClaw's WebChat client (issue 24 item 1), part of the world and never killed: the user's side of a WebSocket to
// the gateway. The model:
// - Typing a message draws an idempotency key (the client's runId) and sends `chat.send` with it. The send waits for
//   its answer; when the connection dies first (the client sees a new connection number: OpenClaw's socket `close`
//   event, checked every tickMs), the send waits for the reconnect and goes again with the same key over the new
//   connection, as the control UI's chat queue keeps an entry's sendRunId across `waiting-reconnect`; an answer that
//   has not come within answerTimeoutMs is asked again on the same connection. `fresh` (tests only) draws a new key
//   for each retry.
// - On every new connection the client resumes: `chat.resume` with the last seq it was shown in each session, sent
//   again every resumeRetryMs until the gateway answers `chat.resumed`; only then are waiting sends sent again.
// - Every `chat` final that arrives over the connection it was written to is shown, in arrival order: the client trusts
//   the stream (OpenClaw's GatewayBrowserClient hands every event to the chat controller; its seq check only reports a
//   gap). Frames written to an older connection are ignored (they never arrive over a newer WebSocket).
// The client writes into the ledger what the user typed, each chat.send it wrote (with its key and connection), each
// answer, each final it received, and what it showed.
import type { ProcessContext, Random } from '../../src/ports.ts';
import { type ChatFinalEvent, type ChatResumed, type ChatResumeRequest, type ChatSendRequest, type ChatSendResponse, messageType, WebSocketFrames } from '../../src/protocol.ts';
import type { Ledger } from './ledger.ts';

/** How often the client looks at its socket (the close event's latency in the model). */
export const clientTickMs = 250;
/** A chat.send not answered within this is written again (same key) on the same connection. */
export const answerTimeoutMs = 30_000;
/** A resume not answered within this is written again. */
export const resumeRetryMs = 5_000;
/** Bound on a message's chat.send attempts (the run's whole time allows far fewer). */
export const sendAttemptsMax = 1_000;

interface PendingSend {
  /** The key the user's message was typed under (the ledger's delivery id). */
  typedKey: string;
  key: string;
  sessionKey: string;
  text: string;
  attempts: number;
  /** The connection and time of the last attempt; null before the first. */
  connection: number | null;
  sentAtMs: number;
}

export class WebChatClient {
  private ctx: ProcessContext | undefined;
  private readonly pending = new Map<string, PendingSend>();
  private readonly lastSeq = new Map<string, number>();
  private connection = -1;
  private resumed = false;
  private resumeSentAtMs = 0;
  private readonly frames = new WebSocketFrames();

  constructor(
    readonly name: string,
    private readonly gatewayName: string,
    private readonly ledger: Ledger,
    private readonly random: Random,
    private readonly sessions: readonly string[],
    private readonly retryKey: 'same' | 'fresh' = 'same',
  ) {}

  async main(ctx: ProcessContext): Promise<void> {
    this.ctx = ctx;
    ctx.spawnTask('client-ticks', async () => {
      for (;;) {
        this.tick(ctx);
        await ctx.timers.sleep(clientTickMs);
      }
    });
    for (;;) {
      const delivery = await ctx.net.receive();
      delivery.ack();
      this.onFrame(ctx, delivery.payload as { connection: number; frame: number }, delivery.connection);
    }
  }

  /** The user types a message in the client (a workload event): a fresh key, sent now if the client is resumed. */
  userSays(sessionKey: string, text: string, marker: string): void {
    const ctx = this.ctx;
    if (ctx === undefined) return;
    const key = this.drawKey();
    this.ledger.userTyped({ sessionKey, deliveryId: key, text, marker, mentions: true, sentAtMs: ctx.clock.nowMs() });
    ctx.note('client-says', { session: sessionKey, key, text });
    const send: PendingSend = { typedKey: key, key, sessionKey, text, attempts: 0, connection: null, sentAtMs: 0 };
    this.pending.set(key, send);
    if (this.resumed) this.send(ctx, send);
  }

  private drawKey(): string {
    return `wc-${this.random.int(0, 0xffffff).toString(16).padStart(6, '0')}${this.random.int(0, 0xffffff).toString(16).padStart(6, '0')}`;
  }

  private tick(ctx: ProcessContext): void {
    const nowMs = ctx.clock.nowMs();
    const connection = ctx.net.connection?.(this.gatewayName) ?? 0;
    if (connection !== this.connection) {
      // The socket closed and a new one opened: waiting sends wait for the resume.
      this.connection = connection;
      this.resumed = false;
      this.resume(ctx);
    } else if (!this.resumed && nowMs - this.resumeSentAtMs >= resumeRetryMs) this.resume(ctx);
    if (!this.resumed) return;
    for (const send of this.pending.values()) {
      if (send.connection !== this.connection || nowMs - send.sentAtMs >= answerTimeoutMs) this.send(ctx, send);
    }
  }

  private resume(ctx: ProcessContext): void {
    this.resumeSentAtMs = ctx.clock.nowMs();
    const sessions = this.sessions.map((sessionKey) => ({ sessionKey, afterSeq: this.lastSeq.get(sessionKey) ?? 0 }));
    ctx.note('client-resume', { connection: this.connection, after: sessions.map((entry) => entry.afterSeq).join(',') });
    ctx.net.send(this.gatewayName, { type: 'chat.resume', sessions, connection: this.connection, frame: this.frames.next(this.connection) } satisfies ChatResumeRequest);
  }

  private send(ctx: ProcessContext, send: PendingSend): void {
    if (send.attempts >= sendAttemptsMax) throw new Error(`webchat: ${send.typedKey} sent ${send.attempts} times`);
    // The sabotage `fresh`: a retry under a new key, which no gateway can tell from a new message.
    if (send.attempts > 0 && this.retryKey === 'fresh') {
      this.pending.delete(send.key);
      send.key = this.drawKey();
      this.pending.set(send.key, send);
    }
    send.attempts++;
    send.connection = this.connection;
    send.sentAtMs = ctx.clock.nowMs();
    this.ledger.delivered(send.typedKey, send.sentAtMs);
    this.ledger.clientSent({ sessionKey: send.sessionKey, typedKey: send.typedKey, key: send.key, connection: this.connection, atMs: send.sentAtMs });
    ctx.note('client-send', { session: send.sessionKey, key: send.key, attempt: send.attempts, connection: this.connection });
    ctx.net.send(this.gatewayName, { type: 'chat.send', sessionKey: send.sessionKey, message: send.text, idempotencyKey: send.key, connection: this.connection, frame: this.frames.next(this.connection) } satisfies ChatSendRequest);
  }

  private onFrame(ctx: ProcessContext, payload: { connection: number; frame: number }, arrivedOver: number | undefined): void {
    const type = messageType(payload);
    // A frame written to another WebSocket than the one it arrived over, or read already: the kernel's resend.
    if (!this.frames.accept(payload, arrivedOver) || arrivedOver !== this.connection) return;
    if (type === 'chat.send.res') {
      const answer = payload as ChatSendResponse;
      const send = this.pending.get(answer.runId);
      if (send === undefined) return;
      this.pending.delete(answer.runId);
      this.ledger.acknowledged(send.typedKey, ctx.clock.nowMs());
      ctx.note('client-answer', { session: send.sessionKey, key: answer.runId, status: answer.status, connection: this.connection });
    } else if (type === 'chat.resumed') {
      if (this.resumed || (payload as ChatResumed).connection !== this.connection) return;
      this.resumed = true;
      ctx.note('client-resumed', { connection: this.connection });
      for (const send of this.pending.values()) if (send.connection !== this.connection) this.send(ctx, send);
    } else if (type === 'chat') this.show(ctx, payload as ChatFinalEvent);
  }

  private show(ctx: ProcessContext, event: ChatFinalEvent): void {
    const last = this.lastSeq.get(event.sessionKey) ?? 0;
    // OpenClaw's client reports a gap and shows the event anyway; the seq it resumes from is the highest it was shown.
    this.lastSeq.set(event.sessionKey, Math.max(last, event.seq));
    const atMs = ctx.clock.nowMs();
    this.ledger.clientReceived({ sessionKey: event.sessionKey, seq: event.seq, messageId: event.messageId, connection: event.connection, atMs, shown: this.ledger.shown.length });
    this.ledger.userShown(event.sessionKey, event.text, event.kind, atMs);
    ctx.note('client-shown', { session: event.sessionKey, key: event.messageId, seq: event.seq, gap: event.seq > last + 1 ? 1 : 0, connection: event.connection });
  }
}

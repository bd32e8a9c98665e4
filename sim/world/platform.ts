// The simulated chat platform: the world the gateway talks to, never killed. Inbound: a user message is delivered
// to the gateway as a webhook with a platform delivery id and redelivered every platformRedeliverMs until the
// gateway acknowledges it (at most platformRedeliveriesMax times). Outbound: the platform accepts a send, drops a
// repeat of the same client idempotency key (as platforms with client message ids do), and acknowledges either
// way; the acknowledgement may be lost. A key-less platform (`honoursKeys` false: some chat APIs take no client
// key) shows every send it accepts, so a second send of one row is a second message the user sees. What the platform
// accepted is what the user saw. The platform is part of the world: it writes what the user typed, each delivery and
// acknowledgement, every send that reached it (with its key, shown or dropped as a repeat) and what the user was shown
// into the ground-truth ledger.
import type { ModelTimers } from '../../src/config.ts';
import type { ProcessContext } from '../../src/ports.ts';
import { type InboundAck, type InboundMessage, messageType, type OutboundSend, type SendAck } from '../../src/protocol.ts';
import type { Ledger } from './ledger.ts';

/** What the user saw: a chat message in a session (the idempotency key is the platform's, for its dedupe). */
export interface VisibleMessage {
  sessionKey: string;
  key: string;
  text: string;
  kind: string;
  atMs: number;
}

export interface UserMessage {
  deliveryId: string;
  sessionKey: string;
  text: string;
  sentAtMs: number;
}

export class Platform {
  readonly visible: VisibleMessage[] = [];
  readonly sent: UserMessage[] = [];
  /** Delivery ids the gateway acknowledged: what it accepted, as the platform saw it. */
  readonly acknowledged = new Set<string>();
  private readonly keys = new Set<string>();
  private readonly unacked = new Map<string, { message: InboundMessage; deliveries: number }>();
  private ctx: ProcessContext | undefined;

  constructor(
    private readonly timers: ModelTimers,
    private readonly gatewayName: string,
    private readonly ledger: Ledger,
    /** Whether the platform drops a repeat of a client idempotency key (false: it has no such key). */
    readonly honoursKeys = true,
  ) {
    ledger.platformHonoursKeys = honoursKeys;
  }

  async main(ctx: ProcessContext): Promise<void> {
    this.ctx = ctx;
    for (;;) {
      const delivery = await ctx.net.receive();
      const type = messageType(delivery.payload);
      if (type === 'send') this.accept(ctx, delivery.payload as OutboundSend);
      else if (type === 'inbound.ack') {
        const deliveryId = (delivery.payload as InboundAck).deliveryId;
        this.unacked.delete(deliveryId);
        this.acknowledged.add(deliveryId);
        this.ledger.acknowledged(deliveryId, ctx.clock.nowMs());
      }
    }
  }

  /**
   * The user types a message (called from a workload event). `mentions` false is a message in a group chat that
   * does not address the agent: the platform delivers it with isMention false, and nobody owes it a reply.
   */
  userSays(sessionKey: string, deliveryId: string, text: string, marker: string, mentions = true): void {
    const ctx = this.ctx;
    if (ctx === undefined) return;
    const message: InboundMessage = { type: 'inbound', deliveryId, sessionKey, text, mention: mentions };
    this.sent.push({ deliveryId, sessionKey, text, sentAtMs: ctx.clock.nowMs() });
    this.ledger.userTyped({ sessionKey, deliveryId, text, marker, mentions, sentAtMs: ctx.clock.nowMs() });
    this.unacked.set(deliveryId, { message, deliveries: 0 });
    ctx.note('user-says', { session: sessionKey, delivery: deliveryId, text });
    this.deliver(ctx, deliveryId);
  }

  private deliver(ctx: ProcessContext, deliveryId: string): void {
    const pending = this.unacked.get(deliveryId);
    if (pending === undefined) return;
    pending.deliveries++;
    this.ledger.delivered(deliveryId, ctx.clock.nowMs());
    ctx.net.send(this.gatewayName, pending.message);
    if (pending.deliveries > this.timers.platformRedeliveriesMax) {
      this.unacked.delete(deliveryId);
      ctx.note('inbound-abandoned', { delivery: deliveryId });
      return;
    }
    ctx.timers.setTimer(this.timers.platformRedeliverMs, () => this.deliver(ctx, deliveryId));
  }

  private accept(ctx: ProcessContext, send: OutboundSend): void {
    const attempt = { sessionKey: send.sessionKey, key: send.key, kind: send.kind, text: send.text, atMs: ctx.clock.nowMs() };
    if (!this.honoursKeys || !this.keys.has(send.key)) {
      this.ledger.sendReceived({ ...attempt, shown: this.ledger.shown.length });
      this.keys.add(send.key);
      const visible: VisibleMessage = {
        sessionKey: send.sessionKey,
        key: send.key,
        text: send.text,
        kind: send.kind,
        atMs: ctx.clock.nowMs(),
      };
      this.visible.push(visible);
      this.ledger.userShown(send.sessionKey, send.text, send.kind, visible.atMs);
      ctx.note('visible', { session: send.sessionKey, key: send.key, kind: send.kind, text: send.text });
    } else {
      this.ledger.sendReceived({ ...attempt, shown: null });
      ctx.note('platform-duplicate-key', { key: send.key });
    }
    ctx.net.send(this.gatewayName, { type: 'send.ack', key: send.key } satisfies SendAck);
  }
}

// The simulated chat platform: the world the gateway talks to, never killed. Inbound: a user message is delivered
// to the gateway as a webhook with a platform delivery id and redelivered every platformRedeliverMs until the
// gateway acknowledges it (at most platformRedeliveriesMax times). Outbound: the platform accepts a send, drops a
// repeat of the same client idempotency key (as platforms with client message ids do), and acknowledges either
// way; the acknowledgement may be lost. A key-less platform (`honoursKeys` false: some chat APIs take no client
// key) shows every send it accepts, so a second send of one row is a second message the user sees. What the platform
// accepted is what the user saw. The platform is part of the world: it writes what the user typed, each delivery and
// acknowledgement, every send that reached it (with its key, shown or dropped as a repeat) and what the user was shown
// into the ground-truth ledger.
// Refusals and ambiguous results (issue 48 items 1 and 2; off unless a run configures them): the platform may refuse a
// send with a typed refusal and take nothing (a text over its length limit, always; while the faults last, a chat not
// found in a window of the plan, the gateway's listener not ready yet for a while after each gateway start, flood
// control on a chat for a retry-after drawn in whole seconds, during which every send to the chat is refused with the
// time left), and it may take a send and lose its answer (no acknowledgement) or answer only after several seconds.
// Each refusal and each ambiguous result is a fault of the world (on the trace) and the refusal a fact of the ledger.
import type { ModelTimers } from '../../src/config.ts';
import type { ProcessContext, Random } from '../../src/ports.ts';
import { type InboundAck, type InboundMessage, messageType, type OutboundSend, type SendAck, type SendRefusalReason, type SendRefused } from '../../src/protocol.ts';
import type { Ledger } from './ledger.ts';

/** How a run's platform refuses sends and answers ambiguously (issue 48); see the file's opening comment. */
export interface PlatformRefusals {
  /** The longest text the platform takes in one message (Telegram 4096, Discord 2000). */
  textLimit: number;
  /** Per 1000 sends while the faults last: the chat hits flood control (a 429 with retry_after). */
  rateLimitPer1000: number;
  /** The retry_after of a flood, drawn in whole seconds from 1 s to this (ms). */
  retryAfterMsMax: number;
  /** Windows when a session's chat is not found (the bot removed from it): every send to it is refused. */
  notFound: readonly { sessionKey: string; fromMs: number; toMs: number }[];
  /** After each gateway start while the faults last, its listener is not ready for 0 to this many ms. */
  notReadyMsMax: number;
  /** Per 1000 sends taken while the faults last: the answer is lost, or comes 5 to 15 s late. */
  ambiguousPer1000: number;
}

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
  private refusals: { knobs: PlatformRefusals; random: Random; recordFault: (fields: Record<string, string | number>) => void } | undefined;
  /**
   * Tests script the platform's answers to chosen sends (as the LLM API's `script`): a refusal, or an answer lost or
   * late; consulted before the drawn ones, and only on a platform configured to refuse.
   */
  script: { refuse?: (send: OutboundSend, nowMs: number) => { reason: SendRefusalReason; retryAfterMs: number } | undefined; answer?: (send: OutboundSend) => 'lost' | number | undefined } = {};
  /** Whether the faults last (refusals other than too-long and ambiguous results happen only then). */
  faultsActive = true;
  private notReadyUntilMs = 0;
  private readonly floodUntilMs = new Map<string, number>();

  constructor(
    private readonly timers: ModelTimers,
    private readonly gatewayName: string,
    private readonly ledger: Ledger,
    /** Whether the platform drops a repeat of a client idempotency key (false: it has no such key). */
    readonly honoursKeys = true,
  ) {
    ledger.platformHonoursKeys = honoursKeys;
  }

  /** Refusals and ambiguous results for this run (issue 48), drawn from `random` (a sub-stream of the world's own). */
  configureRefusals(knobs: PlatformRefusals, random: Random, recordFault: (fields: Record<string, string | number>) => void): void {
    if (!Number.isSafeInteger(knobs.textLimit) || knobs.textLimit < 1) throw new Error(`platform: the text limit must be a positive integer, not ${knobs.textLimit}`);
    if (knobs.retryAfterMsMax < 1_000) throw new Error(`platform: a retry-after is at least 1 s, so its maximum (${knobs.retryAfterMsMax} ms) must be too`);
    for (const rate of [knobs.rateLimitPer1000, knobs.ambiguousPer1000]) if (!Number.isSafeInteger(rate) || rate < 0 || rate > 1000) throw new Error(`platform: a rate per 1000 must be an integer from 0 to 1000, not ${rate}`);
    this.refusals = { knobs, random, recordFault };
  }

  /** The gateway (re)started: its listener connects at readyAtMs plus a drawn wait (only while the faults last). */
  gatewayStarted(readyAtMs: number): void {
    const refusals = this.refusals;
    if (refusals === undefined) return;
    const waitMs = refusals.random.int(0, refusals.knobs.notReadyMsMax);
    if (this.faultsActive && waitMs > 0) this.notReadyUntilMs = readyAtMs + waitMs;
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

  /** The refusal the platform answers this send with, if any (every draw made on every send while configured). */
  private refusalOf(send: OutboundSend, nowMs: number): { reason: SendRefusalReason; retryAfterMs: number } | undefined {
    const refusals = this.refusals;
    if (refusals === undefined) return undefined;
    const { knobs, random } = refusals;
    const floods = random.chance(knobs.rateLimitPer1000, 1000);
    const retryAfterMs = 1_000 * random.int(1, Math.floor(knobs.retryAfterMsMax / 1_000));
    if (send.text.length > knobs.textLimit) return { reason: 'too-long', retryAfterMs: 0 };
    if (!this.faultsActive) return undefined;
    if (knobs.notFound.some((window) => window.sessionKey === send.sessionKey && nowMs >= window.fromMs && nowMs < window.toMs)) return { reason: 'not-found', retryAfterMs: 0 };
    if (nowMs < this.notReadyUntilMs) return { reason: 'not-ready', retryAfterMs: 0 };
    const floodUntilMs = this.floodUntilMs.get(send.sessionKey) ?? 0;
    // Flood control holds the chat until its retry-after has passed, and says how long is left (whole seconds).
    if (nowMs < floodUntilMs) return { reason: 'rate-limit', retryAfterMs: 1_000 * Math.ceil((floodUntilMs - nowMs) / 1_000) };
    if (!floods) return undefined;
    this.floodUntilMs.set(send.sessionKey, nowMs + retryAfterMs);
    return { reason: 'rate-limit', retryAfterMs };
  }

  private refuse(ctx: ProcessContext, send: OutboundSend, refusal: { reason: SendRefusalReason; retryAfterMs: number }): void {
    const nowMs = ctx.clock.nowMs();
    this.ledger.sendRefused({ sessionKey: send.sessionKey, key: send.key, kind: send.kind, text: send.text, atMs: nowMs, reason: refusal.reason, permanent: refusal.reason === 'not-found', retryAfterMs: refusal.retryAfterMs });
    this.refusals?.recordFault({ kind: 'send-refused', reason: refusal.reason, session: send.sessionKey, key: send.key, retryAfterMs: refusal.retryAfterMs });
    ctx.net.send(this.gatewayName, { type: 'send.refused', key: send.key, reason: refusal.reason, retryAfterMs: refusal.retryAfterMs, ...(send.attempt === undefined ? {} : { attempt: send.attempt }) } satisfies SendRefused);
  }

  /** Whether the send's answer is lost (`lost`), late by some ms, or on time (undefined); drawn on every send taken. */
  private ambiguity(): 'lost' | number | undefined {
    const refusals = this.refusals;
    if (refusals === undefined) return undefined;
    const ambiguous = refusals.random.chance(refusals.knobs.ambiguousPer1000, 1000);
    const lost = refusals.random.chance(1, 2);
    const lateMs = refusals.random.int(5_000, 15_000);
    if (!ambiguous || !this.faultsActive) return undefined;
    return lost ? 'lost' : lateMs;
  }

  private accept(ctx: ProcessContext, send: OutboundSend): void {
    const refusal = this.refusals === undefined ? undefined : (this.script.refuse?.(send, ctx.clock.nowMs()) ?? this.refusalOf(send, ctx.clock.nowMs()));
    if (refusal !== undefined) {
      this.refuse(ctx, send, refusal);
      return;
    }
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
    const drawn = this.ambiguity();
    const ambiguity = this.refusals === undefined ? undefined : (this.script.answer?.(send) ?? drawn);
    const ack = { type: 'send.ack', key: send.key } satisfies SendAck;
    if (ambiguity === undefined) {
      ctx.net.send(this.gatewayName, ack);
      return;
    }
    // The platform took it; its answer is lost, or comes after the sender has most likely stopped waiting.
    this.refusals?.recordFault({ kind: 'send-ambiguous', session: send.sessionKey, key: send.key, lateMs: ambiguity === 'lost' ? -1 : ambiguity });
    if (ambiguity !== 'lost') ctx.timers.setTimer(ambiguity, () => ctx.net.send(this.gatewayName, ack));
  }
}

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
import { assert } from './assert.ts';
import type { ModelConfig } from './config.ts';
import type { ProcessContext, WatchedDatabase } from './ports.ts';
import { idlePoll, watch } from './idle-poll.ts';
import { type OutboundSend, platformName } from './protocol.ts';
import { ignoreBusy, retryBusy } from './busy.ts';
import { ReplyWaiter } from './reply-waiter.ts';
import type { SessionDbs } from './session-dbs.ts';
import type { DeliveryMirror } from './delivery-mirror.ts';
import type { ChatConnections } from './chat-send.ts';

/** How long a poller waits for the platform's acknowledgement of a send before it counts the send failed. */
export const sendAckTimeoutMs = 5_000;

export class DeliveryPollers {
  private readonly inFlight = new Set<string>();
  /** Keys acknowledged after their wait timed out (their delivered mark may not have committed yet; an incarnation keeps the few it gets). */
  private readonly lateAcked = new Set<string>();
  private readonly acks: ReplyWaiter;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly config: ModelConfig,
    private readonly dbs: SessionDbs,
    private readonly mirror?: DeliveryMirror,
    /** Client connections (chat-send.ts): a client session's replies are published on its event stream instead. */
    private readonly chat?: ChatConnections,
  ) {
    this.acks = new ReplyWaiter(ctx.timers, sendAckTimeoutMs, false);
  }

  onAck(key: string): void {
    if (this.acks.settle(key, true)) return;
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
      const bumped = await ignoreBusy(outbound.run('UPDATE messages_out SET attempts = attempts + 1 WHERE id = ? AND delivered = 0', [key]));
      if (bumped === undefined || bumped.changes === 0) continue;
      const text = (JSON.parse(row.content as string) as { text: string }).text;
      assert(typeof text === 'string', `messages_out row ${key} holds {"text": ...}`);
      const send: OutboundSend = {
        type: 'send',
        key,
        sessionKey,
        text,
        kind: row.kind as string,
      };
      this.ctx.note('deliver-attempt', { session: sessionKey, key, poller: speed });
      const acked = await this.sendAndWait(send);
      if (!acked) continue;
      assert(this.inFlight.has(sessionKey), `${sessionKey} is delivered under its in-flight guard`);
      if (this.mirror !== undefined && send.kind !== 'reaction') await this.mirror.mirrorDelivered(sessionKey, text, key);
      await this.markDelivered(sessionKey, key);
      this.ctx.note('delivered', { session: sessionKey, key });
    }
    return undefined;
  }

  private sendAndWait(send: OutboundSend): Promise<boolean> {
    return this.acks.wait(send.key, () => this.ctx.net.send(platformName, send));
  }
}

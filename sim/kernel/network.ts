// The network: directed links between named endpoints (an endpoint is a process name). The model of a link:
// - every message takes a delay drawn from the link's distribution (integer, skewed to the minimum);
// - it may be dropped, or duplicated (a replay of the message, delivered again later), per the link's faults; on a
//   reconnecting link a drop also breaks the connection (a connection never loses a message silently);
// - without `reorder` a link is FIFO (a message never overtakes an earlier one); with it, delays are independent;
// - partition/heal cut and restore both directions; messages sent while partitioned are lost;
// - hold/release park messages on a link and let them go later, in order;
// - a reconnecting link is a connection (as a WebSocket): the sender keeps every message until the receiver
//   acknowledges it; `reset` kills the connection (everything in flight, both ways, is lost) and after the
//   reconnect delay the sender resends every message it has not seen acknowledged. This is at-least-once: a message
//   whose acknowledgement was lost arrives twice. A heal of a partitioned connection reconnects the same way.
// A message for an endpoint whose process is not running is lost. A kill clears the process's mailbox and its
// resend buffers (they were memory).
// Each pair of endpoints joined by a reconnecting link has a connection number (both directions share it, as one
// WebSocket carries both): a new number whenever the connection dies and is made again (a reset, a drop on the
// connection, a kill of either end, a heal of a partition). A delivery names the connection it came over; a process
// can ask for its current connection with a peer. Neither draws from the PRNG nor adds to the trace.
import type { Delivery } from '../../src/ports.ts';
import { assert } from './assert.ts';
import type { Incarnation, ProcessTable } from './process.ts';
import type { Prng } from './prng.ts';
import type { Scheduler } from './scheduler.ts';
import type { Trace } from './trace.ts';

export interface LinkConfig {
  delayMsMin: number;
  delayMsMax: number;
  dropPer1000: number;
  duplicatePer1000: number;
  /** How late a duplicate arrives after the original, at most. */
  duplicateDelayMsMax: number;
  reorder: boolean;
  reconnecting: boolean;
  reconnectDelayMs: number;
}

export const defaultLinkConfig: LinkConfig = {
  delayMsMin: 1,
  delayMsMax: 20,
  dropPer1000: 0,
  duplicatePer1000: 0,
  duplicateDelayMsMax: 60_000,
  reorder: false,
  reconnecting: false,
  reconnectDelayMs: 1_000,
};

interface Envelope {
  from: string;
  to: string;
  payload: unknown;
  /** Sequence on a reconnecting link, 0 otherwise. */
  seq: number;
  /** Trace id of the original send. */
  messageId: number;
}

interface LinkState {
  from: string;
  to: string;
  config: LinkConfig;
  partitioned: boolean;
  held: Envelope[] | undefined;
  lastDeliverAtMs: number;
  /** Bumped by a reset: anything in flight from an older epoch is lost. */
  epoch: number;
  nextSeq: number;
  /** Sender-side resend buffer of a reconnecting link, by seq. Owned by the sender's incarnation. */
  unacked: Map<number, Envelope>;
  senderIncarnation: number;
  reconnectPending: boolean;
}

interface Mailbox {
  incarnation: Incarnation;
  queue: Delivery[];
  waiting: ((delivery: Delivery) => void)[];
}

export class SimNetwork {
  private readonly links = new Map<string, LinkState>();
  private readonly mailboxes = new Map<string, Mailbox>();
  /** The connection number of each pair of endpoints (by `pairKey`), bumped each time their connection dies. */
  private readonly connections = new Map<string, number>();
  /** The link key and the pair key of two ends, built once: the client asks for its connection at every tick. */
  private readonly keys = new Map<string, Map<string, { link: string; pair: string }>>();
  private messageCount = 0;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly trace: Trace,
    private readonly processes: ProcessTable,
    private readonly prng: Prng,
  ) {}

  configure(from: string, to: string, config: Partial<LinkConfig>): void {
    const link = this.link(from, to);
    link.config = { ...link.config, ...config };
    assert(link.config.delayMsMin <= link.config.delayMsMax, 'link delay range is empty');
  }

  /** Called when an incarnation starts: it gets a fresh, empty mailbox. */
  attach(incarnation: Incarnation): void {
    const mailbox: Mailbox = { incarnation, queue: [], waiting: [] };
    this.mailboxes.set(incarnation.name, mailbox);
    incarnation.onKill(() => {
      if (this.mailboxes.get(incarnation.name) === mailbox) this.mailboxes.delete(incarnation.name);
      const ended = new Set<string>();
      for (const link of this.links.values()) {
        if (link.senderIncarnation === incarnation.id) link.unacked.clear();
        // The process's connections die with it; the peers' clients reconnect and resend.
        if (link.config.reconnecting && (link.from === incarnation.name || link.to === incarnation.name)) {
          link.epoch++;
          // One new connection per pair, whichever of its two links comes first.
          if (!ended.has(pairKey(link.from, link.to))) this.newConnection(link.from, link.to);
          ended.add(pairKey(link.from, link.to));
          link.held = link.held === undefined ? undefined : [];
          this.scheduleReconnect(link);
        }
      }
    });
  }

  send(sender: Incarnation, to: string, payload: unknown): void {
    this.scheduler.activity++;
    if (!sender.alive) return;
    const link = this.link(sender.name, to);
    const messageId = ++this.messageCount;
    let seq = 0;
    if (link.config.reconnecting) {
      if (link.senderIncarnation !== sender.id) {
        link.unacked.clear();
        link.senderIncarnation = sender.id;
      }
      seq = ++link.nextSeq;
    }
    const envelope: Envelope = { from: sender.name, to, payload, seq, messageId };
    if (seq > 0) {
      assert(!link.unacked.has(seq), `sequence ${seq} reused on ${link.from}->${link.to}`);
      link.unacked.set(seq, envelope);
    }
    this.trace.record('net.send', { from: sender.name, to, id: messageId, seq, kind: payloadKind(payload) });
    this.transmit(link, envelope);
  }

  receive(receiver: Incarnation): Promise<Delivery> {
    return receiver.suspend<Delivery>((resume) => {
      const mailbox = this.mailboxes.get(receiver.name);
      if (mailbox === undefined || mailbox.incarnation !== receiver) return;
      const ready = mailbox.queue.shift();
      if (ready !== undefined) {
        // Resume from an event so every resumption happens inside a step.
        this.scheduler.schedule(0, () => resume(ready), receiver.id);
      } else {
        mailbox.waiting.push(resume);
      }
    });
  }

  partition(a: string, b: string): void {
    this.trace.record('net.partition', { a, b });
    this.link(a, b).partitioned = true;
    this.link(b, a).partitioned = true;
  }

  heal(a: string, b: string): void {
    const links = [this.link(a, b), this.link(b, a)];
    if (!links.some((link) => link.partitioned)) return;
    this.trace.record('net.heal', { a, b });
    if (links.some((link) => link.partitioned && link.config.reconnecting)) this.newConnection(a, b);
    for (const link of links) {
      if (!link.partitioned) continue;
      link.partitioned = false;
      if (link.config.reconnecting) this.scheduleReconnect(link);
    }
  }

  hold(a: string, b: string): void {
    this.trace.record('net.hold', { a, b });
    const link = this.link(a, b);
    if (link.held === undefined) link.held = [];
  }

  release(a: string, b: string): void {
    const link = this.link(a, b);
    if (link.held === undefined) return;
    const held = link.held;
    link.held = undefined;
    this.trace.record('net.release', { a, b, count: held.length });
    for (const envelope of held) this.transmit(link, envelope);
  }

  /** Kill the connection between a and b (both directions); reconnecting senders resend after the delay. */
  reset(a: string, b: string): void {
    this.trace.record('net.reset', { a, b });
    this.newConnection(a, b);
    for (const link of [this.link(a, b), this.link(b, a)]) {
      link.epoch++;
      // Messages parked on the dead connection die with it.
      if (link.held !== undefined) link.held = [];
      if (link.config.reconnecting) this.scheduleReconnect(link);
    }
  }

  /** The current connection number between two endpoints (0 until their connection first dies). */
  connection(a: string, b: string): number {
    return this.connections.get(this.keysOf(a, b).pair) ?? 0;
  }

  private newConnection(a: string, b: string): void {
    const key = this.keysOf(a, b).pair;
    this.connections.set(key, (this.connections.get(key) ?? 0) + 1);
  }

  unackedCount(from: string, to: string): number {
    return this.link(from, to).unacked.size;
  }

  private scheduleReconnect(link: LinkState): void {
    assert(link.config.reconnecting, `reconnect of a link that is not a connection: ${link.from}->${link.to}`);
    if (link.reconnectPending) return;
    link.reconnectPending = true;
    this.scheduler.schedule(link.config.reconnectDelayMs, () => {
      link.reconnectPending = false;
      if (link.partitioned) return;
      if (!this.processes.isRunning(link.to)) {
        // Nobody to connect to yet: the client keeps trying.
        this.scheduleReconnect(link);
        return;
      }
      const sender = this.processes.current(link.from);
      this.trace.record('net.reconnect', { link: `${link.from}->${link.to}`, unacked: link.unacked.size });
      if (sender === undefined || sender.id !== link.senderIncarnation) return;
      for (const envelope of link.unacked.values()) {
        this.trace.record('net.resend', { from: envelope.from, to: envelope.to, id: envelope.messageId, seq: envelope.seq });
        this.transmit(link, envelope);
      }
    });
  }

  private transmit(link: LinkState, envelope: Envelope): void {
    const config = link.config;
    if (link.partitioned) {
      this.trace.record('net.drop', { id: envelope.messageId, reason: 'partition' });
      return;
    }
    if (link.held !== undefined) {
      link.held.push(envelope);
      return;
    }
    if (this.prng.chance(config.dropPer1000, 1000)) {
      this.trace.record('net.drop', { id: envelope.messageId, reason: 'fault' });
      // A connection does not lose a message and carry on (TCP retransmits): the loss breaks the connection, and the
      // sender reconnects and resends what is unacknowledged.
      if (config.reconnecting) this.reset(link.from, link.to);
      return;
    }
    const now = this.scheduler.clock.nowMs();
    let deliverAtMs = now + this.prng.skewed(config.delayMsMin, config.delayMsMax);
    assert(deliverAtMs >= now + config.delayMsMin && deliverAtMs <= now + config.delayMsMax, 'link delay outside its range');
    if (!config.reorder) deliverAtMs = Math.max(deliverAtMs, link.lastDeliverAtMs);
    link.lastDeliverAtMs = Math.max(link.lastDeliverAtMs, deliverAtMs);
    // FIFO: without reorder, nothing sent later is delivered earlier.
    assert(config.reorder || deliverAtMs === link.lastDeliverAtMs, 'a FIFO link would deliver out of order');
    const epoch = link.epoch;
    this.scheduler.scheduleAt(deliverAtMs, () => {
      if (!this.arrive(link, envelope, epoch, false)) return;
      // A duplicate is a replay of a message that was delivered, arriving again later.
      if (this.prng.chance(link.config.duplicatePer1000, 1000)) {
        const replayDelayMs = this.prng.int(1, Math.max(1, link.config.duplicateDelayMsMax));
        this.scheduler.schedule(replayDelayMs, () => this.arrive(link, envelope, link.epoch, true));
      }
    });
  }

  /** Returns whether the message reached a mailbox. */
  private arrive(link: LinkState, envelope: Envelope, epoch: number, duplicate: boolean): boolean {
    if (epoch !== link.epoch) {
      this.trace.record('net.drop', { id: envelope.messageId, reason: 'reset' });
      return false;
    }
    if (link.partitioned) {
      this.trace.record('net.drop', { id: envelope.messageId, reason: 'partition' });
      return false;
    }
    assert(envelope.from === link.from && envelope.to === link.to, 'an envelope arrived on another link');
    const mailbox = this.mailboxes.get(envelope.to);
    if (mailbox === undefined || !mailbox.incarnation.alive) {
      this.trace.record('net.drop', { id: envelope.messageId, reason: 'not-running' });
      return false;
    }
    this.trace.record(duplicate ? 'net.duplicate' : 'net.deliver', {
      from: envelope.from,
      to: envelope.to,
      id: envelope.messageId,
      seq: envelope.seq,
    });
    const delivery: Delivery = {
      from: envelope.from,
      payload: envelope.payload,
      ...(link.config.reconnecting ? { connection: this.connection(link.from, link.to) } : {}),
      ack: () => this.ack(link, envelope, mailbox.incarnation),
    };
    const waiter = mailbox.waiting.shift();
    if (waiter !== undefined) {
      // A receiver waits only on an empty mailbox.
      assert(mailbox.queue.length === 0, 'a receiver waited while deliveries were queued');
      waiter(delivery);
    } else mailbox.queue.push(delivery);
    return true;
  }

  /** The receiver acknowledges; the ack travels back and, if the connection survives, clears the resend buffer. */
  private ack(link: LinkState, envelope: Envelope, receiver: Incarnation): void {
    this.scheduler.activity++;
    if (!receiver.alive || envelope.seq === 0) return;
    const back = this.link(envelope.to, envelope.from);
    if (back.partitioned) return;
    const epoch = link.epoch;
    const delayMs = this.prng.skewed(back.config.delayMsMin, back.config.delayMsMax);
    this.scheduler.schedule(delayMs, () => {
      if (link.epoch !== epoch) return;
      link.unacked.delete(envelope.seq);
    });
  }

  private keysOf(from: string, to: string): { link: string; pair: string } {
    let byTo = this.keys.get(from);
    if (byTo === undefined) this.keys.set(from, (byTo = new Map()));
    let keys = byTo.get(to);
    if (keys === undefined) byTo.set(to, (keys = { link: `${from}->${to}`, pair: pairKey(from, to) }));
    return keys;
  }

  private link(from: string, to: string): LinkState {
    const key = this.keysOf(from, to).link;
    let link = this.links.get(key);
    if (link === undefined) {
      link = {
        from,
        to,
        config: { ...defaultLinkConfig },
        partitioned: false,
        held: undefined,
        lastDeliverAtMs: 0,
        epoch: 0,
        nextSeq: 0,
        unacked: new Map(),
        senderIncarnation: 0,
        reconnectPending: false,
      };
      this.links.set(key, link);
    }
    return link;
  }
}

/** The key of an unordered pair of endpoints. */
function pairKey(a: string, b: string): string {
  return a < b ? `${a}<->${b}` : `${b}<->${a}`;
}

function payloadKind(payload: unknown): string {
  if (typeof payload === 'object' && payload !== null && 'type' in payload) {
    const type = (payload as { type: unknown }).type;
    if (typeof type === 'string') return type;
  }
  return typeof payload;
}

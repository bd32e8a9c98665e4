// A hand-built history of a key-less platform for the at-least-once checker tests: the network's trace events
// (sends, deliveries, replays), the kernel's kills and restarts, and the ledger's showings, written the way the
// kernel and the platform write them (the platform shows a send as it arrives and puts its acknowledgement on the
// wire at that instant). It lets a test place a lost acknowledgement, a kill or a replay at an exact step, which a
// whole run reaches only by luck, and hand the checker the observations it reads, nothing else.
import { kernelFacts, type Observations } from '../../sim/checkers/observations.ts';
import type { TraceEvent, TraceFields, TraceKind } from '../../sim/kernel/trace.ts';
import { Ledger, type LlmRequestFact, type ShownFact } from '../../sim/world/ledger.ts';

export const gateway = 'gateway';
export const platform = 'platform';
export const session = 'telegram:chat-1';

export class KeylessHistory {
  readonly ledger = new Ledger();
  readonly events: TraceEvent[] = [];
  private messageCount = 0;
  private incarnation = 1;

  constructor() {
    this.ledger.platformHonoursKeys = false;
    this.record(0, 'proc.spawn', { name: gateway, incarnation: this.incarnation });
  }

  /** The gateway puts a message of `kind` on the wire to the platform; returns the network's id for it. */
  gatewaySends(atMs: number, kind = 'send'): number {
    return this.send(atMs, gateway, platform, kind);
  }

  /**
   * The gateway's send `id` arrives at the platform (a replay of it when `replay`): the platform records the send
   * (with its idempotency key: by default one of its own per network message), shows `text` and acknowledges. Returns the showing and the id of the acknowledgement, which reaches the gateway only when the test
   * calls `arrives` for it.
   */
  platformShows(atMs: number, id: number, text: string, replay = false, key = `row-${id}`): { shown: ShownFact; ackId: number } {
    this.record(atMs, replay ? 'net.duplicate' : 'net.deliver', { from: gateway, to: platform, id, seq: 0 });
    this.ledger.sendReceived({ sessionKey: session, key, kind: 'message', text, atMs, shown: this.ledger.shown.length });
    this.ledger.userShown(session, text, 'message', atMs);
    const shown = this.ledger.shown.at(-1);
    if (shown === undefined) throw new Error('the ledger recorded no showing');
    return { shown, ackId: this.send(atMs, platform, gateway, 'send.ack') };
  }

  /**
   * The gateway sends `text` at `atMs`; the platform shows it 10 ms later, and its acknowledgement reaches the gateway
   * 5 ms after that, unless `acknowledged` is false (the network drops the acknowledgement then: it is lost).
   */
  sendsAndShows(atMs: number, text: string, acknowledged = true): { shown: ShownFact; ackId: number } {
    const showing = this.platformShows(atMs + 10, this.gatewaySends(atMs), text);
    if (acknowledged) this.arrives(atMs + 15, showing.ackId);
    else this.drops(atMs + 15, showing.ackId);
    return showing;
  }

  /** The network drops message `id` (an acknowledgement on its way to the gateway). */
  drops(atMs: number, id: number): void {
    this.record(atMs, 'net.drop', { id, reason: 'fault' });
  }

  /** Message `id` (an acknowledgement) arrives at the gateway. */
  arrives(atMs: number, id: number): void {
    this.record(atMs, 'net.deliver', { from: platform, to: gateway, id, seq: 0 });
  }

  /** The network holds the gateway's link to the platform (sends are parked) until `releaseAtMs`. */
  holdGatewayLink(atMs: number, releaseAtMs: number): void {
    this.record(atMs, 'net.hold', { a: gateway, b: platform });
    this.record(releaseAtMs, 'net.release', { a: gateway, b: platform, count: 0 });
  }

  /**
   * The LLM answers `request` at `atMs`: a closing text with one block for the user, after one send_message tool call
   * of `toolText` when given (its id `call-<request index>`).
   */
  answers(request: LlmRequestFact, closing: string, atMs: number, toolText?: string): void {
    const toolCalls = toolText === undefined ? [] : [{ id: `call-${request.index}`, name: 'send_message' as const, text: toolText }];
    this.ledger.answerReturned(request, { toolCalls, result: `<message to="user">${closing}</message>` }, atMs);
  }

  /** The world holds the gateway stopped (a stall) from `atMs` until `untilMs`. */
  stallGateway(atMs: number, untilMs: number): void {
    this.record(atMs, 'proc.stop', { name: gateway, incarnation: this.incarnation });
    this.record(untilMs, 'proc.cont', { name: gateway, incarnation: this.incarnation });
  }

  /** SIGKILL of the gateway, restarted `restartAfterMs` later. */
  killGateway(atMs: number, restartAfterMs: number): void {
    this.record(atMs, 'proc.kill', { name: gateway, incarnation: this.incarnation });
    this.incarnation++;
    this.record(atMs + restartAfterMs, 'proc.restart', { name: gateway, incarnation: this.incarnation });
  }

  /** A user message typed at `atMs` (acknowledged by the gateway at once). */
  userTypes(atMs: number, deliveryId: string, text: string): void {
    this.ledger.userTyped({ sessionKey: session, deliveryId, text, marker: `<${deliveryId}>`, mentions: true, sentAtMs: atMs });
    this.ledger.acknowledged(deliveryId, atMs);
  }

  observations(): Observations {
    const events = [...this.events].sort((a, b) => a.timeMs - b.timeMs || a.index - b.index).map((event, index) => ({ ...event, index }));
    return {
      sessions: [session],
      ledger: this.ledger,
      durable: { rows: [], families: new Map(), files: new Map(), transcripts: new Map() },
      kernel: kernelFacts(events),
      events,
      faultPhaseMs: 0,
      quiescenceGraceMs: 0,
      endMs: events.at(-1)?.timeMs ?? 0,
    };
  }

  private send(atMs: number, from: string, to: string, kind: string): number {
    const id = ++this.messageCount;
    this.record(atMs, 'net.send', { from, to, id, seq: 0, kind });
    return id;
  }

  private record(timeMs: number, kind: TraceKind, fields: TraceFields): void {
    this.events.push({ index: this.events.length, timeMs, kind, fields });
  }
}

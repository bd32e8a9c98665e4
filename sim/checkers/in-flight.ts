// One send in flight (docs/ARCHITECTURE.md section 5, issue 23 item 5): the platform sees every send that reaches it
// (the ledger's sendAttempts, with the client idempotency key the send carried), and the kernel sees when each left its
// sender and what became of the platform's acknowledgement. One outbound message (one key) is never in flight twice
// at once, and it is sent again only when the world shows a reason the sender had:
//   - a restart: the sender was killed between the earlier send and the new one (a new incarnation cannot know what
//     the old one sent);
//   - a timed-out wait: the new send left at least the sender's acknowledgement timeout (the system description's
//     sendAckTimeoutMs) after the earlier one;
//   - a lost acknowledgement: the network dropped the platform's acknowledgement of the earlier send before the new
//     one left;
//   - a refusal: the platform refused the earlier send (issue 48: flood control, a listener not ready) and its refusal
//     reached the sender before the new send left.
// And never when the sender knew the earlier send landed: an acknowledgement of it reached the sender while it waited
// (within sendAckTimeoutMs of the send, and before any kill of the sender: a later one finds the wait over, and a
// new incarnation never waited for it) before the new send, and no kill came in between (a kill after it excuses, as at-least-once.ts says why: the delivered mark may
// not have committed). A platform that honours keys drops such a repeat, so the user never sees it; the check is
// that the sender does not race itself, which a key-less platform would show. A send the network lost before it
// reached the platform is not seen here (nobody in the world saw its key). at-least-once.ts judges a key-less
// platform's repeated showings by the same reasons (`resendReason`).
import type { TraceEvent } from '../kernel/trace.ts';
import type { SendAttemptFact } from '../world/ledger.ts';
import type { Observations } from './observations.ts';
import { systemOf } from './observations.ts';
import { classOf, type Violation } from './violation.ts';

/** A message put on the wire, as the kernel's `net.send` recorded it. */
export interface NetSend {
  id: number;
  /** Index of the `net.send` event in the trace. */
  step: number;
  timeMs: number;
  from: string;
  to: string;
  kind: string;
}

/** What the network did with messages: where each arrived (steps, by id) and where each was dropped. */
export interface NetFates {
  sends: Map<number, NetSend>;
  arrivedAtSteps: Map<number, number[]>;
  droppedAtSteps: Map<number, number[]>;
  /** By send id: the platform's `send.refused` messages answering an arrival of it (its own or a network copy's). */
  refusalsOf: Map<number, number[]>;
}

export function netFates(events: readonly TraceEvent[]): NetFates {
  const sends = new Map<number, NetSend>();
  const arrivedAtSteps = new Map<number, number[]>();
  const droppedAtSteps = new Map<number, number[]>();
  const refusalsOf = new Map<number, number[]>();
  // The platform answers an arrival at once: a refusal is a `send-refused` fault and then its `send.refused` message,
  // in the arrival's instant (refusedArrivals below).
  let arrival: { id: number; timeMs: number; refused: boolean } | undefined;
  events.forEach((event, step) => {
    const id = Number(event.fields.id);
    if (arrival !== undefined && event.timeMs !== arrival.timeMs) arrival = undefined;
    if (event.kind === 'net.send') {
      sends.set(id, { id, step, timeMs: event.timeMs, from: String(event.fields.from), to: String(event.fields.to), kind: String(event.fields.kind) });
      if (arrival?.refused === true && event.fields.kind === 'send.refused') {
        push(refusalsOf, arrival.id, id);
        arrival = undefined;
      }
    } else if (event.kind === 'net.deliver' || event.kind === 'net.duplicate') {
      push(arrivedAtSteps, id, step);
      if (event.fields.to === 'platform') arrival = sends.get(id)?.kind === 'send' ? { id, timeMs: event.timeMs, refused: false } : undefined;
    } else if (event.kind === 'net.drop') push(droppedAtSteps, id, step);
    else if (event.kind === 'fault' && event.fields.kind === 'send-refused' && arrival !== undefined) arrival.refused = true;
  });
  return { sends, arrivedAtSteps, droppedAtSteps, refusalsOf };
}

/** Why a sender may have sent `resend` again after `first`, or `known` (it had the acknowledgement), or none. */
export type ResendReason = 'restart' | 'timeout' | 'lost-ack' | 'refused' | 'known' | undefined;

/**
 * The sender's reason to send `resend` after `first` (same sender), given the platform's acknowledgements of `first`.
 * With `onlyWithinWait`, an acknowledgement tells the sender only if it arrived while the sender waited for it; without
 * it, any acknowledgement that reached the sender counts (at-least-once.ts: its acknowledgements include those of
 * the link's replays of `first`, which stand in for what the sender learnt from its other sends of the message).
 */
export function resendReason(o: Observations, fates: NetFates, first: NetSend, resend: NetSend, acks: readonly NetSend[], onlyWithinWait = false): ResendReason {
  if (first.step > resend.step) throw new Error(`resendReason: send ${first.id} is not before ${resend.id}`);
  const killedWithin = (afterStep: number, beforeStep: number): boolean =>
    o.kernel.some((kill) => kill.kind === 'kill' && kill.process === resend.from && kill.step > afterStep && kill.step < beforeStep);
  const killedBetween = (afterStep: number): boolean => killedWithin(afterStep, resend.step);
  const ownAcks = acks.filter((ack) => ack.to === resend.from);
  // An acknowledgement tells the sender only while it still waits: one that arrives once the wait timed out finds no
  // one listening (campaign seed 101, chaos run 1897: the slow poller's wait ended at 5 s, its acknowledgement came
  // 74 ms later, and the fast poller sent the row again in that same millisecond). And only the incarnation that made
  // the send waits for it: an acknowledgement that arrives after the sender was killed reaches a new process that
  // never sent it (campaign seed 302, chaos run 6252: the gateway was killed 3 ms after its send, and the delayed
  // acknowledgement reached its successor in the millisecond that successor's poller sent the row again). Without
  // onlyWithinWait (at-least-once.ts) any acknowledgement handed in that reached the sender, a successor included,
  // counts; at-least-once.ts leaves out a late acknowledgement of the send's own showing before it asks.
  const waitEndsMs = onlyWithinWait ? first.timeMs + systemOf(o).sendAckTimeoutMs : Infinity;
  const knownAtSteps = ownAcks.flatMap((ack) =>
    (fates.arrivedAtSteps.get(ack.id) ?? [])
      .map((step) => heardAtStep(o, resend, step))
      .filter((step) => step < resend.step && (o.events[step]?.timeMs ?? Infinity) < waitEndsMs && !(onlyWithinWait && killedWithin(first.step, step))),
  );
  if (knownAtSteps.length > 0 && !killedBetween(Math.max(...knownAtSteps))) return 'known';
  if (killedBetween(first.step)) return 'restart';
  if (resend.timeMs - first.timeMs >= systemOf(o).sendAckTimeoutMs) return 'timeout';
  if (ownAcks.some((ack) => (fates.droppedAtSteps.get(ack.id) ?? []).some((step) => step < resend.step))) return 'lost-ack';
  // The platform refused an arrival of the send (issue 48: it took nothing and showed nothing), a network copy's
  // included, and the refusal reached the sender before the new send left: the sender was told the send was over. One
  // on a platform that ignores keys cannot tell a copy's refusal from its own send's, and sends again after the
  // retry-after (send-heavy chaos seed 3, run 8,226: a part shown, its answer lost; the network's replay of the send
  // refused by flood control; the gateway sent the part again a second later).
  const refusals = (fates.refusalsOf.get(first.id) ?? []).filter((id) => fates.sends.get(id)?.to === resend.from);
  if (refusals.some((id) => (fates.arrivedAtSteps.get(id) ?? []).some((step) => step < resend.step))) return 'refused';
  return undefined;
}

/**
 * When a message that arrived at `step` reached the process of `resend`: at once, unless the world held that
 * incarnation stopped then (a stall, the kernel's stop and cont). A stopped process hears it when it goes on, and in
 * that instant its timers that fell due run before its I/O (Node's event loop runs the timers phase before the poll
 * phase), so it tells the process only from a later instant: the cont's step when the resend came after the cont's
 * instant, else never before the resend (Infinity). Chaos seed 4, run 1,727 (the 20,000-run campaign on 157e17c): the
 * gateway stalled 15.6 s with a task's announce in flight, the acknowledgement came 0.7 s into the stall, and as the
 * gateway went on the announce's deadline had passed: it sent the direct fallback in that millisecond.
 */
function heardAtStep(o: Observations, resend: NetSend, step: number): number {
  const held = o.kernel.filter((fact) => fact.process === resend.from && (fact.kind === 'stop' || fact.kind === 'cont') && fact.step < step).at(-1);
  if (held?.kind !== 'stop') return step;
  const cont = o.kernel.find((fact) => fact.kind === 'cont' && fact.process === resend.from && fact.incarnation === held.incarnation && fact.step > step);
  return cont !== undefined && cont.timeMs < resend.timeMs ? cont.step : Infinity;
}

/** A send attempt the platform saw, tied to the message that carried it and to every acknowledgement of it. */
interface Attempt {
  send: NetSend;
  fact: SendAttemptFact;
  acks: NetSend[];
}

/**
 * The platform's acknowledgement of each send that arrived (by the arrival's step). The platform handles an arrival
 * at once: it shows the send (or drops it as a repeat of its key) and puts its `send.ack` on the wire before anything
 * else happens, unless the answer is ambiguous (issue 48: a `send-ambiguous` fault follows the arrival): lost (no
 * acknowledgement at all), or late by `lateMs` (the acknowledgement leaves then, on a timer, in the order the timers
 * were set). So an acknowledgement is the arrival's when it follows it in the same instant with no other arrival and no
 * fault in between, and a late one is the arrival's whose fault named its delay. (Pairing by count at an instant, as
 * before, gave one send's acknowledgement to another that arrived in the same millisecond and whose answer was lost:
 * block-streaming seed 1 run 1876, a block sent again after its wait timed out was called a send the gateway knew
 * had landed.)
 */
export function acksOfArrivals(events: readonly TraceEvent[]): Map<number, NetSend> {
  const out = new Map<number, NetSend>();
  const lateAt = new Map<number, number[]>();
  let open: { step: number; timeMs: number } | undefined;
  const claimed = new Set<number>();
  const kinds = new Map<number, string>();
  events.forEach((event, step) => {
    if (open !== undefined && event.timeMs !== open.timeMs) open = undefined;
    if (event.kind === 'net.send') kinds.set(Number(event.fields.id), String(event.fields.kind));
    if ((event.kind === 'net.deliver' || event.kind === 'net.duplicate') && event.fields.to === 'platform') {
      // Another message reaching the platform (an inbound acknowledgement) gets no answer: it ends the window too.
      open = kinds.get(Number(event.fields.id)) === 'send' ? { step, timeMs: event.timeMs } : undefined;
      return;
    }
    if (event.kind === 'fault' && (event.fields.kind === 'send-ambiguous' || event.fields.kind === 'send-refused')) {
      if (open !== undefined && event.fields.kind === 'send-ambiguous' && Number(event.fields.lateMs) > 0) push(lateAt, event.timeMs + Number(event.fields.lateMs), open.step);
      open = undefined;
      return;
    }
    if (event.kind !== 'net.send' || event.fields.from !== 'platform' || event.fields.kind !== 'send.ack') return;
    const ack: NetSend = { id: Number(event.fields.id), step, timeMs: event.timeMs, from: 'platform', to: String(event.fields.to), kind: 'send.ack' };
    if (open !== undefined) {
      out.set(open.step, ack);
      claimed.add(step);
      open = undefined;
      return;
    }
    const waiting = lateAt.get(event.timeMs);
    const arrival = waiting?.shift();
    if (arrival !== undefined && !claimed.has(step)) out.set(arrival, ack);
  });
  return out;
}

/**
 * Ties each send the platform received to its `net.send` and the platform's acknowledgement: at each instant, the
 * k-th `send` arriving (delivered or replayed) is the k-th attempt the ledger recorded then; its acknowledgement is the
 * one acksOfArrivals finds. Attempts of one network message (a replay, a connection's resend) are one attempt.
 */
function attempts(o: Observations, fates: NetFates): Attempt[] {
  const arrivals = new Map<number, { id: number; step: number }[]>();
  const refused = refusedArrivals(o.events);
  const ackOf = acksOfArrivals(o.events);
  o.events.forEach((event, step) => {
    const id = Number(event.fields.id);
    if ((event.kind === 'net.deliver' || event.kind === 'net.duplicate') && fates.sends.get(id)?.kind === 'send' && !refused.has(step)) push(arrivals, event.timeMs, { id, step });
  });
  const byInstant = new Map<number, SendAttemptFact[]>();
  for (const fact of o.ledger.sendAttempts) push(byInstant, fact.atMs, fact);
  const byId = new Map<number, Attempt>();
  for (const [atMs, facts] of byInstant) {
    const arrived = arrivals.get(atMs) ?? [];
    // Every send that arrives is received at that instant; if the counts differ the pairing is unknown, and no
    // attempt of the instant is judged.
    if (arrived.length !== facts.length) continue;
    facts.forEach((fact, k) => {
      const arrival = arrived[k];
      const send = fates.sends.get(arrival?.id ?? -1);
      if (send === undefined || arrival === undefined) return;
      const attempt = byId.get(send.id) ?? { send, fact, acks: [] };
      byId.set(send.id, attempt);
      const ack = ackOf.get(arrival.step);
      if (ack !== undefined) attempt.acks.push(ack);
    });
  }
  return [...byId.values()].sort((a, b) => a.send.step - b.send.step);
}

/**
 * The steps of the sends' arrivals the platform refused (issue 48): it takes nothing and shows nothing of such a send,
 * and records the refusal as a world fault (`send-refused`) as it answers, in the same instant, before the next
 * arrival. A refused arrival is no attempt and no showing, so the pairing by count at an instant leaves it out (chaos
 * seed 25, run 1500: a resend arrived in the millisecond another session's send was refused, the counts differed, and
 * the resend, shown again on a key-less platform, had no carrier to excuse it).
 */
export function refusedArrivals(events: readonly TraceEvent[]): Set<number> {
  const out = new Set<number>();
  let open: { step: number; timeMs: number } | undefined;
  events.forEach((event, step) => {
    if (open !== undefined && event.timeMs !== open.timeMs) open = undefined;
    if (event.kind === 'net.deliver' || event.kind === 'net.duplicate') {
      if (event.fields.to === 'platform') open = { step, timeMs: event.timeMs };
      return;
    }
    if (open !== undefined && event.kind === 'fault' && event.fields.kind === 'send-refused') {
      out.add(open.step);
      open = undefined;
    }
  });
  return out;
}

export function checkSendsInFlight(o: Observations, out: Violation[]): void {
  const fates = netFates(o.events);
  const byKey = new Map<string, Attempt[]>();
  for (const attempt of attempts(o, fates)) {
    const list = byKey.get(`${attempt.fact.sessionKey}\n${attempt.fact.key}`);
    if (list === undefined) byKey.set(`${attempt.fact.sessionKey}\n${attempt.fact.key}`, [attempt]);
    else list.push(attempt);
  }
  const timeoutMs = systemOf(o).sendAckTimeoutMs;
  for (const list of byKey.values()) {
    list.forEach((resend, j) => {
      for (const first of list.slice(0, j)) {
        if (first.send.from !== resend.send.from) continue;
        const reason = resendReason(o, fates, first.send, resend.send, first.acks, true);
        if (reason !== undefined && reason !== 'known') continue;
        const what = `${resend.fact.sessionKey}: send ${resend.fact.key} ("${resend.fact.text.slice(0, 60)}") left ${resend.send.from} at ${resend.send.timeMs} ms`;
        const why =
          reason === 'known'
            ? `after the platform's acknowledgement of its send at ${first.send.timeMs} ms had reached it (no restart since)`
            : `while its send at ${first.send.timeMs} ms was still in flight (no acknowledgement arrived or was lost, ${resend.send.timeMs - first.send.timeMs} ms is under the ${timeoutMs} ms wait, no restart)`;
        out.push({ invariant: 'one-send-in-flight', message: `${what} ${why}`, step: resend.send.step, timeMs: resend.send.timeMs, class: classOf('one-send-in-flight'), evidence: `${what} again` });
        return;
      }
    });
  }
}

function push<K, T>(map: Map<K, T[]>, key: K, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

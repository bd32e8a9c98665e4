// At-least-once delivery on a platform that ignores client idempotency keys (the ledger says which). A sender marks a
// message delivered only after the platform acknowledged it, so when it cannot have seen that acknowledgement it must
// send again, and the user sees the message twice: an unavoidable duplicate, not a bug. Decided from the world's
// ledger (what was shown, and when) and the kernel's facts (the network's sends and deliveries, kills and power
// losses), never from the sender's own records. A repeat showing at t2 of what was first shown at t1 is excused when
// it was sent after t1 (a retry, not a second send made before the platform answered the first) and
//   - the platform's acknowledgement of the first send (sent at t1) never reached the sender, or reached it only after
//     the sender had sent again, or
//   - the sender was killed (a SIGKILL or a power loss) between t1 and sending again, so a new incarnation could not
//     know what the old one had been told.
// A repeat the network made (the link replayed a send it had delivered: a `net.duplicate` arriving at t2) is the
// world's doing, not the sender's, and is excused as well. A second send without such a window (a gateway that sends one row twice, two rows for one payload) stays a
// duplicate the checkers report.
import type { ShownFact } from '../world/ledger.ts';
import { normalized, type Observations } from './observations.ts';

interface NetSend {
  id: number;
  timeMs: number;
  from: string;
  to: string;
}

/**
 * Whether a showing is an unavoidable at-least-once repeat of an earlier showing of the same message: `replayed` when
 * the link replayed a send (certainly a copy, so it fills no slot), `excused` for that or a resend the sender could
 * not avoid (judged only for a showing no answer explains: a resend of a stock phrase is told from a new answer's
 * showing of it by the slots, not by the window).
 */
export interface RepeatExcuse {
  replayed: (fact: ShownFact) => boolean;
  excused: (fact: ShownFact) => boolean;
}

export function atLeastOnceRepeats(o: Observations): RepeatExcuse {
  if (o.ledger.platformHonoursKeys) return { replayed: () => false, excused: () => false };
  const acks: NetSend[] = [];
  const sends: NetSend[] = [];
  const deliveredAtMs = new Map<number, number>();
  const replays: NetSend[] = [];
  for (const event of o.events) {
    if (event.kind === 'net.send') {
      const send = { id: Number(event.fields.id), timeMs: event.timeMs, from: String(event.fields.from), to: String(event.fields.to) };
      if (event.fields.kind === 'send.ack') acks.push(send);
      else if (event.fields.kind === 'send') sends.push(send);
    } else if (event.kind === 'net.deliver' && !deliveredAtMs.has(Number(event.fields.id))) deliveredAtMs.set(Number(event.fields.id), event.timeMs);
    else if (event.kind === 'net.duplicate') replays.push({ id: Number(event.fields.id), timeMs: event.timeMs, from: String(event.fields.from), to: String(event.fields.to) });
  }
  // The platform acknowledges each send as it shows it, in order: the k-th showing at an instant has the k-th ack.
  const ackOf = new Map<ShownFact, NetSend>();
  for (const fact of o.ledger.shown) {
    const sameInstant = o.ledger.shown.filter((other) => other.atMs === fact.atMs);
    const ack = acks.filter((candidate) => candidate.timeMs === fact.atMs)[sameInstant.indexOf(fact)];
    if (ack !== undefined) ackOf.set(fact, ack);
  }
  const replayed = (fact: ShownFact): boolean => replays.some((replay) => replay.to === acks[0]?.from && replay.timeMs === fact.atMs && o.ledger.shown.some((other) => other.index < fact.index && other.sessionKey === fact.sessionKey && normalized(other.text) === normalized(fact.text)));
  // A repeat of `first` the sender could not avoid: sent after the platform took `first`, whose acknowledgement never
  // reached the sender before the resend, or the sender was killed in between.
  const retryOf = (fact: ShownFact, first: ShownFact): boolean => {
    const ack = ackOf.get(first);
    if (ack === undefined) return false;
    // The send the platform showed at t2: one the sender had sent before it arrived at that instant.
    const resends = sends.filter((send) => send.from === ack.to && deliveredAtMs.get(send.id) === fact.atMs);
    if (resends.length === 0) return false;
    const resentAtMs = Math.min(...resends.map((send) => send.timeMs));
    // Sent again before the platform even took the first: not a retry, a second send.
    if (resentAtMs <= first.atMs) return false;
    const ackAtMs = deliveredAtMs.get(ack.id);
    if (ackAtMs === undefined || ackAtMs >= resentAtMs) return true;
    return o.kernel.some((kill) => kill.kind === 'kill' && kill.process === ack.to && kill.timeMs >= first.atMs && kill.timeMs <= resentAtMs);
  };
  // The same text may have been shown before by several messages (a stock phrase): a retry of any of them excuses it.
  const excused = (fact: ShownFact): boolean =>
    replayed(fact) ||
    o.ledger.shown.some((first) => first.index < fact.index && first.sessionKey === fact.sessionKey && first.kind === fact.kind && normalized(first.text) === normalized(fact.text) && retryOf(fact, first));
  return { replayed, excused };
}

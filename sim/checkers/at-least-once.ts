// At-least-once delivery on a platform that ignores client idempotency keys (the ledger says which). A sender marks a
// message delivered only after the platform acknowledged it, so when it cannot have seen that acknowledgement it must
// send again, and the user sees the message twice: an unavoidable duplicate, not a bug. Decided from the world's
// ledger (what was shown, and when) and the kernel's facts (the network's sends, deliveries and replays, kills and
// power losses), never from the sender's own records.
//
// Each showing is tied to the network message that carried it: the platform shows each send as it arrives and
// acknowledges it at once, so the k-th `send` to arrive at an instant is the k-th showing of that instant, and its
// acknowledgement is the one the platform put on the wire right after it (in-flight.ts acksOfArrivals). A repeat showing R (sent at s) of text the session was shown before
// is excused when
//   - the network made it: R arrived as a `net.duplicate` (a replay of the very send that an earlier showing of the
//     same text came from). Each replay excuses the one showing it carried, no other. A replay of a send the platform
//     refused (its own arrival showed nothing) is a copy only perhaps, when the session was shown the text before:
//     that may have been the sender's resend of the row or another answer's message, so it is optional, as a resend;
//   - or it is a retry of an earlier send F of that text and kind that no other excused repeat already retried (so a
//     lost acknowledgement excuses one resend, not every later copy: after a retry was acknowledged, a third send is a
//     bug), picking the latest such F that qualifies. F qualifies when the world shows the sender a reason to send
//     the later of the two (in send order: the platform may show a resend first) again (in-flight.ts resendReason):
//     the sender was killed in between (a new incarnation cannot know what the old one sent), or its wait for the
//     acknowledgement timed out (the later send left at least the system's sendAckTimeoutMs after the earlier), or the
//     network dropped the platform's acknowledgement of the earlier before the later left, or the platform refused an
//     arrival of the earlier (a network copy's too) and the refusal reached the sender first; and the sender could not
//     know the earlier had landed: no acknowledgement of it (of its showing, while the sender still waited for it,
//     within sendAckTimeoutMs of the send; or of a replay of it) reached the sender before the later send, or the
//     sender was killed after the last one that did. A resend soon after the first,
//     with its acknowledgement still on the way (a second poller racing the first, 10 ms later), has no such reason
//     and is a duplicate, however the sends and the showings interleave (issue 23 item 4).
// Why a kill after the acknowledgement arrived still excuses: the gateway marks the row delivered in SQLite only after
// the acknowledgement, and that write takes its latency (more under "database is locked" retries, and after the
// delivery mirror's transcript write). A SIGKILL between the acknowledgement's arrival and the mark's commit leaves
// the row undelivered, and the next incarnation rightly sends it again; a SIGKILL after the commit cannot. The
// commit is the model's own bookkeeping (its row ids), which the oracle may not read (docs/ARCHITECTURE.md section 5),
// and no kernel or network fact tells the two apart, so the kill is excused either way. A kill BEFORE the
// acknowledgement arrived does not excuse by itself: the acknowledgement then either never reached a live sender
// (excused as lost) or reached the next incarnation, which marks the row as a late acknowledgement and so knows. A
// power loss is judged as a kill: the kernel keeps committed SQLite transactions over a power loss
// (sim/kernel/sqlite.ts), so it cannot undo a committed mark. A second send without such a window (a gateway that sends
// one row twice, two rows for one payload, a third copy after an acknowledged retry) stays a duplicate the checkers
// report.
import type { TraceEvent } from '../kernel/trace.ts';
import type { ShownFact } from '../world/ledger.ts';
import { acksOfArrivals, type NetSend, netFates, refusedArrivals, resendReason } from './in-flight.ts';
import { normalized, type Observations, systemOf } from './observations.ts';

/** How a showing reached the platform: the send that carried it, whether a replay, and the platform's ack of it. */
interface Carrier {
  send: NetSend;
  replay: boolean;
  ack: NetSend | undefined;
}

/**
 * Whether a showing is an unavoidable at-least-once repeat of an earlier showing of the same message: `replayed` when
 * the link replayed a send (certainly a copy, so it fills no slot), `excused` for that or a resend the sender could
 * not avoid. `excused` is consulted only for a showing no answer explains (a resend of a stock phrase is told from a
 * new answer's showing of it by the slots, not by the window), in showing order, and an excused retry claims the send
 * it retries, so ask it once per such showing.
 */
export interface RepeatExcuse {
  replayed: (fact: ShownFact) => boolean;
  excused: (fact: ShownFact) => boolean;
  /** Whether `excused` would excuse the showing now, without claiming the send it retries. */
  mayRepeat: (fact: ShownFact) => boolean;
  /** The verdicts and claims so far, to be put back (by the function returned) when a trial assignment is dropped. */
  checkpoint: () => () => void;
  /** When the send a network replay carried left the sender (undefined for a showing no replay carried). */
  replaySentAtMs: (fact: ShownFact) => number | undefined;
}

export function atLeastOnceRepeats(o: Observations): RepeatExcuse {
  if (o.ledger.platformHonoursKeys) return { replayed: () => false, excused: () => false, mayRepeat: () => false, checkpoint: () => () => undefined, replaySentAtMs: () => undefined };
  const carrierOf = carriers(o);
  const replaySentAtMs = (fact: ShownFact): number | undefined => {
    const carrier = carrierOf.get(fact);
    return carrier?.replay === true ? carrier.send.timeMs : undefined;
  };
  const fates = netFates(o.events);
  /** The showings each send gave (its own, then the network's replays of it), by send id. */
  const showingsOfSend = new Map<number, ShownFact[]>();
  for (const fact of o.ledger.shown) {
    const carrier = carrierOf.get(fact);
    if (carrier !== undefined) push(showingsOfSend, carrier.send.id, fact);
  }
  // Each showing's text normalised once: the comparisons below go over every earlier showing (quadratic in a run).
  const normalizedText = new Map(o.ledger.shown.map((fact) => [fact, normalized(fact.text)]));
  const textOf = (fact: ShownFact): string => normalizedText.get(fact) ?? normalized(fact.text);
  const sameMessage = (earlier: ShownFact, fact: ShownFact): boolean =>
    earlier.index < fact.index && earlier.sessionKey === fact.sessionKey && earlier.kind === fact.kind && textOf(earlier) === textOf(fact);
  // A copy for certain: the network's replay of a send whose own arrival showed the same message.
  const replayed = (fact: ShownFact): boolean => {
    const carrier = carrierOf.get(fact);
    if (carrier === undefined || !carrier.replay) return false;
    const original = showingsOfSend.get(carrier.send.id)?.[0];
    return original !== undefined && original !== fact && sameMessage(original, fact);
  };
  // A copy perhaps: the send's own arrival showed nothing (the platform refused it, issue 48) and the network's replay
  // of it did, when the session was shown the message before. That may have been the sender's resend of the same row,
  // or another answer's message of the same text (send-heavy chaos seed 10, run 1683: a file refused while the
  // listener was not ready, another answer's file of that name shown, then the replay of the refused send, the first
  // showing of its own row, taken for a repeat and its slot called lost), so it is optional, as a resend is.
  const replayOfRefused = (fact: ShownFact): boolean => {
    const carrier = carrierOf.get(fact);
    if (carrier === undefined || !carrier.replay || showingsOfSend.get(carrier.send.id)?.[0] !== fact) return false;
    return o.ledger.shown.some((earlier) => sameMessage(earlier, fact));
  };
  // Whether two sends of the same text are an at-least-once pair: the later one (in send order, whichever the platform
  // showed first) a resend the sender could not avoid after the earlier one, judged by every showing the earlier gave.
  const retries = (one: NetSend, other: NetSend): boolean => {
    const [first, resend] = one.step < other.step ? [one, other] : [other, one];
    if (showingsOfSend.get(first.id)?.[0] === undefined || first.from !== resend.from) return false;
    // The acknowledgement of the send's own showing tells the sender only while it waits for it (in-flight.ts: one
    // that arrives once the wait timed out finds no one listening; fuzz --all seed 703, chaos run 33: a held link
    // released three sends at once, and the gateway sent a row again in the millisecond the late acknowledgement of
    // its first send arrived). A replay's acknowledgement stands in for what the sender learnt from its other sends.
    const waitEndsMs = first.timeMs + systemOf(o).sendAckTimeoutMs;
    const acks = (showingsOfSend.get(first.id) ?? []).flatMap((shown) => {
      const carrier = carrierOf.get(shown);
      const ack = carrier?.ack;
      if (ack === undefined) return [];
      const arrivals = fates.arrivedAtSteps.get(ack.id) ?? [];
      const late = carrier !== undefined && !carrier.replay && arrivals.length > 0 && arrivals.every((step) => (o.events[step]?.timeMs ?? Infinity) >= waitEndsMs);
      return late ? [] : [ack];
    });
    const reason = resendReason(o, fates, first, resend, acks);
    return reason !== undefined && reason !== 'known';
  };
  const claimed = new Set<number>();
  const verdicts = new Map<ShownFact, boolean>();
  // The latest earlier send of this message that no excused repeat retried yet and that this one may retry.
  // An earlier send is retried through the showing it gave first: its own arrival's, or the network's replay of it when
  // that showed it first (its own arrival showed nothing: block-streaming seed 3 run 32, a block sent just before a
  // gateway kill was shown only by the link's replay at the next kill, and the restarted gateway's resend was called a
  // repeat with no reason, though the sender had been killed in between).
  const firstShowingOfItsSend = (earlier: ShownFact, carrier: Carrier): boolean => !carrier.replay || showingsOfSend.get(carrier.send.id)?.[0] === earlier;
  const retried = (fact: ShownFact): Carrier | undefined => {
    const carrier = carrierOf.get(fact);
    if (carrier === undefined || carrier.replay) return undefined;
    return o.ledger.shown
      .filter((earlier) => sameMessage(earlier, fact))
      .flatMap((earlier) => {
        const earlierCarrier = carrierOf.get(earlier);
        return earlierCarrier !== undefined && firstShowingOfItsSend(earlier, earlierCarrier) ? [earlierCarrier] : [];
      })
      .filter((earlier) => !claimed.has(earlier.send.id) && retries(carrier.send, earlier.send))
      .at(-1);
  };
  const excused = (fact: ShownFact): boolean => {
    const known = verdicts.get(fact);
    if (known !== undefined) return known;
    let verdict = replayed(fact) || replayOfRefused(fact);
    if (!verdict) {
      const first = retried(fact);
      if (first !== undefined) claimed.add(first.send.id);
      verdict = first !== undefined;
    }
    verdicts.set(fact, verdict);
    return verdict;
  };
  const mayRepeat = (fact: ShownFact): boolean => verdicts.get(fact) ?? (replayed(fact) || replayOfRefused(fact) || retried(fact) !== undefined);
  const checkpoint = (): (() => void) => {
    const claims = new Set(claimed);
    const known = new Map(verdicts);
    return () => {
      claimed.clear();
      for (const id of claims) claimed.add(id);
      verdicts.clear();
      for (const [fact, verdict] of known) verdicts.set(fact, verdict);
    };
  };
  return { replayed, excused, mayRepeat, checkpoint, replaySentAtMs };
}

/**
 * Ties each showing to the message that carried it and to the platform's acknowledgement: at each instant, the k-th
 * `send` arriving (delivered or replayed) is the k-th showing; its acknowledgement is the one acksOfArrivals finds.
 */
function carriers(o: Observations): Map<ShownFact, Carrier> {
  const sends = new Map<number, NetSend>();
  const arrivals = new Map<number, { id: number; replay: boolean; step: number }[]>();
  // A send the platform refused shows nothing: it is no part of the count (in-flight.ts refusedArrivals).
  const refused = refusedArrivals(o.events);
  // Each arrival's own acknowledgement (in-flight.ts acksOfArrivals: not the k-th of the instant).
  const ackOf = acksOfArrivals(o.events);
  o.events.forEach((event: TraceEvent, step) => {
    const id = Number(event.fields.id);
    if (event.kind === 'net.send') {
      const send: NetSend = { id, step, timeMs: event.timeMs, from: String(event.fields.from), to: String(event.fields.to), kind: String(event.fields.kind) };
      sends.set(id, send);
    } else if ((event.kind === 'net.deliver' || event.kind === 'net.duplicate') && sends.get(id)?.kind === 'send' && !refused.has(step)) {
      push(arrivals, event.timeMs, { id, replay: event.kind === 'net.duplicate', step });
    }
  });
  const out = new Map<ShownFact, Carrier>();
  const byInstant = new Map<number, ShownFact[]>();
  // The WebChat client's showings come over its own connection, not as a platform send: they are no part of the count
  // (chaos seed 1, run 7498: a client showed a final in the millisecond the platform showed an error reply, the counts
  // differed, and the gateway's resend of that reply after a power loss was called a duplicate).
  const byClient = new Set(o.ledger.clientEvents.map((event) => event.shown));
  for (const fact of o.ledger.shown) if (!byClient.has(fact.index)) push(byInstant, fact.atMs, fact);
  for (const [atMs, facts] of byInstant) {
    const arrived = arrivals.get(atMs) ?? [];
    // Every send that arrives at a key-less platform is shown at that instant; if the counts differ the pairing is
    // unknown, and no showing of the instant is excused.
    if (arrived.length !== facts.length) continue;
    facts.forEach((fact, k) => {
      const arrival = arrived[k];
      const send = arrival === undefined ? undefined : sends.get(arrival.id);
      if (arrival !== undefined && send !== undefined) out.set(fact, { send, replay: arrival.replay, ack: ackOf.get(arrival.step) });
    });
  }
  return out;
}

function push<T>(map: Map<number, T[]>, key: number, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

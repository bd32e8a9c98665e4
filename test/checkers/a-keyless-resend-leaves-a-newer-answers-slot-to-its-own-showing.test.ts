// Attribution on a key-less platform (sim/checkers/attribution.ts): a showing that may be an at-least-once resend
// does not take a slot that a later showing of the same text, one that is no such resend, would then lack; otherwise
// showings fill slots in showing order. Hand-built histories (keyless-history.ts) place each acknowledgement exactly;
// several answers send the same stock phrase through send_message, and state.db holds what the test says of each call.
import { describe, expect, it } from 'vitest';
import { attributeAll, type Slot } from '../../sim/checkers/attribution.ts';
import type { DbRow } from '../../sim/checkers/durable.ts';
import type { ShownFact } from '../../sim/world/ledger.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const stock = 'on it - looking at your calendar';

/** m<n> typed at `atMs`, asked 100 ms later; its answer (one send_message call `call-<n>` of the stock phrase) returns at +500 ms. */
function answer(history: KeylessHistory, atMs: number, n: number): void {
  history.userTypes(atMs, `m${n}`, `question ${n}`);
  const request = history.ledger.requestReceived(session, `question ${n} <m${n}>`, atMs + 100);
  history.ledger.answerReturned(request, { toolCalls: [{ id: `call-${n}`, name: 'send_message', text: stock }], result: '' }, atMs + 500);
}

/** The state.db rows of a call: its carrier, and its result row when `made` (the tool server answered). */
function callRows(n: number, made: boolean): DbRow[] {
  const row = (id: number, role: string, toolCallId: string | null, toolCallIds: string[]): DbRow => ({ id, sessionKey: session, sessionId: session, timestamp: id, role, content: '', toolCallIds, toolCallId });
  return made ? [row(10 * n, 'assistant', null, [`call-${n}`]), row(10 * n + 1, 'tool', `call-${n}`, [])] : [row(10 * n, 'assistant', null, [`call-${n}`])];
}

function callOf(slotOf: ReadonlyMap<ShownFact, Slot> | undefined, fact: ShownFact): string[] | undefined {
  return slotOf?.get(fact)?.toolCalls.map((call) => call.id);
}

describe('attribution: a key-less resend and the slots of newer answers', () => {
  it("leaves m4's slot to m4's own showing when the resend of m3's row comes first (chaos seed 11, run 1002)", () => {
    // m3's row is shown and its acknowledgement is lost; the gateway sends it again (shown, acknowledged); the link
    // then replays the first send (shown, acknowledged); last, m4's row is shown, after every copy of m3's row was
    // acknowledged, so it is no resend. Taken in showing order with no look ahead, the resend took m4's slot and m4's
    // showing was reported as a duplicate.
    const history = new KeylessHistory();
    answer(history, 1_000, 3);
    const first = history.sendsAndShows(3_000, stock, false);
    answer(history, 3_200, 4);
    const resend = history.sendsAndShows(9_000, stock);
    const replay = history.platformShows(19_000, 1, stock, true);
    history.arrives(19_001, replay.ackId);
    const own = history.platformShows(19_130, history.gatewaySends(19_120), stock);
    history.arrives(19_140, own.ackId);
    const o = history.observations();
    o.durable.rows.push(...callRows(3, true), ...callRows(4, true));

    const attribution = attributeAll(o).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(callOf(attribution?.slotOf, first.shown)).toEqual(['call-3']);
    expect(callOf(attribution?.slotOf, own.shown)).toEqual(['call-4']);
    expect(attribution?.slotOf.has(resend.shown)).toBe(false);
    expect(attribution?.slotOf.has(replay.shown)).toBe(false);
  });

  it('lets a showing that may be a resend fill the slot it can when a later showing has another left (chaos seed 3, run 1497)', () => {
    // m3's row is shown, its acknowledgement lost; m4's row is shown next, when the gateway could not know the first
    // had landed, so it may be a resend of it; the link replays the first send, whose acknowledgement then arrives;
    // then m5's row, which can be no resend. m4's call was made (its result row is durable); m5's
    // carrier alone is. The second showing is m4's: m5's showing still has m5's slot. Were the possible resend left to
    // the end, m5's showing would take m4's slot (the better-evidenced one) and m4's first showing would be the third.
    const history = new KeylessHistory();
    answer(history, 1_000, 3);
    const first = history.sendsAndShows(3_000, stock, false);
    answer(history, 3_200, 4);
    const second = history.sendsAndShows(9_000, stock);
    const replay = history.platformShows(9_500, 1, stock, true); // the link replays the first send; its
    history.arrives(9_501, replay.ackId); // acknowledgement tells the gateway the first landed
    answer(history, 10_000, 5);
    const third = history.sendsAndShows(12_000, stock);
    const o = history.observations();
    o.durable.rows.push(...callRows(3, true), ...callRows(4, true), ...callRows(5, false));

    const attribution = attributeAll(o).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(callOf(attribution?.slotOf, first.shown)).toEqual(['call-3']);
    expect(callOf(attribution?.slotOf, second.shown)).toEqual(['call-4']);
    expect(callOf(attribution?.slotOf, third.shown)).toEqual(['call-5']);
  });
});

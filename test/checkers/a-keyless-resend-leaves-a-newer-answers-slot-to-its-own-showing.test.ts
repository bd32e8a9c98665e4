// Attribution on a key-less platform (sim/checkers/attribution.ts): a showing that may be an at-least-once resend is
// optional, and fills a slot only if one is left once every other showing has taken its own. Two answers (to m3 and
// to m4) each send the same stock phrase through send_message, and state.db holds both calls' result rows (both were
// made). m3's row is shown and its acknowledgement is lost; the gateway sends it again (shown, acknowledged); the link
// then replays the first send (shown, acknowledged); last, m4's row is shown. The resend must not take m4's slot:
// taken in showing order, it did, and m4's own showing, sent after every copy of m3's row had been acknowledged, was
// reported as a duplicate (chaos campaign seed 11, run 1002). A hand-built history (keyless-history.ts) places each
// acknowledgement exactly.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import type { DbRow } from '../../sim/checkers/durable.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const stock = 'on it - looking at your calendar';

describe('attribution: a key-less resend leaves a newer answer its slot', () => {
  it("credits m4's showing to m4's call and excuses the resend of m3's row", () => {
    const history = new KeylessHistory();
    const answer = (atMs: number, deliveryId: string, callId: string): void => {
      history.userTypes(atMs, deliveryId, `can you check ${deliveryId}?`);
      const request = history.ledger.requestReceived(session, `can you check ${deliveryId}? <${deliveryId}>`, atMs + 100);
      history.ledger.answerReturned(request, { toolCalls: [{ id: callId, name: 'send_message', text: stock }], result: '' }, atMs + 500);
    };
    answer(1_000, 'm3', 'call-3');
    const first = history.platformShows(3_010, history.gatewaySends(3_000), stock); // m3's row: its acknowledgement is lost
    answer(3_200, 'm4', 'call-4');
    const resend = history.platformShows(9_010, history.gatewaySends(9_000), stock);
    history.arrives(9_015, resend.ackId);
    const replay = history.platformShows(19_000, 1, stock, true); // the link replays the first send
    history.arrives(19_001, replay.ackId);
    const fourth = history.platformShows(19_130, history.gatewaySends(19_120), stock); // m4's row
    history.arrives(19_140, fourth.ackId);
    const o = history.observations();
    const row = (id: number, role: string, toolCallId: string | null, toolCallIds: string[]): DbRow => ({ id, sessionKey: session, sessionId: session, timestamp: id, role, content: '', toolCallIds, toolCallId });
    o.durable.rows.push(row(1, 'assistant', null, ['call-3']), row(2, 'tool', 'call-3', []), row(3, 'assistant', null, ['call-4']), row(4, 'tool', 'call-4', []));

    const attribution = attributeAll(o).get(session);
    expect(attribution?.unexplained).toEqual([]);
    const slotOf = attribution?.slotOf ?? new Map();
    expect(slotOf.get(first.shown)?.toolCalls.map((call: { id: string }) => call.id)).toEqual(['call-3']);
    expect(slotOf.get(fourth.shown)?.toolCalls.map((call: { id: string }) => call.id)).toEqual(['call-4']);
    expect(slotOf.has(resend.shown)).toBe(false);
    expect(slotOf.has(replay.shown)).toBe(false);
  });
});

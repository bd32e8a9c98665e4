// Attribution of canned replies (sim/checkers/attribution.ts): a /clear that state.db shows no failure for takes an
// error reply only as the last resort (tier 7), and an error reply that is no possible resend and found only a /clear
// is lacking: the latest possible resend of its text before it that took a subject is taken for the repeat it may be,
// when the replies assigned again leave fewer lacking. Chaos seed 969, run 13189 (stop 37), on a key-less platform:
// m1 and m2 were one turn, which gave up with an error reply for each; the gateway sent m2's and lost power before the
// platform's acknowledgement came back; the restarted gateway sent it again (an excused resend), then m1's; later the
// /clear m3 ran and the user saw `Session cleared.`. Assigned in showing order, the resend took m1, m1's own error
// reply found only the /clear, and `Session cleared.` was left over: failure-notice-final said the /clear was told it
// failed and reset all the same, and no-duplicate-visible-reply called `Session cleared.` a duplicate. fuzz --all seed
// 820, compaction run 43: two resends after lost acknowledgements took m8 and m9 (never asked: an LLM outage), and
// their own error replies found only the /clear. A trial that would leave a subject with no reply is dropped.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const sql = await loadSqlJs();
const errorReply = 'Sorry, something went wrong. Please try again.';
const cleared = 'Session cleared.';

describe('a /clear and an error reply resent after a power loss', () => {
  it('takes the resend for the repeat and leaves the /clear its Session cleared. (chaos seed 969, run 13189)', () => {
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    h.userTypes(1_050, 'm2', 'and the weather?');
    h.userTypes(1_100, 'm3', '/clear');
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'can you check the calendar? <m1>\nand the weather? <m2>', 1_200), 1_300);
    // m2's error reply leaves the gateway, which loses power before the platform shows it and acknowledges.
    const sent = h.gatewaySends(2_000);
    h.killGateway(2_100, 1_000);
    const first = h.platformShows(3_200, sent, errorReply);
    // The restarted gateway cannot know: it sends m2's reply again, then m1's; both acknowledgements come back.
    const resend = h.sendsAndShows(3_500, errorReply);
    h.arrives(3_600, first.ackId);
    const own = h.sendsAndShows(4_100, errorReply);
    const reset = h.sendsAndShows(60_000, cleared);

    const attribution = attributeAll(h.observations()).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(attribution?.cannedFor.get('<m3>')).toBe(reset.shown);
    expect(new Set([attribution?.cannedFor.get('<m1>'), attribution?.cannedFor.get('<m2>')])).toEqual(new Set([first.shown, own.shown]));
    expect([...(attribution?.cannedFor.values() ?? [])]).not.toContain(resend.shown);
  });

  it('keeps the assignment when the resend yielding would leave the /clear with no reply at all', () => {
    // m1 and m2 fail in turns of their own; the /clear m3 fails too (its reset could not be written). m1's error reply
    // is shown and its acknowledgement dropped; m2's reply follows (text-wise a possible retry of m1's); the link
    // then replays m1's send and that acknowledgement arrives, so the /clear's error reply, last, can be no repeat.
    // Taking m2's reply for a repeat would give the /clear's to m2 and leave the /clear unanswered: not fewer lacking.
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    h.userTypes(1_050, 'm2', 'and the weather?');
    h.userTypes(1_100, 'm3', '/clear');
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_200), 1_300);
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'and the weather? <m2>', 1_400), 1_500);
    const sent = h.gatewaySends(2_000);
    const first = h.platformShows(2_010, sent, errorReply);
    h.drops(2_015, first.ackId);
    const second = h.sendsAndShows(3_000, errorReply);
    const replay = h.platformShows(3_500, sent, errorReply, true);
    h.arrives(3_505, replay.ackId);
    const last = h.sendsAndShows(4_000, errorReply);

    const attribution = attributeAll(h.observations()).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(attribution?.cannedFor.get('<m1>')).toBe(first.shown);
    expect(attribution?.cannedFor.get('<m2>')).toBe(second.shown);
    expect(attribution?.cannedFor.get('<m3>')).toBe(last.shown);
  });

  it('passes the frozen plan of the seed string on the fixed model', async () => {
    await withFrozenPlan(sql, 'clear-error-reply-resent-after-a-power-loss', (result) => {
      const key = 'agent:main:chat:1';
      // The shape: three showings of the error reply, then Session cleared., on a key-less platform.
      expect(result.ledger.platformHonoursKeys).toBe(false);
      expect(result.ledger.shown.filter((fact) => fact.sessionKey === key).map((fact) => fact.text).slice(0, 4)).toEqual([errorReply, errorReply, errorReply, cleared]);
      expect(result.violations).toEqual([]);
    });
  });

  it('passes the frozen plan of fuzz --all seed 820, compaction run 43: resends after lost acknowledgements in an outage', async () => {
    await withFrozenPlan(sql, 'clear-error-replies-after-resends-in-an-outage', (result) => {
      const key = 'agent:main:chat:0';
      const shown = result.ledger.shown.filter((fact) => fact.sessionKey === key).map((fact) => fact.text);
      // The shape: ten showings of the error reply (seven messages failed; three are repeats, one of them a replay),
      // then the /clear's Session cleared., on a key-less platform.
      expect(result.ledger.platformHonoursKeys).toBe(false);
      expect(shown.filter((text) => text === errorReply)).toHaveLength(10);
      expect(shown.indexOf(cleared)).toBeGreaterThan(shown.lastIndexOf(errorReply));
      expect(result.violations).toEqual([]);
    });
  });
});

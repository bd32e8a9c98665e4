// Attribution of canned replies (sim/checkers/attribution.ts), stated exception 2: an error reply that is no possible
// resend and went to a subject the LLM was asked about again after it (tiers 4 to 6) is lacking, as one left over or
// one only a /clear could take is: the latest possible resend of its text before it that took a subject is taken for
// the repeat it may be, when the replies assigned again leave fewer lacking. Send-heavy chaos seed 3, run 15,953 (the
// 20,000-run campaign on 3316d91, key-less platform): a batch of six messages gave up with an error reply for each; a
// power loss struck as the first was shown, the restarted gateway resent it and the link replayed it. The resend took
// m1 on the first tier (every member's last request had failed), each later reply went one message too early, and the
// last went to m8, whose own turn was still asking: failure-notice-final said m8 was told it failed and answered after.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const sql = await loadSqlJs();
const errorReply = 'Sorry, something went wrong. Please try again.';

/**
 * m1 and m2 are one turn, which gives up with an error reply for each; m3's turn's first request fails too, and that
 * turn asks again later (each case says when).
 */
function twoTurnsFailed(): KeylessHistory {
  const h = new KeylessHistory();
  h.userTypes(1_000, 'm1', 'can you check the calendar?');
  h.userTypes(1_050, 'm2', 'and the weather?');
  h.userTypes(1_100, 'm3', 'what is on tomorrow?');
  h.ledger.requestFailed(h.ledger.requestReceived(session, 'can you check the calendar? <m1>\nand the weather? <m2>', 1_200), 1_300);
  h.ledger.requestFailed(h.ledger.requestReceived(session, 'what is on tomorrow? <m3>', 1_400), 1_500);
  return h;
}

describe('an error reply resent after a power loss, before a subject asked about again', () => {
  it('takes the resend for the repeat, so the last error reply finds its own message and not the one still asking', () => {
    const h = twoTurnsFailed();
    // m1's error reply leaves the gateway, which loses power before the platform shows it and acknowledges.
    const sent = h.gatewaySends(2_000);
    h.killGateway(2_100, 1_000);
    const first = h.platformShows(3_200, sent, errorReply);
    // The restarted gateway cannot know: it sends m1's reply again, then m2's; both acknowledgements come back.
    const resend = h.sendsAndShows(3_500, errorReply);
    h.arrives(3_600, first.ackId);
    const own = h.sendsAndShows(4_100, errorReply);
    const again = h.ledger.requestReceived(session, 'what is on tomorrow? <m3>', 10_000);
    h.answers(again, 'Two meetings tomorrow.', 10_500);
    const answer = h.sendsAndShows(11_000, 'Two meetings tomorrow.');

    const attribution = attributeAll(h.observations()).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(attribution?.cannedFor.get('<m1>')).toBe(first.shown);
    expect(attribution?.cannedFor.get('<m2>')).toBe(own.shown);
    // m3 was told nothing failed: its turn asked again and its answer was shown.
    expect(attribution?.cannedFor.has('<m3>')).toBe(false);
    expect([...(attribution?.cannedFor.values() ?? [])]).not.toContain(resend.shown);
    expect([...(attribution?.slotOf.keys() ?? [])]).toContain(answer.shown);
  });

  it('keeps a reply on a subject asked about again when no earlier reply could be a resend', () => {
    // The same turns, every send acknowledged and no power loss: three error replies for three messages, m3's turn
    // asking again after its own. Nothing can yield, so the third reply stays m3's (failure-notice-final judges it).
    const h = twoTurnsFailed();
    const one = h.sendsAndShows(2_000, errorReply);
    const two = h.sendsAndShows(3_000, errorReply);
    const three = h.sendsAndShows(4_000, errorReply);
    h.ledger.requestReceived(session, 'what is on tomorrow? <m3>', 10_000);

    const attribution = attributeAll(h.observations()).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(attribution?.cannedFor.get('<m1>')).toBe(one.shown);
    expect(attribution?.cannedFor.get('<m2>')).toBe(two.shown);
    expect(attribution?.cannedFor.get('<m3>')).toBe(three.shown);
  });

  it('passes the frozen plan of the seed string on the fixed model', async () => {
    await withFrozenPlan(sql, 'error-reply-then-asked-again-send-heavy', (result) => {
      const shown = result.ledger.shown.filter((fact) => fact.text === errorReply);
      // The shape: more showings of the error reply than messages that got one (a resend and a replay), key-less.
      expect(result.ledger.platformHonoursKeys).toBe(false);
      expect(shown.length).toBeGreaterThanOrEqual(8);
      expect(result.violations).toEqual([]);
    });
  });
});

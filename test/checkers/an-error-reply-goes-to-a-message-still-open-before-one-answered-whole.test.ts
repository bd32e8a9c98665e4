// The attribution's tier rule (sim/checkers/attribution.ts, docs/MODEL.md "The attribution's rules"): a subject
// whose answer the user had seen whole by the showing owes no reply, so an error reply goes to a subject still open
// before it, at equal evidence. m1's answer was shown whole, then its turn asked again (a write failed after the send)
// and that request failed; m2's only request failed too. Both are settled (never asked again) and both last requests
// had failed, so only coverage tells them apart: the one error reply is m2's. Given to m1, it would leave m2 with no
// reply at all (a false every-inbound-answered).
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const errorReply = 'Sorry, something went wrong. Please try again.';

describe('an error reply and a message answered whole', () => {
  it('goes to the message still open', () => {
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    h.userTypes(1_100, 'm2', 'and the weather?');
    const first = h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_200);
    h.answers(first, 'free at 2', 1_400);
    h.sendsAndShows(1_500, 'free at 2');
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_600), 1_700);
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'and the weather? <m2>', 1_800), 1_900);
    const reply = h.sendsAndShows(2_000, errorReply).shown;
    const attribution = attributeAll(h.observations()).get(session);
    expect(attribution?.cannedFor.get('<m2>')).toBe(reply);
    expect(attribution?.cannedFor.has('<m1>')).toBe(false);
    expect(attribution?.unexplained).toEqual([]);
  });
});

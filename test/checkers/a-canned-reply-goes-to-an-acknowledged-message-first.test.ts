// Canned replies (sim/checkers/attribution.ts, assignCanned) go to messages the gateway acknowledged before messages it
// never acknowledged: one never acknowledged was most likely never taken in (the platform gave up redelivering it), so
// it takes a canned reply only when no acknowledged message can. m0, a /clear typed while a power loss had the gateway
// down, is never acknowledged; m4, a later /clear, is, and the user sees one `Session cleared.`. Taken as the earliest
// /clear still open, m0 took it and m4 was reported unanswered (chaos campaigns at seeds 45 and 49, every-inbound-answered).
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { cannedReplies } from '../../sim/checkers/observations.ts';
import { KeylessHistory, session } from './keyless-history.ts';

describe('attribution: a canned reply and a message the gateway never acknowledged', () => {
  it('answers the acknowledged /clear, not an earlier one that was never taken in', () => {
    const history = new KeylessHistory();
    history.ledger.userTyped({ sessionKey: session, deliveryId: 'm0', text: '/clear', marker: '<m0>', mentions: true, sentAtMs: 500 });
    history.userTypes(17_000, 'm4', '/clear');
    const cleared = history.sendsAndShows(20_000, cannedReplies[1]);

    const attribution = attributeAll(history.observations()).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(attribution?.cannedFor.get('<m4>')).toBe(cleared.shown);
    expect(attribution?.cannedFor.has('<m0>')).toBe(false);
  });
});

// answered-in-time reads when a subject was first answered. An error reply answers the message it is assigned to and,
// as a mate, the other messages its turn's failed request carried; a later error reply may still be assigned to one of
// those (cannedFor), but the message was answered at the first (cannedFirst). In chaos (campaign seed 1, run 1,495 on
// the code before this fix) an exec run answered at 692 s as a mate was judged answered at 5,798 s, past its deadline.
import { describe, expect, it } from 'vitest';
import type { Attribution } from '../../sim/checkers/attribution.ts';
import { answeredAtMs } from '../../sim/checkers/liveness.ts';
import type { ShownFact, UserMessageFact } from '../../sim/world/ledger.ts';

const session = 'agent:main:chat:0';
const errorShown = (index: number, atMs: number): ShownFact => ({ index, sessionKey: session, text: 'Sorry, something went wrong. Please try again.', kind: 'chat', atMs });
const message: UserMessageFact = { sessionKey: session, deliveryId: 'd1', text: 'and calendar? [m1]', marker: '[m1]', mentions: true, sentAtMs: 1_000, deliveriesAtMs: [1_000], acknowledgedAtMs: 1_010 };

describe('answered-in-time', () => {
  it("takes a message's first canned reply (as a mate), not a later one assigned to it", () => {
    const first = errorShown(0, 692_339);
    const later = errorShown(1, 5_797_987);
    const attribution: Attribution = { session, answers: [], slotOf: new Map(), canned: [first, later], cannedFor: new Map([['[m1]', later]]), cannedFirst: new Map([['[m1]', first]]), unexplained: [] };
    expect(answeredAtMs(attribution, message)).toBe(692_339);
  });
});

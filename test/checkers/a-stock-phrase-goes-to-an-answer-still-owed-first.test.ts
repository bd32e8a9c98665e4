// The attribution's slot key (sim/checkers/attribution.ts, docs/MODEL.md "The attribution's rules"): between two slots
// a showing could fill that state.db shows equally (here neither: the scripted history has no durable state) and that
// are equally in order, the slot of an answer still owed to the user (standing) comes before one of a superseded
// answer, however new. m1's answer and m2's answer both offer the stock phrase as their first tool message; m2 is
// then merged into m3's turn, whose prompt carries m2 again, so m2's answer is superseded and owed no more. The one
// showing of the phrase is m1's: crediting the newer, superseded answer would leave m1's answer, still owed, with
// its tool message unshown (a false no-lost-reply).
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const stock = 'on it';

describe('attribution: a stock phrase two answers offer', () => {
  it('goes to the answer still owed before a newer, superseded one', () => {
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    h.userTypes(1_100, 'm2', 'and the weather?');
    h.userTypes(1_200, 'm3', 'and the build?');
    h.answers(h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_300), 'free at 2', 1_500, stock);
    h.answers(h.ledger.requestReceived(session, 'and the weather? <m2>', 1_600), 'rain', 1_800, stock);
    h.answers(h.ledger.requestReceived(session, 'and the weather? <m2>\nand the build? <m3>', 1_900), 'rain, and the build is green', 2_100);
    const phrase = h.sendsAndShows(2_200, stock).shown;
    h.sendsAndShows(2_300, 'free at 2');
    h.sendsAndShows(2_400, 'rain, and the build is green');
    const attribution = attributeAll(h.observations()).get(session);
    const owner = attribution?.slotOf.get(phrase)?.answer;
    expect(owner?.prompt).toBe('can you check the calendar? <m1>');
    expect(owner?.superseded).toBe(false);
    expect(attribution?.answers.find((answer) => answer.prompt === 'and the weather? <m2>')?.superseded).toBe(true);
    expect(attribution?.unexplained).toEqual([]);
  });
});

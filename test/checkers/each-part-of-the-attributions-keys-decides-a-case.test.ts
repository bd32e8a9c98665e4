// The attribution's keys (sim/checkers/attribution.ts; docs/MODEL.md "The attribution's rules"): each case below is
// decided by one part of a key that the other parts leave tied, so switching that part off gives the showing or the
// canned reply to the wrong candidate. Scripted histories, with no durable state: every slot is equally (un)sent.
import { describe, expect, it } from 'vitest';
import { type Attribution, attributeAll } from '../../sim/checkers/attribution.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const errorReply = 'Sorry, something went wrong. Please try again.';
const stock = 'on it';

function judge(h: KeylessHistory): Attribution | undefined {
  return attributeAll(h.observations()).get(session);
}

describe("the attribution's keys", () => {
  it('showings, latest: a stock phrase shown after a newer answer returned is the newer answer’s, not a given-up one’s', () => {
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    const forM1 = h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_100);
    h.answers(forM1, 'free at 2', 1_200, stock);
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_300), 1_400);
    h.sendsAndShows(2_000, errorReply); // m1's turn gave up: its answer is owed no more
    h.userTypes(2_500, 'm2', 'and the weather?');
    h.answers(h.ledger.requestReceived(session, 'and the weather? <m2>', 2_600), 'rain', 3_000, stock);
    const phrase = h.sendsAndShows(3_100, stock).shown;
    h.sendsAndShows(3_200, 'rain');
    const attribution = judge(h);
    expect(attribution?.slotOf.get(phrase)?.answer.prompt).toBe('and the weather? <m2>');
    expect(attribution?.answers.find((answer) => answer.prompt.includes('<m1>'))?.gaveUp).toBe(true);
  });

  it('evidence 2: a message the session moved on from takes the error reply before one with a mere sign', () => {
    // m1's answer came back and was never shown; the session then asked m0's request (m0 was queued), whose answer is
    // shown whole only after the reply. At the reply m0 shows only a sign (its answer back, not yet shown whole): its
    // turn went on to show it. m1's turn gave up.
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm0', 'can you check the build?');
    h.userTypes(1_050, 'm1', 'and the calendar?');
    h.answers(h.ledger.requestReceived(session, 'and the calendar? <m1>', 1_100), 'free at 2', 1_500);
    h.answers(h.ledger.requestReceived(session, 'can you check the build? <m0>', 2_000), 'green', 2_500);
    const reply = h.sendsAndShows(2_600, errorReply).shown;
    h.sendsAndShows(3_000, 'green');
    const attribution = judge(h);
    expect(attribution?.cannedFor.get('<m1>')).toBe(reply);
    expect(attribution?.cannedFor.has('<m0>')).toBe(false);
  });

  it('evidence 2 is not an answer shown whole in the end: its turn went on to dispatch it', () => {
    // fuzz --all seed 501, scheduled-tasks run 262. m2's answer came back and was never shown: its turn gave up. m1's
    // answer came back after it and was shown whole, but only after the error reply, and m3's turn had asked by then,
    // so the session had moved on past both. m1's turn went on to dispatch its answer; the reply is m2's.
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    h.userTypes(1_050, 'm2', 'post the morning digest');
    h.userTypes(1_070, 'm3', 'and the weather?');
    h.answers(h.ledger.requestReceived(session, 'post the morning digest <m2>', 1_100), 'digest', 1_200);
    h.answers(h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_300), 'free at 2', 1_400);
    h.answers(h.ledger.requestReceived(session, 'and the weather? <m3>', 1_500), 'rain', 1_600);
    const reply = h.sendsAndShows(2_000, errorReply).shown;
    h.sendsAndShows(3_000, 'free at 2');
    h.sendsAndShows(3_100, 'rain');
    const attribution = judge(h);
    expect(attribution?.cannedFor.get('<m2>')).toBe(reply);
    expect(attribution?.cannedFor.has('<m1>')).toBe(false);
    expect(attribution?.answers.find((answer) => answer.prompt.includes('<m2>'))?.gaveUp).toBe(true);
  });

  it('mate: a message no reply answered yet takes the next error reply before a mate of an earlier one', () => {
    // m0 and m1 were one turn, m2 another; both failed and gave up. The first reply answers m0 and, as its mate, m1;
    // the second is m2's, which would otherwise have none (m1 may have been told by its turn's one reply).
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm0', 'can you check the build?');
    h.userTypes(1_050, 'm1', 'and the calendar?');
    h.userTypes(1_100, 'm2', 'and the weather?');
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'can you check the build? <m0>\nand the calendar? <m1>', 1_200), 1_300);
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'and the weather? <m2>', 1_400), 1_500);
    const first = h.sendsAndShows(2_000, errorReply).shown;
    const second = h.sendsAndShows(2_100, errorReply).shown;
    const attribution = judge(h);
    expect(attribution?.cannedFor.get('<m0>')).toBe(first);
    expect(attribution?.cannedFirst.get('<m1>')).toBe(first);
    expect(attribution?.cannedFor.get('<m2>')).toBe(second);
  });

  it('covered only by then: an answer shown after the error reply does not cover its message at the reply', () => {
    // m1's answer came back, a write failed and the retry failed: the turn gave up, and its error reply was shown
    // before the answer, whose dropped send went out later. m0's answer came back before m1's request and was never
    // shown (the session moved on past it). The reply is m1's, whose last request had failed; counting m1 covered by
    // its later answer would hand the reply to m0.
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm0', 'can you check the build?');
    h.userTypes(1_050, 'm1', 'and the calendar?');
    h.answers(h.ledger.requestReceived(session, 'can you check the build? <m0>', 1_100), 'green', 1_200);
    h.answers(h.ledger.requestReceived(session, 'and the calendar? <m1>', 1_300), 'free at 2', 1_400);
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'and the calendar? <m1>', 1_500), 1_600);
    const reply = h.sendsAndShows(2_000, errorReply).shown;
    h.sendsAndShows(5_000, 'free at 2');
    const attribution = judge(h);
    expect(attribution?.cannedFor.get('<m1>')).toBe(reply);
    expect(attribution?.cannedFor.has('<m0>')).toBe(false);
  });

  it('failed only by then: a request still in flight at the reply, which fails later, is no evidence', () => {
    // m1's answer came back and nothing of it was ever shown: its turn gave up. m2's request was in flight when the
    // reply was shown and failed a few seconds later (campaign seed 57, run 1381). Counting it failed at the reply
    // would make m2 the stronger candidate and leave m1 unanswered.
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    h.answers(h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_100), 'free at 2', 1_500);
    h.userTypes(1_700, 'm2', 'and the build?');
    const forM2 = h.ledger.requestReceived(session, 'and the build? <m2>', 1_800);
    const reply = h.sendsAndShows(2_000, errorReply).shown;
    h.ledger.requestFailed(forM2, 5_000);
    const attribution = judge(h);
    expect(attribution?.cannedFor.get('<m1>')).toBe(reply);
    expect(attribution?.cannedFor.has('<m2>')).toBe(false);
  });

  it('arrival: of two messages equal in everything else, the earlier takes the first error reply', () => {
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the build?');
    h.userTypes(1_050, 'm2', 'and the calendar?');
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'can you check the build? <m1>', 1_100), 1_200);
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'and the calendar? <m2>', 1_300), 1_400);
    const first = h.sendsAndShows(2_000, errorReply).shown;
    const second = h.sendsAndShows(2_100, errorReply).shown;
    const attribution = judge(h);
    expect(attribution?.cannedFor.get('<m1>')).toBe(first);
    expect(attribution?.cannedFor.get('<m2>')).toBe(second);
  });
});

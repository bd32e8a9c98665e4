// An error reply answers a subject whose turn had ended by the time it was shown, judged from what the ledger says
// happened by then: a request still in flight at the showing, which the API fails only later, had not failed (the
// ledger records when each request ended), and a subject first asked about later was still waiting for its turn.
// Chaos campaign seed 57, run 1381: the error reply of m5 (whose answer came back and was only partly shown before
// its turn gave up) went to a command's start whose heartbeat request was in flight and failed a minute later, and
// m5's closing text was reported lost.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const errorReply = 'Sorry, something went wrong. Please try again.';

/**
 * m1's answer comes back and its tool message is shown; the turn then gives up (its closing text never shown). m2's
 * request is in flight when the error reply is shown and fails later; m3 is asked only after the showing.
 */
function history(m2FailsAtMs: number): KeylessHistory {
  const h = new KeylessHistory();
  h.userTypes(1_000, 'm1', 'can you check the calendar?');
  const forM1 = h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_100);
  h.ledger.answerReturned(forM1, { toolCalls: [{ id: 'call-1', name: 'send_message', text: 'Looking it up' }], result: '<message to="user">m1 is done</message>' }, 1_500);
  h.sendsAndShows(1_600, 'Looking it up');
  h.userTypes(1_700, 'm2', 'and the build?');
  const forM2 = h.ledger.requestReceived(session, 'and the build? <m2>', 1_800);
  h.userTypes(1_900, 'm3', 'and the weather?');
  h.sendsAndShows(2_000, errorReply);
  h.ledger.requestFailed(forM2, m2FailsAtMs);
  const forM3 = h.ledger.requestReceived(session, 'and the weather? <m3>', 6_000);
  h.ledger.answerReturned(forM3, { toolCalls: [], result: '<message to="user">sunny</message>' }, 6_500);
  h.sendsAndShows(6_600, 'sunny');
  return h;
}

describe('an error reply goes to a turn that had failed by the time it was shown', () => {
  it('not to a message whose request was still in flight then and failed later (campaign seed 57)', () => {
    const attribution = attributeAll(history(5_000).observations()).get(session);
    const reply = attribution?.canned[0];
    expect(reply?.text).toBe(errorReply);
    expect(attribution?.cannedFor.get('<m1>')).toBe(reply);
    expect(attribution?.cannedFor.has('<m2>')).toBe(false);
    expect(attribution?.cannedFor.has('<m3>')).toBe(false);
    // m1's turn gave up: its closing text is owed no more.
    expect(attribution?.answers.find((answer) => answer.subjects.includes('<m1>'))?.gaveUp).toBe(true);
  });

  it('to the message whose request had failed before it, when one had', () => {
    const attribution = attributeAll(history(1_950).observations()).get(session);
    expect(attribution?.cannedFor.get('<m2>')).toBe(attribution?.canned[0]);
    expect(attribution?.answers.find((answer) => answer.subjects.includes('<m1>'))?.gaveUp).toBe(false);
  });
});

describe('an error reply with no turn that had ended by then', () => {
  it('is credited to no message whose request was still in flight: it is a reply nobody was owed', () => {
    // m1's only request is in flight when an error reply is shown; its answer comes back later and is shown. Before,
    // the error reply went to m1 as the earliest open message, and the user's being told m1 failed went unremarked.
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    const forM1 = h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_100);
    const bogus = h.sendsAndShows(2_000, errorReply);
    h.ledger.answerReturned(forM1, { toolCalls: [], result: '<message to="user">the calendar is clear</message>' }, 3_000);
    h.sendsAndShows(3_100, 'the calendar is clear');
    const attribution = attributeAll(h.observations()).get(session);
    expect(attribution?.cannedFor.has('<m1>')).toBe(false);
    expect(attribution?.unexplained.map((entry) => entry.shown)).toEqual([bogus.shown]);
  });
});

describe('one error reply for a turn of several messages', () => {
  it('answers every message the failed request carried (a system may tell a merged turn once)', () => {
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    h.userTypes(1_050, 'm2', 'and the weather?');
    h.ledger.requestFailed(h.ledger.requestReceived(session, 'can you check the calendar? <m1>\nand the weather? <m2>', 1_100), 1_500);
    const reply = h.sendsAndShows(2_000, errorReply);
    const attribution = attributeAll(h.observations()).get(session);
    expect(attribution?.cannedFirst.get('<m1>')).toBe(reply.shown);
    expect(attribution?.cannedFirst.get('<m2>')).toBe(reply.shown);
    expect(attribution?.cannedFor.get('<m2>')).toBe(reply.shown);
    expect(attribution?.unexplained).toEqual([]);
  });
});

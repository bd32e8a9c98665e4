// failure-notice-final: once the user was shown the error reply for a message, the LLM may not be asked about it again
// (the system told the user the request failed). A scripted world acts on m1 two minutes after its error reply, well
// inside answered-in-time's bounds, and is caught; the same history without the late request, or with a request for
// another message only, passes.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { checkFailureNotices } from '../../sim/checkers/finality.ts';
import { Placement } from '../../sim/checkers/placement.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const errorReply = 'Sorry, something went wrong. Please try again.';

function judge(history: KeylessHistory): Violation[] {
  const o = history.observations();
  const out: Violation[] = [];
  checkFailureNotices(o, attributeAll(o), out, new Placement(o));
  return out;
}

/** m1's only request fails and the user is shown the error reply at 2 s; `after` runs next. */
function failedM1(after: (history: KeylessHistory) => void): KeylessHistory {
  const history = new KeylessHistory();
  history.userTypes(1_000, 'm1', 'can you book the flight?');
  history.ledger.requestFailed(history.ledger.requestReceived(session, 'can you book the flight? <m1>', 1_100), 1_500);
  history.sendsAndShows(2_000, errorReply);
  after(history);
  return history;
}

describe('failure-notice-final', () => {
  it('catches a request that carries a message two minutes after its error reply was shown', () => {
    const history = failedM1((h) => {
      const late = h.ledger.requestReceived(session, 'can you book the flight? <m1>', 122_000);
      h.ledger.answerReturned(late, { toolCalls: [], result: '<message to="user">booked</message>' }, 122_500);
      h.sendsAndShows(123_000, 'booked');
    });
    const violations = judge(history);
    expect(violations).toHaveLength(1);
    expect(violations[0]?.invariant).toBe('failure-notice-final');
    expect(violations[0]?.message).toContain('message <m1>');
    expect(violations[0]?.message).toContain('error reply for message <m1> (delivery m1) at 2.0s');
    expect(violations[0]?.timeMs).toBeGreaterThanOrEqual(122_000);
  });

  it('passes when the system leaves the message alone after its error reply, and acts on a new message', () => {
    expect(judge(failedM1(() => {}))).toEqual([]);
    const history = failedM1((h) => {
      h.userTypes(100_000, 'm2', 'then book the train');
      const next = h.ledger.requestReceived(session, 'then book the train <m2>', 100_100);
      h.ledger.answerReturned(next, { toolCalls: [], result: '<message to="user">train booked</message>' }, 100_500);
      h.sendsAndShows(101_000, 'train booked');
    });
    expect(judge(history)).toEqual([]);
  });

  it('passes a retry asked before the error reply was shown (the turn was still running)', () => {
    const history = new KeylessHistory();
    history.userTypes(1_000, 'm1', 'can you book the flight?');
    history.ledger.requestFailed(history.ledger.requestReceived(session, 'can you book the flight? <m1>', 1_100), 1_500);
    history.ledger.requestFailed(history.ledger.requestReceived(session, 'can you book the flight? <m1>', 1_600), 1_900);
    history.sendsAndShows(2_000, errorReply);
    expect(judge(history)).toEqual([]);
  });
});

describe('failure-notice-final on a platform that ignores idempotency keys', () => {
  it('takes a resent error reply for the repeat it is, not for the notice of a message whose turn is still retrying', () => {
    // Campaign seed 1, chaos run 298: m7's turn gives up and its error reply is shown, its acknowledgement lost; m8's
    // request has failed once and its turn goes on retrying. The gateway resends m7's reply. Taken for m8's notice,
    // m8's next request would break failure-notice-final; it is m7's repeat.
    const history = new KeylessHistory();
    history.userTypes(1_000, 'm7', 'can you check the invoice?');
    history.ledger.requestFailed(history.ledger.requestReceived(session, 'can you check the invoice? <m7>', 1_100), 1_500);
    history.userTypes(1_200, 'm8', 'and the build?');
    history.ledger.requestFailed(history.ledger.requestReceived(session, 'and the build? <m8>', 1_600), 1_900);
    const first = history.sendsAndShows(2_000, errorReply, false);
    history.sendsAndShows(2_500, errorReply);
    const retry = history.ledger.requestReceived(session, 'and the build? <m8>', 3_000);
    history.ledger.answerReturned(retry, { toolCalls: [], result: '<message to="user">the build is green</message>' }, 3_500);
    history.sendsAndShows(3_600, 'the build is green');

    const o = history.observations();
    const attribution = attributeAll(o).get(session);
    expect(attribution?.cannedFor.get('<m7>')).toBe(first.shown);
    expect(attribution?.cannedFor.has('<m8>')).toBe(false);
    expect(attribution?.unexplained).toEqual([]);
    expect(judge(history)).toEqual([]);
  });
});

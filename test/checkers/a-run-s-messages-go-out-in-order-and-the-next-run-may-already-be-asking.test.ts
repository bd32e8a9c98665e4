// Two attribution rules that Hermes' processing mode needed (issue 24 item 7: a run ends at its first failure with the
// error reply, and the runner starts the next message's run at once), each shown here by a history where the verdict
// changes without it:
// - inOrder: between slots equal on evidence, a showing fills one whose answer's earlier tool messages were all shown
//   by then: a run makes its tool calls one after another, and a session's rows are delivered in order (chaos seed 2
//   with the Hermes patch: a stock phrase went to a newer answer's third call, none of whose first two had been shown);
// - askedBy: the session's last request before a canned reply is the last that had ended by then; a request still in
//   flight at the showing is the next run's, asked while the reply was on its way (chaos seed 1 with the Hermes patch).
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const errorReply = 'Sorry, something went wrong. Please try again.';

describe('inOrder', () => {
  it("fills the slot of the answer whose earlier tool messages were shown, not a newer answer's later call", () => {
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    const forM1 = h.ledger.requestReceived(session, 'can you check the calendar? <m1>', 1_100);
    h.ledger.answerReturned(
      forM1,
      { toolCalls: [{ id: 'call-a1', name: 'send_message', text: 'on it' }, { id: 'call-a2', name: 'send_message', text: 'done' }], result: '<message to="user">free at 2</message>' },
      1_500,
    );
    h.sendsAndShows(1_600, 'on it');
    h.userTypes(1_700, 'm2', 'and the build?');
    const forM2 = h.ledger.requestReceived(session, 'and the build? <m2>', 1_800);
    h.ledger.answerReturned(
      forM2,
      { toolCalls: [{ id: 'call-b1', name: 'send_message', text: 'interim update' }, { id: 'call-b2', name: 'send_message', text: 'done' }], result: '<message to="user">green</message>' },
      2_000,
    );
    // The m1 run's second message goes out after m2's answer came back: it is m1's "done", the next in its run.
    const done = h.sendsAndShows(2_100, 'done').shown;
    const attribution = attributeAll(h.observations()).get(session);
    expect(attribution?.slotOf.get(done)?.answer.subjects).toEqual(['<m1>']);
  });
});

describe('askedBy', () => {
  it("ends the turn of the last request that had returned by the showing, with every message it carried, not the in-flight next run's", () => {
    // m1 and m2 share a run whose answer came back and whose tool message was shown; the run then fails and gives up
    // with one error reply. m3's run has asked already when the reply is shown, and returns later.
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm1', 'can you check the calendar?');
    h.userTypes(1_050, 'm2', 'and the weather?');
    const forBoth = h.ledger.requestReceived(session, 'can you check the calendar? <m1>\nand the weather? <m2>', 1_100);
    h.ledger.answerReturned(forBoth, { toolCalls: [{ id: 'call-1', name: 'send_message', text: 'Looking it up' }], result: '<message to="user">free, and sunny</message>' }, 1_500);
    h.sendsAndShows(1_600, 'Looking it up');
    h.userTypes(1_700, 'm3', 'and the build?');
    const forM3 = h.ledger.requestReceived(session, 'and the build? <m3>', 1_900);
    const reply = h.sendsAndShows(2_000, errorReply).shown;
    h.ledger.answerReturned(forM3, { toolCalls: [], result: '<message to="user">green</message>' }, 2_500);
    h.sendsAndShows(2_600, 'green');
    const attribution = attributeAll(h.observations()).get(session);
    expect(attribution?.cannedFor.get('<m1>')).toBe(reply);
    expect(attribution?.cannedFor.get('<m2>')).toBe(reply);
    expect(attribution?.cannedFor.has('<m3>')).toBe(false);
    expect(attribution?.answers.find((answer) => answer.subjects.includes('<m1>'))?.gaveUp).toBe(true);
  });
});

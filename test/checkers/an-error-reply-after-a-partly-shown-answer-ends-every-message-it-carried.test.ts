// Canned replies (sim/checkers/attribution.ts, assignCanned): a turn may give up after its last request was answered
// and part of the answer was shown (its writes kept failing after the tool messages went out). Its error reply then
// answers every message that request carried, not only the one it is assigned to, so the answer is given up and its
// unshown closing text is not a lost reply. Before, only a failed request named the turn's other messages, and the
// closing text was reported lost (chaos campaign seed 17, run 385: a command's start and finish in one row). A
// hand-built history: m0 and m1 are asked in one request, its answer's tool message is shown, then the error reply.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { cannedReplies } from '../../sim/checkers/observations.ts';
import { KeylessHistory, session } from './keyless-history.ts';

describe('attribution: an error reply after an answer shown in part or not at all', () => {
  it('ends every message the answered request carried, so the answer is given up', () => {
    const history = new KeylessHistory();
    history.userTypes(1_000, 'm0', 'first question');
    history.userTypes(1_100, 'm1', 'second question');
    const request = history.ledger.requestReceived(session, 'first question <m0>\nsecond question <m1>', 2_000);
    history.ledger.answerReturned(request, { toolCalls: [{ id: 'call-1', name: 'send_message', text: 'Looking it up' }], result: 'the calendar is clear' }, 2_500);
    const tool = history.sendsAndShows(3_000, 'Looking it up');
    history.sendsAndShows(9_000, cannedReplies[0]);

    const attribution = attributeAll(history.observations()).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(attribution?.slotOf.get(tool.shown)?.text).toBe('Looking it up');
    expect(attribution?.answers).toHaveLength(1);
    expect(attribution?.answers[0]?.gaveUp).toBe(true);
  });

  it('ends the messages of an answer the user never saw, not a message asked only later (chaos seed 41, run 1964)', () => {
    // m5 and m7 are asked in one request; its answer comes back, but nothing of it is shown (every dispatch found
    // outbound.db busy) and the turn gives up with one error reply per message. m9 arrived before those replies and
    // is asked only after them (and fails). The replies are m5's and m7's: the session's last request carried them and
    // its answer, which had something for the user, was never shown. Before, an answer counted only when part of it was
    // shown, and the first reply went to m9, which no request had carried yet.
    const history = new KeylessHistory();
    history.userTypes(1_000, 'm5', 'can you check the build?');
    history.userTypes(1_100, 'm7', 'and the flights?');
    const request = history.ledger.requestReceived(session, 'can you check the build? <m5>\nand the flights? <m7>', 2_000);
    history.ledger.answerReturned(request, { toolCalls: [], result: '<message to="user">Looking it up</message>' }, 2_500);
    history.userTypes(5_000, 'm9', 'and the meeting notes?');
    const forM5 = history.sendsAndShows(9_000, cannedReplies[0]);
    const forM7 = history.sendsAndShows(9_020, cannedReplies[0]);
    history.ledger.requestFailed(history.ledger.requestReceived(session, 'and the meeting notes? <m9>', 12_000), 12_500);
    const forM9 = history.sendsAndShows(20_000, cannedReplies[0]);

    const attribution = attributeAll(history.observations()).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(attribution?.cannedFor.get('<m5>')).toBe(forM5.shown);
    expect(attribution?.cannedFor.get('<m7>')).toBe(forM7.shown);
    expect(attribution?.cannedFor.get('<m9>')).toBe(forM9.shown);
    expect(attribution?.answers[0]?.gaveUp).toBe(true);
  });
});

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

describe('attribution: an error reply after a partly shown answer', () => {
  it('ends every message the answered request carried, so the answer is given up', () => {
    const history = new KeylessHistory();
    history.userTypes(1_000, 'm0', 'first question');
    history.userTypes(1_100, 'm1', 'second question');
    const request = history.ledger.requestReceived(session, 'first question <m0>\nsecond question <m1>', 2_000);
    history.ledger.answerReturned(request, { toolCalls: [{ id: 'call-1', name: 'send_message', text: 'Looking it up' }], result: 'the calendar is clear' }, 2_500);
    const tool = history.platformShows(3_010, history.gatewaySends(3_000), 'Looking it up');
    history.arrives(3_015, tool.ackId);
    const error = history.platformShows(9_010, history.gatewaySends(9_000), cannedReplies[0]);
    history.arrives(9_015, error.ackId);

    const attribution = attributeAll(history.observations()).get(session);
    expect(attribution?.unexplained).toEqual([]);
    expect(attribution?.slotOf.get(tool.shown)?.text).toBe('Looking it up');
    expect(attribution?.answers).toHaveLength(1);
    expect(attribution?.answers[0]?.gaveUp).toBe(true);
  });
});

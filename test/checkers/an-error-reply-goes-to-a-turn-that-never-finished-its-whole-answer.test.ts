// A turn may give up after its whole answer was shown: its tool messages went out (the closing text repeating them),
// then a write failed and the retry gave up without asking the LLM again. Its answer covered the message, so the error
// reply names it only on evidence: here, that the answer's closing text never became a final row of state.db (a run
// writes its final row before it dispatches the closing text, so a turn that went on wrote it). Chaos seed 603, run
// 14607: m4's turn gave up so; the next message's turn (Hermes starts it as soon as the error reply is written) had
// asked and got its answer back before the reply was shown, and was asked again after it. Crediting the reply to m7
// said the system acted on a request after telling the user it failed (a false failure-notice-final).
import { describe, expect, it } from 'vitest';
import { type Attribution, attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const sql = await loadSqlJs();

const errorReply = 'Sorry, something went wrong. Please try again.';

/** m4's answer shown whole, then m7 asked and answered before the error reply, and asked again after it. */
function history(): KeylessHistory {
  const h = new KeylessHistory();
  h.userTypes(1_000, 'm4', 'can you check the calendar?');
  h.answers(h.ledger.requestReceived(session, 'can you check the calendar? <m4>', 1_100), 'on it', 1_500, 'on it');
  h.sendsAndShows(1_600, 'on it');
  h.userTypes(50_000, 'm7', 'can you check the invoice?');
  h.answers(h.ledger.requestReceived(session, 'can you check the invoice? <m7>', 80_000), 'report ready', 80_200);
  h.sendsAndShows(80_500, errorReply);
  h.answers(h.ledger.requestReceived(session, 'can you check the invoice? <m7>\n', 81_000), 'report ready', 81_500);
  h.sendsAndShows(82_000, 'report ready');
  return h;
}

function judge(h: KeylessHistory, m4Finished: boolean): Attribution | undefined {
  const o = h.observations();
  // m4's turn wrote its final row, or never did (no row: the durable state holds nothing else).
  if (m4Finished) o.durable.rows.push({ id: 1, sessionKey: session, sessionId: session, timestamp: 1_550, role: 'assistant', content: '<message to="user">on it</message>', toolCallIds: [], toolCallId: null });
  return attributeAll(o).get(session);
}

describe('an error reply after a whole answer', () => {
  it('goes to the message whose turn never wrote its final row, before one asked about again', () => {
    const attribution = judge(history(), false);
    const reply = attribution?.canned[0];
    expect(reply?.text).toBe(errorReply);
    expect(attribution?.cannedFor.get('<m4>')).toBe(reply);
    expect(attribution?.cannedFor.has('<m7>')).toBe(false);
  });

  it('does not go to a message whose turn wrote its final row (its turn finished)', () => {
    const attribution = judge(history(), true);
    expect(attribution?.cannedFor.has('<m4>')).toBe(false);
    expect(attribution?.cannedFor.get('<m7>')?.text).toBe(errorReply);
  });

  it('passes the frozen plan of chaos seed 603, run 14607', async () => {
    await withFrozenPlan(sql, 'error-reply-after-a-whole-answer-never-finished', (result) => {
      const forM4 = result.ledger.requests.filter((request) => request.prompt.includes('[m4]'));
      expect(forM4.at(-1)?.outcome).toBe('answer');
      expect(result.ledger.shown.some((fact) => fact.text === errorReply)).toBe(true);
      expect(result.violations).toEqual([]);
    });
  });
});

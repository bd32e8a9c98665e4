// no-duplicate-visible-reply: every message the user saw is traced, through the ledger, to an answer the LLM returned
// for a prompt carrying the user's message. A previous turn's reply shown again as the answer to a later message
// finds no answer producing it, however the system labelled it: here the reply is re-sent under a fresh outbound
// row id and delivery key, put in place of the later turn's own reply on the wire, or (the fallback bug)
// dispatched by the later turn itself as its own final reply, with every id the system keeps consistent.
import { describe, expect, it } from 'vitest';
import { errorReply, LlmTransientError, outboundPath, stateDbPath } from '../../src/index.ts';
import type { OutboundSend } from '../../src/protocol.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, marker, session0, withRun } from '../model/support.ts';
import { both, firstReply, input, interim, messagesOf, type Prepare, secondReply, shown, sqlAt, tamperNetwork } from './support.ts';

const sql = await loadSqlJs();
const invariant = 'no-duplicate-visible-reply';
const m1 = marker(1);

/** The LLM API fails every request for the second message, for ever (the runner gives up with its error reply). */
const llmFailsOnSecondMessage: Prepare = (_sim, _model, world) => {
  const api = world.modelApi;
  const complete = api.complete.bind(api);
  api.complete = async (request, timers) => {
    if (request.prompt.includes(m1)) {
      await timers.sleep(500);
      throw new LlmTransientError('503 overloaded');
    }
    return complete(request, timers);
  };
};

/** A rogue outbound row, with a fresh id, re-sending the first reply's text for the gateway to deliver. */
const resendFirstReply = sqlAt(
  21_000,
  outboundPath(session0),
  "INSERT INTO messages_out(id, seq, in_reply_to, kind, content, source, created_at) VALUES ('out-7f3a', (SELECT MAX(seq) + 1 FROM messages_out), NULL, 'chat', ?, 'result', 21000)",
  [JSON.stringify({ text: firstReply })],
);

/**
 * The fallback bug, reproduced from outside: while every LLM request for the second message fails, the first
 * turn's final assistant row is written again as the second turn's final row. This is the one sabotage that writes
 * the model's private `turn_id` column, and only to steer the model into the bug (its resume path dispatches a
 * turn's durable final row instead of asking the LLM): every id the system keeps is then consistent, which is what
 * made the real bug invisible to checkers that trusted those ids.
 */
const fallBackToPreviousReply = sqlAt(
  21_000,
  stateDbPath,
  "INSERT INTO messages(session_id, role, content, tool_calls, timestamp, turn_id) SELECT session_id, 'assistant', content, NULL, 21000, 'in:d1' FROM messages WHERE role = 'assistant' AND content LIKE ?",
  [`%${firstReply}%`],
);

/** On the wire, the second turn's reply is replaced by the first turn's reply (the delivery key is left alone). */
const swapSecondReply = tamperNetwork((_from, to, payload) => {
  const send = payload as Partial<OutboundSend>;
  return to === 'platform' && send.type === 'send' && send.text === secondReply ? [{ ...send, text: firstReply }] : [payload];
});

describe('no-duplicate-visible-reply', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, input(), (result) => {
      expect(shown(result)).toEqual([firstReply, interim, secondReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it("fires when a previous turn's reply is re-sent as the answer to a message the LLM never answered", async () => {
    await withRun(sql, input(both(llmFailsOnSecondMessage, resendFirstReply)), (result) => {
      expect(result.ledger.requests.filter((request) => request.prompt.includes(m1)).every((request) => request.outcome === 'error')).toBe(true);
      expect(shown(result)).toEqual([firstReply, firstReply, errorReply]);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: the user saw "${firstReply}" again (already shown as the answer to ${marker(0)}), with no new answer producing it`,
      ]);
    });
  });

  it("fires when the later turn's reply is replaced on the wire by the earlier turn's reply", async () => {
    await withRun(sql, input(swapSecondReply), (result) => {
      expect(shown(result)).toEqual([firstReply, interim, firstReply]);
      // The second answer's own reply never reached the user, so no-lost-reply fires beside it.
      expect(invariants(result)).toEqual([invariant, 'no-lost-reply']);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: the user saw "${firstReply}" again (already shown as the answer to ${marker(0)}), with no new answer producing it`,
      ]);
      expect(messagesOf(result, 'no-lost-reply')).toEqual([`${session0}: the reply "${secondReply}" the LLM produced for ${m1} was never shown`]);
    });
  });

  it("fires when the system falls back to the previous turn's reply as the answer to a message the LLM never answered", async () => {
    await withRun(sql, input(both(llmFailsOnSecondMessage, fallBackToPreviousReply)), (result) => {
      expect(result.ledger.answers.some((answer) => answer.prompt.includes(m1))).toBe(false);
      expect(shown(result)).toEqual([firstReply, firstReply]);
      // The LLM never answered the second message, so it also got no reply of its own; and the first answer's closing
      // text is now durable twice (the second turn wrote it to the JSONL too).
      expect(invariants(result)).toEqual(['every-inbound-answered', invariant, 'one-assistant-row-per-visible-reply']);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: the user saw "${firstReply}" again (already shown as the answer to ${marker(0)}), with no new answer producing it`,
      ]);
      expect(messagesOf(result, 'every-inbound-answered')).toEqual([`${session0}: message ${m1} (delivery d1) got no reply 120000 ms after the faults stopped`]);
      expect(messagesOf(result, 'one-assistant-row-per-visible-reply')).toContain(`${session0}: the JSONL active branch holds the closing text of the answer to ${marker(0)} 2 times`);
    });
  });
});

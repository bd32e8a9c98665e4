// A group message that does not mention the agent (the ledger's `mentions: false`) is context: nanoclaw's router
// stores it with trigger=0, no run starts for it, and it rides along with the next batch that has a message which
// does mention the agent. The oracle owes it no reply (every-inbound-answered leaves it out, and no canned reply is
// assigned to it), but once a later message of its session was taken up while the context still fitted the batch,
// it must be in that prompt's transcripts (no-lost-user-message). The sabotage removes the context row from
// inbound.db before the next message arrives (found by its marker, as another writer would).
import { describe, expect, it } from 'vitest';
import { inboundPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { contextMessage, forMessage, handPlan, invariants, llmPrompts, marker, reply, session0, stateRows, user, withRun } from '../model/support.ts';
import { messagesOf, shown, sqlAt } from './support.ts';

const sql = await loadSqlJs();
const m0 = marker(0);
const m1 = marker(1);
const answer = 'the venue sounds good';

const context = contextMessage;
const contextThenQuestion = handPlan([context(1_000, 'we could book the venue'), user(20_000, 'what do you think?')]);
const contextAlone = handPlan([context(1_000, 'we could book the venue')]);
const script = forMessage({ 1: { toolCalls: [], result: reply(answer) } });

describe('context messages (a group message that does not mention the agent)', () => {
  it('hold untouched: no run for the context alone; the next question carries it and is answered once', async () => {
    await withRun(sql, { bugs: [], plan: contextThenQuestion, script }, (result) => {
      expect(result.ledger.userMessages.map((message) => message.mentions)).toEqual([false, true]);
      expect(llmPrompts(result)).toEqual([`we could book the venue ${m0}\nwhat do you think? ${m1}`]);
      expect(shown(result)).toEqual([answer]);
      expect(stateRows(result).filter((row) => row.role === 'user').map((row) => row.content)).toEqual([`we could book the venue ${m0}\nwhat do you think? ${m1}`]);
      expect(result.violations).toEqual([]);
    });
  });

  it('hold with nothing after the context: it is owed no reply and need not reach any transcript', async () => {
    await withRun(sql, { bugs: [], plan: contextAlone, script }, (result) => {
      expect(result.ledger.userMessages[0]?.acknowledgedAtMs).not.toBeNull();
      expect(llmPrompts(result)).toEqual([]);
      expect(shown(result)).toEqual([]);
      expect(stateRows(result)).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });

  it('no-lost-user-message fires when the context never reaches the prompt of the question after it', async () => {
    const dropContext = sqlAt(10_000, inboundPath(session0), 'DELETE FROM messages_in WHERE content LIKE ?', [`%${m0}%`]);
    await withRun(sql, { bugs: [], plan: contextThenQuestion, script, prepare: dropContext }, (result) => {
      expect(llmPrompts(result)).toEqual([`what do you think? ${m1}`]);
      expect(shown(result)).toEqual([answer]);
      expect(invariants(result)).toEqual(['no-lost-user-message']);
      expect(messagesOf(result, 'no-lost-user-message')).toEqual([`${session0}: message ${m0} (delivery d0) (context for a later message) was accepted but never reached state.db`]);
    });
  });
});

// Attribution on a key-less platform (sim/checkers/attribution.ts, at-least-once.ts): a showing that is an
// at-least-once repeat the platform could not drop is excused, not used to fill a closing-text slot whose answer has
// no durable final row in state.db. The answer to m0 closes with a stock phrase, but the runner is killed after the
// answer came back and before its final row was flushed and the LLM API is down for every retry, so the turn gives up
// with the error reply: no final row of it is durable. Much later the answer to m1 closes with the same stock phrase,
// its final row is durable and it is shown; the link between platform and gateway is cut the moment the platform
// acknowledges that send, so the gateway cannot know it landed and sends it again: the user sees the phrase twice.
// The first showing is m1's (a closing text with its final row outranks one without); the second is an excusable
// repeat. Under the old rule (only a superseded answer or a tool call never made was weak) the repeat filled the open
// slot of m0's given-up answer, and one-assistant-row-per-visible-reply reported 0 assistant rows for it.
import { describe, expect, it } from 'vitest';
import { stateDbPath } from '../../src/index.ts';
import { cannedReplies } from '../../sim/checkers/observations.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { stockAnswers } from '../../sim/world/index.ts';
import { answersTo, forMessage, invariants, reply, withRun } from '../model/support.ts';
import { hermesRows, loseFirstAckOf, messagesOf, shown , givenUpThenAnswered } from './support.ts';

const sql = await loadSqlJs();

const stock = 'working on it';
const errorReply = cannedReplies[0];

/**
 * m0 at 1 s; its model call starts at 2,023 ms and the answer comes back at about 4,670 ms (the fake LLM's latency for
 * this prompt); the runner is killed at 4,671 ms, after the answer returned and before its final row's flush (4,673 ms),
 * and the LLM API is down for the next 10 min, so every retry of m0's turn fails and it gives up; m1 arrives at 20 min,
 * after the faults.
 */
const plan = givenUpThenAnswered({ kind: 'kill-at-phase', phase: 'model-call', nth: 0, delayMs: 2_648, process: 'runner', restartAfterMs: 2_000 });

/** Both answers close with the same stock phrase. */
const script = forMessage({
  0: { toolCalls: [], result: reply(stock) },
  1: { toolCalls: [], result: reply(stock) },
});

describe('attribution: a key-less repeat does not fill a given-up answer', () => {
  it('excuses the repeat of the newer answer rather than crediting the older answer with no durable final row', async () => {
    expect(stockAnswers).toContain(stock);
    await withRun(sql, { bugs: [], plan, script, prepare: loseFirstAckOf(stock) }, (result) => {
      // The scenario: m0 got the error reply, m1's closing text was shown twice (its acknowledgement was lost).
      expect(result.ledger.platformHonoursKeys).toBe(false);
      expect(answersTo(result, 0).length).toBeGreaterThan(0);
      expect(shown(result)).toEqual([errorReply, stock, stock]);
      const rows = hermesRows(result, stateDbPath);
      expect(rows.filter((row) => row.role === 'assistant' && row.toolCalls === null && row.content.includes(reply(stock)))).toHaveLength(1);
      // The checkers: the first showing fills m1's reply, the second is an at-least-once repeat, m0 was given up.
      expect(messagesOf(result, 'one-assistant-row-per-visible-reply')).toEqual([]);
      expect(messagesOf(result, 'no-duplicate-visible-reply')).toEqual([]);
      expect(invariants(result)).toEqual([]);
    });
  });
});

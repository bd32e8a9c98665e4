// Attribution on a key-less platform (sim/checkers/attribution.ts): an at-least-once repeat is excused rather than
// credited to a tool call whose carrier row alone is durable in state.db (a call that may have been cut off before
// its send). The answer to m0 sends a stock phrase through send_message; a power loss strikes right after the carrier
// row's flush, taking the JSONL entry appended after it (not yet synced), so the call is never made; the LLM API is down
// for every retry, so the turn gives up with the error reply. Much later the answer to m1 closes with the same
// stock phrase; it is shown, its acknowledgement is lost, and the gateway rightly sends it again. The first showing is
// m1's; the second is an excusable repeat. Under the old rule (only a superseded answer or a slot with no durable row
// was weak) the repeat filled m0's open tool-call slot, and one-assistant-row-per-visible-reply reported that reply
// with no JSONL entry. Chaos campaign seed 11 (run 279) found this shape.
import { describe, expect, it } from 'vitest';
import { stateDbPath } from '../../src/index.ts';
import { cannedReplies } from '../../sim/checkers/observations.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { stockAnswers } from '../../sim/world/index.ts';
import { forMessage, invariants, reply, withRun } from '../model/support.ts';
import { hermesRows, loseFirstAckOf, messagesOf, shown , givenUpThenAnswered } from './support.ts';

const sql = await loadSqlJs();

const stock = 'working on it';
const errorReply = cannedReplies[0];

/**
 * m0 at 1 s; a power loss 1 ms after its first flush (the carrier row's, committed; the JSONL append after it is not
 * yet synced); the LLM API down for 10 min; m1 at 20 min, after the faults.
 */
const plan = givenUpThenAnswered({ kind: 'power-loss-at-phase', phase: 'flush', nth: 0, delayMs: 1, restartAfterMs: 2_000 });

/** m0's answer sends the stock phrase through send_message; m1's answer closes with the same stock phrase. */
const script = forMessage({
  0: { toolCalls: [{ name: 'send_message', text: stock }], result: reply('the calendar is clear') },
  1: { toolCalls: [], result: reply(stock) },
});

describe('attribution: a key-less repeat does not fill a tool call cut off before its send', () => {
  it('excuses the resend of the newer answer rather than crediting the call whose carrier row alone is durable', async () => {
    expect(stockAnswers).toContain(stock);
    await withRun(sql, { bugs: [], plan, script, prepare: loseFirstAckOf(stock) }, (result) => {
      // The scenario: m0 got the error reply; m1's closing text was shown twice (its acknowledgement was lost).
      expect(result.ledger.platformHonoursKeys).toBe(false);
      expect(shown(result)).toEqual([errorReply, stock, stock]);
      const rows = hermesRows(result, stateDbPath);
      expect(rows.filter((row) => row.role === 'assistant' && row.toolCalls !== null && row.toolCalls.includes(stock))).toHaveLength(1);
      expect(rows.filter((row) => row.role === 'tool')).toEqual([]);
      expect(rows.filter((row) => row.role === 'assistant' && row.toolCalls === null && row.content.includes(reply(stock)))).toHaveLength(1);
      // The checkers: the first showing fills m1's reply, the second is an at-least-once repeat, m0 was given up.
      expect(messagesOf(result, 'one-assistant-row-per-visible-reply')).toEqual([]);
      expect(messagesOf(result, 'no-duplicate-visible-reply')).toEqual([]);
      expect(invariants(result)).toEqual([]);
    });
  });
});

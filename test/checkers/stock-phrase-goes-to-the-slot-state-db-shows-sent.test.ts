// Attribution of a stock phrase that two answers offer (sim/checkers/attribution.ts): the showing goes to the slot
// state.db shows most surely sent. The answer to m0 makes a send_message tool call with a stock phrase; its carrier row
// is flushed, then the plan kills the runner at the tool-send phase and the tool call never reaches the tool server
// (the network swallows it), so the phrase is never sent and no tool result row is written. The LLM API is down for
// every retry, so the turn gives up with the error reply (the answer to m0 is given up). Much later the answer to m1
// closes with the same stock phrase, its final row is durable, and the user sees the phrase once. That showing is
// m1's: a carrier row alone (rank 1) must not outrank a closing text whose final row is durable (rank 0). Under the old
// rule (a durable carrier row always first) m0's tool call took the showing and m1's reply was reported lost.
import { describe, expect, it } from 'vitest';
import { isToolCall, stateDbPath, toolServerName } from '../../src/index.ts';
import { cannedReplies } from '../../sim/checkers/observations.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { stockAnswers } from '../../sim/world/index.ts';
import { forMessage, invariants, reply, withRun } from '../model/support.ts';
import { hermesRows, messagesOf, shown, tamperNetwork , givenUpThenAnswered } from './support.ts';

const sql = await loadSqlJs();

const stock = 'working on it';
const firstClosing = 'the calendar is clear';
const errorReply = cannedReplies[0];

/**
 * m0 at 1 s; the runner is killed when the turn reaches its tool send (right after the carrier row's flush) and the
 * LLM API is down for the next 10 min, so every retry of m0's turn fails and it gives up; m1 arrives at 20 min, after
 * the faults, and is answered normally.
 */
const plan = givenUpThenAnswered({ kind: 'kill-at-phase', phase: 'tool-send', nth: 0, delayMs: 0, process: 'runner', restartAfterMs: 2_000 }, false);

/** m0's answer sends the stock phrase through send_message; m1's answer closes with the same stock phrase. */
const script = forMessage({
  0: { toolCalls: [{ name: 'send_message', text: stock }], result: reply(firstClosing) },
  1: { toolCalls: [], result: reply(stock) },
});

/** The tool call carrying the stock phrase never reaches the tool server (found by its text, not by any id). */
const swallowStockToolCall = tamperNetwork((_from, to, payload) => (to === toolServerName && isToolCall(payload) && payload.text === stock ? [] : [payload]));

describe('attribution: a stock phrase goes to the slot state.db shows sent', () => {
  it('credits the newer answer whose final row is durable, not the older tool call cut off after its carrier row', async () => {
    expect(stockAnswers).toContain(stock);
    await withRun(sql, { bugs: [], plan, script, prepare: swallowStockToolCall }, (result) => {
      // The scenario: the tool call was never sent, m0 got the error reply, m1's closing text was shown once.
      expect(shown(result)).toEqual([errorReply, stock]);
      const rows = hermesRows(result, stateDbPath);
      const carriers = rows.filter((row) => row.role === 'assistant' && row.toolCalls !== null && row.toolCalls.includes(stock));
      expect(carriers).toHaveLength(1);
      expect(rows.filter((row) => row.role === 'tool')).toEqual([]);
      expect(rows.filter((row) => row.role === 'assistant' && row.toolCalls === null && row.content.includes(reply(stock)))).toHaveLength(1);
      expect(rows.some((row) => row.content.includes(firstClosing))).toBe(false);
      // The checkers: the showing fills m1's reply; m0's tool message belongs to an answer given up.
      expect(messagesOf(result, 'no-lost-reply')).toEqual([]);
      expect(messagesOf(result, 'one-assistant-row-per-visible-reply')).toEqual([]);
      expect(invariants(result)).toEqual([]);
    });
  });
});

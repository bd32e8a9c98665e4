// Attribution of a stock phrase that two answers offer (sim/checkers/attribution.ts): the showing goes to the slot
// state.db shows most surely sent, even when that slot's answer was superseded. m0's answers never reach the runner
// (lost on the way back), so its turn gives up with the error reply; its answer offered the stock phrase as a tool
// message, which was never made (no row of it in state.db). m1's answer sends the same phrase as a tool message (its
// carrier row is durable); the runner is killed as the call goes out, m2 arrives meanwhile, and the
// re-formed turn asks a new prompt for both, which supersedes m1's answer. The one showing of the phrase is m1's.
// Under the old rule (an answer not superseded first, whatever state.db shows) it went to m0's given-up answer, and
// one-assistant-row-per-visible-reply reported a tool message with no row (chaos, campaign seed 1, run 1,165).
import { describe, expect, it } from 'vitest';
import { stateDbPath } from '../../src/index.ts';
import { cannedReplies } from '../../sim/checkers/observations.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { stockAnswers } from '../../sim/world/index.ts';
import { answerLostOn, forMessage, handPlan, invariants, marker, reply, user, withRun } from '../model/support.ts';
import { hermesRows, shown } from './support.ts';

const sql = await loadSqlJs();
const stock = 'working on it';

/** m0 at 1 s; m1 at 200 s; the runner is killed as m1's turn sends its tool call; m2 arrives while it is down. */
const plan: Plan = {
  ...handPlan(
    [user(1_000, 'hello there'), user(200_000, 'second question'), user(210_000, 'and another')],
    [{ kind: 'kill-at-phase', phase: 'tool-send', nth: 0, delayMs: 0, process: 'runner', restartAfterMs: 8_000 }],
  ),
  faultPhaseMs: 330_000,
};

const script = forMessage({
  0: { toolCalls: [{ name: 'send_message', text: stock }], result: reply('the calendar is clear') },
  1: { toolCalls: [{ name: 'send_message', text: stock }], result: reply('first answer') },
  2: { toolCalls: [], result: reply('both answered') },
});


describe('attribution: a superseded answer whose tool call state.db shows sent', () => {
  it('takes the showing of its stock phrase from a given-up answer whose tool call was never made', async () => {
    expect(stockAnswers).toContain(stock);
    await withRun(sql, { bugs: [], plan, script, prepare: answerLostOn(marker(0)) }, (result) => {
      const rows = hermesRows(result, stateDbPath);
      expect(rows.filter((row) => row.role === 'assistant' && row.toolCalls !== null && row.toolCalls.includes(stock))).toHaveLength(1);
      expect(rows.filter((row) => row.role === 'tool')).toHaveLength(0);
      expect(shown(result)).toEqual([cannedReplies[0], stock, 'both answered']);
      expect(invariants(result)).toEqual([]);
    });
  });
});

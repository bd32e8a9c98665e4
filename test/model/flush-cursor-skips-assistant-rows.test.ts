// Seed 004 (flush-cursor): the runner reuses one cached agent for every turn of the session, and reuse does not
// realign the agent's SessionDB flush cursor (_last_flushed_db_idx) to the history of the new turn. A first turn
// with a mid-turn tool call leaves the cursor past the length the next turns' messages reach, so their assistant
// replies are never flushed to state.db (and nobody backfills them), although the user saw every one. The next
// turns then find trailing user rows and fold them into their prompts (the "dragging old questions" symptom). A
// later turn whose message list is longer than the stale cursor (another tool-call turn) writes its final row
// again, which gives state.db the seed's pattern: assistant, user x N, assistant.
import { describe, expect, it } from 'vitest';
import type { BugId } from '../../src/index.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { handPlan, invariants, notes, reply, type StateRow, stateRows, user, visible, withRun } from './support.ts';

const sql = await loadSqlJs();

/** Plain turns between the two tool-call turns. */
const plainTurns = 5;
const turnCount = plainTurns + 2;
const workload = Array.from({ length: turnCount }, (_, index) => user(1_000 + index * 10_000, `question ${index + 1}`));
const turns = workload.map((_, index) => `in:d${index}`);
const toolTurns = new Set([turns[0], turns.at(-1)]);
const plan = handPlan(workload);
const script = ({ turnId }: { turnId: string }) => ({
  toolCalls: toolTurns.has(turnId) ? [{ name: 'send_message' as const, text: `working on ${turnId}` }] : [],
  result: reply(`answer for ${turnId}`),
});
const input = (bugs: BugId[]) => ({ bugs, plan, script });

/** Roles of the session's state.db rows as Hermes' history sees them: no tool rows, no empty tool-call carriers. */
function historyRoles(rows: StateRow[]): string[] {
  return rows.filter((row) => row.role !== 'tool' && row.content.length > 0).map((row) => row.role);
}

function resultReplies(result: RunResult): string[] {
  return visible(result)
    .filter((message) => message.source === 'result')
    .map((message) => message.turnId);
}

describe(`one cached agent reused over a tool-call turn, ${plainTurns} plain turns and another tool-call turn`, () => {
  it(`with flush-cursor on: state.db reads assistant, user x ${plainTurns + 1}, assistant while the user saw ${plainTurns + 2} replies`, async () => {
    await withRun(sql, input(['flush-cursor']), (result) => {
      // One agent served every turn: created once, reused after.
      expect(notes(result, 'prompt-persisted').map((note) => note.fields.reused)).toEqual([false, ...Array<boolean>(turnCount - 1).fill(true)]);
      expect(resultReplies(result)).toEqual(turns);
      const rows = stateRows(result);
      expect(historyRoles(rows)).toEqual(['user', 'assistant', ...Array<string>(plainTurns + 1).fill('user'), 'assistant']);
      // The assistant rows that exist belong to the first and the last turn; the plain turns' replies are missing.
      const finals = rows.filter((row) => row.role === 'assistant' && row.toolCalls === null);
      expect(finals.map((row) => row.turnId)).toEqual([turns[0], turns.at(-1)]);
      // The unanswered-looking user rows are folded into the next prompts: the last prompt drags question 2 along.
      const lastUser = rows.filter((row) => row.role === 'user').at(-1);
      expect(lastUser?.content).toContain('question 2');
      expect(invariants(result)).toEqual(['one-assistant-row-per-visible-reply']);
    });
  });

  it('with flush-cursor off: every visible reply has its assistant row, turn by turn', async () => {
    await withRun(sql, input([]), (result) => {
      expect(notes(result, 'prompt-persisted').map((note) => note.fields.reused)).toEqual([false, ...Array<boolean>(turnCount - 1).fill(true)]);
      expect(resultReplies(result)).toEqual(turns);
      const rows = stateRows(result);
      expect(historyRoles(rows)).toEqual(Array.from({ length: turnCount }, () => ['user', 'assistant']).flat());
      const finals = rows.filter((row) => row.role === 'assistant' && row.toolCalls === null);
      expect(finals.map((row) => [row.turnId, row.content])).toEqual(turns.map((turn) => [turn, reply(`answer for ${turn}`)]));
      expect(rows.filter((row) => row.role === 'user').every((row) => !row.content.includes('Queued user message'))).toBe(true);
      expect(result.violations).toEqual([]);
    });
  });
});

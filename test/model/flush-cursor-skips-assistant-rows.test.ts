// Seed 004 (flush-cursor): the runner reuses one cached agent for every turn of the session, and reuse does not
// realign the agent's SessionDB flush cursor (_last_flushed_db_idx) to the history of the new turn. A first turn
// with a mid-turn tool call leaves the cursor past the length the next turns' messages reach, so their assistant
// replies are never flushed to state.db (and nobody backfills them), although the user saw every one. The next
// turns then find trailing user rows and fold them into their prompts (the "dragging old questions" symptom, seen in
// what the LLM was asked; state.db's own user rows stay one per message, since a transcript leaves out of the prompt
// it writes any folded text it already holds as a user row of its own). A later turn whose message list is longer
// than the stale cursor (another tool-call turn) writes its final row again, which gives state.db the seed's
// pattern: assistant, user x N, assistant.
import { describe, expect, it } from 'vitest';
import type { BugId } from '../../src/index.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { answersTo, forMessage, handPlan, invariants, llmPrompts, marker, notes, reply, seenByTurn, type StateRow, stateRows, user, withoutTrailer, withRun } from './support.ts';

const sql = await loadSqlJs();

/** Plain turns between the two tool-call turns. */
const plainTurns = 5;
const turnCount = plainTurns + 2;
const workload = Array.from({ length: turnCount }, (_, index) => user(1_000 + index * 10_000, `question ${index + 1}`));
const turns = workload.map((_, index) => `in:d${index}`);
const toolTurns = new Set([0, turnCount - 1]);
const plan = handPlan(workload);
/** Answers by the last message a prompt carries (a prompt that folds earlier questions in answers the newest). */
const script = forMessage(
  Object.fromEntries(
    turns.map((turn, index) => [
      index,
      { toolCalls: toolTurns.has(index) ? [{ name: 'send_message' as const, text: `working on ${turn}` }] : [], result: reply(`answer for ${turn}`) },
    ]),
  ),
);
const input = (bugs: BugId[]) => ({ bugs, plan, script });

/** Roles of the session's state.db rows as Hermes' history sees them: no tool rows, no empty tool-call carriers. */
function historyRoles(rows: StateRow[]): string[] {
  return rows.filter((row) => row.role !== 'tool' && row.content.length > 0).map((row) => row.role);
}

/** The turns whose closing-text replies the user saw (by the outbound rows they came from), in order. */
function resultReplies(result: RunResult): string[] {
  return seenByTurn(result)
    .filter(([turn, text]) => text === `answer for ${turn}`)
    .map(([turn]) => turn);
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
      // The unanswered-looking user rows are folded into the next prompts: the last prompt drags questions 2 to 6
      // along. state.db holds each of them once, as its own row.
      const lastPrompt = llmPrompts(result).at(-1) ?? '';
      expect(turns.map((_, index) => lastPrompt.includes(marker(index)))).toEqual([false, ...Array<boolean>(turnCount - 1).fill(true)]);
      expect(rows.filter((row) => row.role === 'user').map((row) => row.content)).toEqual(workload.map((_, index) => `question ${index + 1} ${marker(index)}`));
      expect(invariants(result)).toEqual(['one-assistant-row-per-visible-reply']);
      // One violation per reply the user saw with no assistant row: the plain turns' closing texts, and (the oracle
      // judges tool messages by their API-issued call ids) the last turn's interim message, whose tool-call carrier
      // row the stale cursor also skipped (only its tool row and final row, past the cursor, were written).
      const missing = result.violations.map((violation) => /the user saw "([^"]*)" .* but state\.db has 0 assistant rows for it$/.exec(violation.message)?.[1]);
      expect(missing).toEqual([...turns.slice(1, -1).map((turn) => `answer for ${turn}`), `working on ${turns.at(-1) ?? ''}`]);
    });
  });

  it('with flush-cursor off: every visible reply has its assistant row, turn by turn', async () => {
    await withRun(sql, input([]), (result) => {
      expect(notes(result, 'prompt-persisted').map((note) => note.fields.reused)).toEqual([false, ...Array<boolean>(turnCount - 1).fill(true)]);
      expect(resultReplies(result)).toEqual(turns);
      const rows = stateRows(result);
      expect(historyRoles(rows)).toEqual(Array.from({ length: turnCount }, () => ['user', 'assistant']).flat());
      const finals = rows.filter((row) => row.role === 'assistant' && row.toolCalls === null);
      expect(finals.map((row) => [row.turnId, withoutTrailer(row.content)])).toEqual(turns.map((turn) => [turn, reply(`answer for ${turn}`)]));
      // Each final row is exactly the LLM's answer to its own message, and no prompt folded another message in.
      expect(finals.map((row) => row.content)).toEqual(turns.map((_, index) => answersTo(result, index).at(-1)?.result));
      expect(llmPrompts(result)).toEqual(workload.map((_, index) => `question ${index + 1} ${marker(index)}`));
      expect(rows.filter((row) => row.role === 'user').every((row) => !row.content.includes('Queued user message'))).toBe(true);
      expect(result.violations).toEqual([]);
    });
  });
});

// Seed 001 (send-flag), the first version of the fix: send_message sets a boolean "a send happened this turn" and
// the whole result is suppressed when it is set. The agent says "on it - looking at your calendar" mid-turn and then
// answers with the availability: with the bug the answer never reaches outbound.db or the user, although the model
// produced it (it is in the transcript); the fixed runner suppresses only verbatim repeats, so the answer goes out.
import { describe, expect, it } from 'vitest';
import type { BugId } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { answersTo, handPlan, invariants, outboundRows, reply, stateRows, user, visible, withoutTrailer, withRun } from './support.ts';

const sql = await loadSqlJs();

const turn = 'in:d0';
const interim = 'on it - looking at your calendar';
const answer = "Tomorrow at 2pm you're free";
const plan = handPlan([user(1_000, 'am I free tomorrow afternoon?')]);
const script = () => ({ toolCalls: [{ name: 'send_message' as const, text: interim }], result: reply(answer) });
const input = (bugs: BugId[]) => ({ bugs, plan, script });

describe('send_message("on it - looking at your calendar") then a result with a distinct answer', () => {
  it('with send-flag on: the answer is never delivered; the user only sees the interim message', async () => {
    await withRun(sql, input(['send-flag']), (result) => {
      // The LLM did produce the answer (the ledger has it), and it is the turn's final assistant row.
      const answers = answersTo(result, 0);
      expect(answers.map((produced) => withoutTrailer(produced.result))).toEqual([reply(answer)]);
      const finals = stateRows(result).filter((row) => row.turnId === turn && row.role === 'assistant' && row.toolCalls === null);
      expect(finals.map((row) => row.content)).toEqual(answers.map((produced) => produced.result));
      const rows = outboundRows(result).filter((row) => row.inReplyTo === turn);
      expect(rows.map((row) => [row.source, row.text])).toEqual([['tool', interim]]);
      expect(visible(result).map((message) => message.text)).toEqual([interim]);
      expect(invariants(result)).toEqual(['no-lost-reply']);
      expect(result.violations[0]?.message).toContain(answer);
    });
  });

  it('with send-flag off: the interim message and then the answer are delivered', async () => {
    await withRun(sql, input([]), (result) => {
      const rows = outboundRows(result).filter((row) => row.inReplyTo === turn);
      expect(rows.map((row) => [row.source, row.text, row.delivered])).toEqual([
        ['tool', interim, true],
        ['result', answer, true],
      ]);
      expect(visible(result).map((message) => message.text)).toEqual([interim, answer]);
      expect(result.violations).toEqual([]);
    });
  });
});

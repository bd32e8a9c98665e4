// Seed 001 (send-dup): the agent calls send_message("interim update") mid-turn and the closing result repeats the
// same payload in a <message to="user"> block. With the bug the closing text is dispatched anyway, so the session's
// outbound.db holds two chat rows for the turn and the user sees the payload twice; the fixed runner suppresses a
// block that repeats an already-sent payload verbatim after whitespace normalisation, so one row, one message.
import { describe, expect, it } from 'vitest';
import type { BugId } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { answersTo, handPlan, invariants, outboundRows, reply, stateRows, user, visible, withoutTrailer, withRun } from './support.ts';

const sql = await loadSqlJs();

const turn = 'in:d0';
const plan = handPlan([user(1_000, 'use send_message to deliver "interim update", then briefly say what you did')]);

const closings = [
  { name: 'a verbatim repeat', closing: 'interim update' },
  { name: 'a repeat that differs only in whitespace', closing: '  interim  \n update ' },
];

describe.each(closings)('send_message("interim update") then a closing result with $name', ({ closing }) => {
  const script = () => ({ toolCalls: [{ name: 'send_message' as const, text: 'interim update' }], result: reply(closing) });
  const input = (bugs: BugId[]) => ({ bugs, plan, script });

  it('with send-dup on: two outbound chat rows for the turn, and the user sees the payload twice', async () => {
    await withRun(sql, input(['send-dup']), (result) => {
      const rows = outboundRows(result).filter((row) => row.inReplyTo === turn && row.kind === 'chat');
      expect(rows.map((row) => [row.source, row.text])).toEqual([
        ['tool', 'interim update'],
        ['result', closing.trim()],
      ]);
      expect(rows.every((row) => row.delivered)).toBe(true);
      // The only message of the run, so everything the user saw answers it.
      expect(visible(result).map((message) => message.text.replace(/\s+/g, ' ').trim())).toEqual(['interim update', 'interim update']);
      // One LLM answer (one request) produced both: the payload twice for one answer.
      expect(answersTo(result, 0)).toHaveLength(1);
      expect(invariants(result)).toEqual(['no-duplicate-visible-reply']);
      expect(result.violations[0]?.message).toMatch(/the user saw "\s*interim\s+update\s*" again/);
    });
  });

  it('with send-dup off: one outbound chat row (the tool\'s), seen once; the closing text stays in the transcript', async () => {
    await withRun(sql, input([]), (result) => {
      const rows = outboundRows(result).filter((row) => row.inReplyTo === turn && row.kind === 'chat');
      expect(rows.map((row) => [row.source, row.text])).toEqual([['tool', 'interim update']]);
      expect(visible(result).map((message) => message.text)).toEqual(['interim update']);
      // Suppression is of the outbound row only: the closing text (the LLM's answer, trailer and all) is still the
      // turn's final assistant row.
      const finals = stateRows(result).filter((row) => row.turnId === turn && row.role === 'assistant' && row.toolCalls === null);
      expect(finals.map((row) => row.content)).toEqual(answersTo(result, 0).map((answer) => answer.result));
      expect(finals.map((row) => withoutTrailer(row.content))).toEqual([reply(closing)]);
      expect(result.violations).toEqual([]);
    });
  });
});

// A /clear interrupted by a SIGKILL re-forms as the same turn after the restart. It re-forms alone, as it ran: a chat
// message that arrived behind it is not taken into the command's turn (it would get only `Session cleared.` and no
// answer of its own); it waits for a turn of its own, in the new session.
import { describe, expect, it } from 'vitest';
import { clearedReply } from '../../src/turn.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { handPlan, marker, notes, session0, user, withRun } from './support.ts';

const sql = await loadSqlJs();

const plan = handPlan(
  [{ kind: 'clear', atMs: 1_000, session: 0 }, user(1_200, 'are you there?')],
  [{ kind: 'kill-at-phase', phase: 'prompt-persisted', nth: 0, delayMs: 0, process: 'runner', restartAfterMs: 2_000 }],
);

describe('a command turn interrupted by a kill', () => {
  it('re-forms without the chat message behind it, which is answered by a turn of its own', async () => {
    await withRun(sql, { bugs: [], plan }, (result) => {
      const starts = notes(result, 'turn-start').map((note) => [note.fields.turn, note.fields.members]);
      expect(starts).toEqual([
        ['in:d0', 1],
        ['in:d0', 1],
        ['in:d1', 1],
      ]);
      const shown = result.ledger.shown.filter((fact) => fact.sessionKey === session0).map((fact) => fact.text);
      expect(shown[0]).toBe(clearedReply);
      expect(result.ledger.answers.some((answer) => answer.prompt.includes(marker(1)))).toBe(true);
      expect(result.violations).toEqual([]);
    });
  });
});

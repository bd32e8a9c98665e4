// no-lost-user-message reads the final durable state, not the runner's word: a completed turn whose user row is
// later deleted from state.db, or whose user row (or JSONL user entry) no longer carries the message text, has lost
// the user's message, even though every component did its job.
import { describe, expect, it } from 'vitest';
import { stateDbPath, transcriptPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, session0, stateRows, transcript, withRun } from '../model/support.ts';
import { afterAllTurnsMs, firstTurn, messagesOf, type Prepare, rewriteFileAt, sqlAt, twoTurns } from './support.ts';

const sql = await loadSqlJs();
const text = 'hello there [m0]';

const run = (prepare?: Prepare) => ({ bugs: [], plan: twoTurns, ...(prepare === undefined ? {} : { prepare }) });

describe('no-lost-user-message', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, run(), (result) => {
      expect(stateRows(result).filter((row) => row.role === 'user').map((row) => row.content)).toContain(text);
      expect(result.violations).toEqual([]);
    });
  });

  it("fires when a completed turn's user row is deleted from state.db", async () => {
    const sabotage = sqlAt(afterAllTurnsMs, stateDbPath, "DELETE FROM messages WHERE turn_id = ? AND role = 'user'", [firstTurn]);
    await withRun(sql, run(sabotage), (result) => {
      expect(stateRows(result).some((row) => row.turnId === firstTurn && row.role === 'user')).toBe(false);
      expect(invariants(result)).toEqual(['no-lost-user-message']);
      expect(messagesOf(result, 'no-lost-user-message')).toEqual([`inbound ${firstTurn} (${session0}) never reached state.db`]);
    });
  });

  it("fires when the user row's content no longer contains the message text", async () => {
    const sabotage = sqlAt(afterAllTurnsMs, stateDbPath, "UPDATE messages SET content = 'something else entirely' WHERE turn_id = ? AND role = 'user'", [firstTurn]);
    await withRun(sql, run(sabotage), (result) => {
      expect(stateRows(result).filter((row) => row.turnId === firstTurn && row.role === 'user').map((row) => row.content)).toEqual(['something else entirely']);
      expect(invariants(result)).toEqual(['no-lost-user-message']);
      expect(messagesOf(result, 'no-lost-user-message')).toEqual([`inbound ${firstTurn} (${session0}) never reached state.db`]);
    });
  });

  it("fires when the JSONL user entry no longer contains the message text (state.db intact)", async () => {
    const sabotage = rewriteFileAt(afterAllTurnsMs, transcriptPath(session0), (file) => file.replace(JSON.stringify(text), JSON.stringify('something else entirely')));
    await withRun(sql, run(sabotage), (result) => {
      const users = transcript(result).filter((entry) => entry.turnId === firstTurn && entry.message.role === 'user');
      expect(users.map((entry) => entry.message.content)).toEqual(['something else entirely']);
      expect(invariants(result)).toEqual(['no-lost-user-message']);
      expect(messagesOf(result, 'no-lost-user-message')).toEqual([`inbound ${firstTurn} (${session0}) never reached the JSONL active branch`]);
    });
  });
});

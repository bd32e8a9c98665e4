// one-assistant-row-per-visible-reply, second half: no durable assistant row is a reply nobody produced. What a
// turn produced is known from the trace (its `answer` note: the turn exists, with n tool calls), so an assistant
// row written behind the model's back is caught wherever it lands: in state.db for a turn that never existed, in
// state.db carrying a tool call the model never made, or on the JSONL active branch.
import { describe, expect, it } from 'vitest';
import { parseTranscript, stateDbPath, transcriptPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, reply, session0, stateRows, transcript, withRun } from '../model/support.ts';
import { afterAllTurnsMs, firstTurn, messagesOf, type Prepare, rewriteFileAt, sqlAt, twoTurns } from './support.ts';

const sql = await loadSqlJs();

const ghostTurn = 'in:ghost';
const insertAssistant = 'INSERT INTO messages(session_id, role, content, tool_calls, timestamp, turn_id) VALUES (?, ?, ?, ?, ?, ?)';
const run = (prepare?: Prepare) => ({ bugs: [], plan: twoTurns, ...(prepare === undefined ? {} : { prepare }) });
const invariant = 'one-assistant-row-per-visible-reply';

/** Id of the row the sabotage inserted: the last one. */
const lastRowId = (result: Parameters<typeof stateRows>[0]): number => Number(result.sim.sqlite.inspect(stateDbPath, 'SELECT MAX(id) AS id FROM messages')[0]?.id);

describe('one-assistant-row-per-visible-reply: no durable assistant row is a reply nobody produced', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, run(), (result) => {
      expect(stateRows(result).filter((row) => row.role === 'assistant').map((row) => row.turnId)).toEqual([firstTurn, 'in:d1']);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires for an assistant row in state.db of a turn that never existed', async () => {
    const sabotage = sqlAt(afterAllTurnsMs, stateDbPath, insertAssistant, [session0, 'assistant', reply('made up'), null, afterAllTurnsMs, ghostTurn]);
    await withRun(sql, run(sabotage), (result) => {
      const id = lastRowId(result);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`state.db assistant row ${id} (${session0}) carries a reply for turn ${ghostTurn}, which produced none`]);
    });
  });

  it('fires for an assistant row in state.db carrying a tool call the model never made in a real turn', async () => {
    const call = JSON.stringify([{ id: `${firstTurn}:tool:0`, name: 'send_message', text: 'made up' }]);
    const sabotage = sqlAt(afterAllTurnsMs, stateDbPath, insertAssistant, [session0, 'assistant', '', call, afterAllTurnsMs, firstTurn]);
    await withRun(sql, run(sabotage), (result) => {
      const id = lastRowId(result);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`state.db assistant row ${id} (${session0}) carries a tool call (${firstTurn}:tool:0) the model never made`]);
    });
  });

  it('fires for an assistant entry of a turn that never existed appended to the JSONL active branch', async () => {
    const sabotage = rewriteFileAt(afterAllTurnsMs, transcriptPath(session0), (text) => {
      const leaf = parseTranscript(text).entries.at(-1);
      const ghost = { type: 'message', id: 'ghost001', parentId: leaf?.id ?? null, timestamp: afterAllTurnsMs, message: { role: 'assistant', content: reply('made up') }, turnId: ghostTurn };
      return `${text}${JSON.stringify(ghost)}\n`;
    });
    await withRun(sql, run(sabotage), (result) => {
      expect(transcript(result).at(-1)?.id).toBe('ghost001');
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}.jsonl assistant entry ghost001 carries a reply for turn ${ghostTurn}, which produced none`]);
    });
  });
});

// one-assistant-row-per-visible-reply: every reply the user saw has exactly one assistant row in state.db and one
// assistant entry on the JSONL active branch (found by the answer's closing text, or by the tool-call id the LLM API
// issued), and no durable assistant row is something the LLM never produced. The sabotages write and delete rows
// with Hermes' columns only and entries in pi's format only: a row copied under a new row id, a row or entry
// deleted, a row or entry that no answer produced.
import { describe, expect, it } from 'vitest';
import { stateDbPath, transcriptPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, marker, reply, session0, withRun } from '../model/support.ts';
import {
  afterAllTurnsMs,
  durableEntries,
  firstReply,
  hermesRows,
  input,
  interim,
  isEntry,
  messagesOf,
  piLines,
  rewriteFileAt,
  secondReply,
  shown,
  sqlAt,
  withoutLines,
} from './support.ts';

const sql = await loadSqlJs();
const invariant = 'one-assistant-row-per-visible-reply';
const insertAssistant = "INSERT INTO messages(session_id, role, content, tool_calls, timestamp) VALUES (?, 'assistant', ?, ?, ?)";

/** The first turn's final assistant row, copied under a new row id (Hermes' columns). */
const finalRowTwice = sqlAt(
  afterAllTurnsMs,
  stateDbPath,
  "INSERT INTO messages(session_id, role, content, tool_calls, timestamp) SELECT session_id, role, content, tool_calls, timestamp FROM messages WHERE role = 'assistant' AND content LIKE ?",
  [`%${firstReply}%`],
);

/** The same copy, stored with an empty tool-call list ('[]', as an OpenAI-shaped message with no calls may be). */
const finalRowTwiceEmptyCalls = sqlAt(
  afterAllTurnsMs,
  stateDbPath,
  "INSERT INTO messages(session_id, role, content, tool_calls, timestamp) SELECT session_id, role, content, '[]', timestamp FROM messages WHERE role = 'assistant' AND content LIKE ?",
  [`%${firstReply}%`],
);

/** The second turn's final assistant row deleted from state.db after its reply was delivered. */
const finalRowDeleted = sqlAt(afterAllTurnsMs, stateDbPath, "DELETE FROM messages WHERE role = 'assistant' AND content LIKE ?", [`%${secondReply}%`]);

/** The second turn's final assistant entry (the leaf) deleted from the JSONL after its reply was delivered. */
const finalEntryDeleted = rewriteFileAt(afterAllTurnsMs, transcriptPath(session0), (text) => withoutLines(text, isEntry('assistant', secondReply)));

describe('one-assistant-row-per-visible-reply', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, input(), (result) => {
      expect(shown(result)).toEqual([firstReply, interim, secondReply]);
      expect(hermesRows(result, stateDbPath).filter((row) => row.role === 'assistant')).toHaveLength(3);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires when an assistant row is written twice under different row ids', async () => {
    await withRun(sql, input(finalRowTwice), (result) => {
      expect(hermesRows(result, stateDbPath).filter((row) => row.role === 'assistant' && row.content.includes(firstReply))).toHaveLength(2);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: the user saw "${firstReply}" (closing text of the answer to ${marker(0)}), but state.db has 2 assistant rows for it`,
        `${session0}: state.db holds the closing text of the answer to ${marker(0)} 2 times`,
      ]);
    });
  });

  it('fires when the copy stores an empty tool-call list', async () => {
    await withRun(sql, input(finalRowTwiceEmptyCalls), (result) => {
      expect(hermesRows(result, stateDbPath).filter((row) => row.role === 'assistant' && row.content.includes(firstReply)).map((row) => row.toolCalls)).toEqual([null, '[]']);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: the user saw "${firstReply}" (closing text of the answer to ${marker(0)}), but state.db has 2 assistant rows for it`,
        `${session0}: state.db holds the closing text of the answer to ${marker(0)} 2 times`,
      ]);
    });
  });

  it('fires when a delivered reply has no assistant row in state.db', async () => {
    await withRun(sql, input(finalRowDeleted), (result) => {
      expect(hermesRows(result, stateDbPath).some((row) => row.content.includes(secondReply))).toBe(false);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: the user saw "${secondReply}" (closing text of the answer to ${marker(1)}), but state.db has 0 assistant rows for it`,
      ]);
    });
  });

  it('fires when a delivered reply has no assistant entry in the JSONL', async () => {
    await withRun(sql, input(finalEntryDeleted), (result) => {
      expect(durableEntries(result, transcriptPath(session0)).some(isEntry('assistant', secondReply))).toBe(false);
      // The entry had been durable on the active branch, so transcript-consistent reports it gone as well.
      expect(invariants(result)).toEqual([invariant, 'transcript-consistent']);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: the user saw "${secondReply}" (closing text of the answer to ${marker(1)}), but the JSONL active branch has 0 assistant entries for it`,
      ]);
    });
  });

  it('fires for an assistant row in state.db with text no answer produced', async () => {
    await withRun(sql, input(sqlAt(afterAllTurnsMs, stateDbPath, insertAssistant, [session0, reply('made up'), null, afterAllTurnsMs])), (result) => {
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([expect.stringMatching(new RegExp(`^${session0}: state.db assistant row \\d+ carries text the LLM never produced \\("<message to="user">made up`))]);
    });
  });

  it('fires for an assistant row in state.db carrying a tool call the LLM never made', async () => {
    const calls = JSON.stringify([{ id: 'toolu_forged_0', type: 'function', function: { name: 'send_message', arguments: JSON.stringify({ text: interim }) } }]);
    await withRun(sql, input(sqlAt(afterAllTurnsMs, stateDbPath, insertAssistant, [session0, '', calls, afterAllTurnsMs])), (result) => {
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([expect.stringMatching(new RegExp(`^${session0}: state.db assistant row \\d+ carries a tool call the LLM never made \\(toolu_forged_0\\)$`))]);
    });
  });

  it('fires for an assistant entry no answer produced appended to the JSONL active branch', async () => {
    const sabotage = rewriteFileAt(afterAllTurnsMs, transcriptPath(session0), (text) => {
      const leaf = piLines(text).at(-1);
      const ghost = { type: 'message', id: '9e057001', parentId: leaf?.id ?? null, timestamp: '2026-01-01T00:03:20.000Z', message: { role: 'assistant', content: [{ type: 'text', text: reply('made up') }], stopReason: 'stop' } };
      return `${text}${JSON.stringify(ghost)}\n`;
    });
    await withRun(sql, input(sabotage), (result) => {
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: JSONL assistant entry 9e057001 carries text the LLM never produced ("<message to="user">made up</message>")`]);
    });
  });
});

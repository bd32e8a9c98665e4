// The checkers are independent of the components: they read the trace and the durable state, not what the gateway
// or the runner believe. A second user row for a completed turn, inserted straight into state.db after the run's
// turns are over (no component ever ingested anything twice), is still a second user turn to no-double-ingestion;
// so is a dead-end copy of a turn's user entry in its JSONL (off the active branch, which it leaves unchanged).
import { describe, expect, it } from 'vitest';
import { parseTranscript, stateDbPath, transcriptPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, notes, session0, stateRows, transcript, withRun } from '../model/support.ts';
import { afterAllTurnsMs, firstTurn, messagesOf, type Prepare, rewriteFileAt, sqlAt, twoTurns } from './support.ts';

const sql = await loadSqlJs();

const run = (prepare?: Prepare) => ({ bugs: [], plan: twoTurns, ...(prepare === undefined ? {} : { prepare }) });

const duplicateUserRow = sqlAt(
  afterAllTurnsMs,
  stateDbPath,
  "INSERT INTO messages(session_id, role, content, timestamp, turn_id) SELECT session_id, role, content, timestamp, turn_id FROM messages WHERE turn_id = ? AND role = 'user'",
  [firstTurn],
);

/** A copy of the first turn's user entry, as a sibling of it (same parent), placed right after it in the file. */
const deadEndUserCopy = rewriteFileAt(afterAllTurnsMs, transcriptPath(session0), (text) => {
  const lines = text.split('\n');
  const index = lines.findIndex((line) => line.includes(`"turnId":"${firstTurn}"`) && line.includes('"role":"user"'));
  const original = parseTranscript(lines[index] ?? '').entries[0];
  if (original === undefined) throw new Error('no user entry of the first turn');
  lines.splice(index + 1, 0, JSON.stringify({ ...original, id: 'copy0001' }));
  return lines.join('\n');
});

describe('no-double-ingestion is judged from durable state alone', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, run(), (result) => {
      expect(stateRows(result).filter((row) => row.role === 'user').map((row) => row.turnId)).toEqual([firstTurn, 'in:d1']);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires for a duplicate user row inserted into state.db behind every component', async () => {
    await withRun(sql, run(duplicateUserRow), (result) => {
      // Each delivery was ingested once, as far as the model knows.
      expect(notes(result, 'ingest').map((note) => note.fields.row)).toEqual([firstTurn, 'in:d1']);
      expect(stateRows(result).filter((row) => row.turnId === firstTurn && row.role === 'user')).toHaveLength(2);
      expect(invariants(result)).toEqual(['no-double-ingestion']);
      expect(messagesOf(result, 'no-double-ingestion')).toEqual([`state.db has 2 user rows for turn ${firstTurn}`]);
    });
  });

  it('fires for a dead-end copy of a user entry in the JSONL', async () => {
    await withRun(sql, run(deadEndUserCopy), (result) => {
      expect(transcript(result).filter((entry) => entry.turnId === firstTurn && entry.message.role === 'user').map((entry) => entry.id)).toContain('copy0001');
      expect(invariants(result)).toEqual(['no-double-ingestion']);
      expect(messagesOf(result, 'no-double-ingestion')).toEqual([`${session0}.jsonl holds 2 user entries for turn ${firstTurn}`]);
    });
  });
});

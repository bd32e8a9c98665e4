// Hermes' SessionDB (`state.db`): a `messages` table and a `sessions` table. Reads order by timestamp, then id;
// append_message commits one row at a time and counts it in sessions.message_count.
// gatesim adds one column, `turn_id`, naming the turn (its inbound row id) a row belongs to: the checkers map rows
// to turns with it, and a retried turn recognises the rows it already wrote.
import { assert, assertNonNegativeInteger } from './assert.ts';
import type { SqlDatabase, Sqlite, SqlRow } from './ports.ts';

/** Where Hermes' state.db lives on the simulated disk. */
export const stateDbPath = '/data/state.db';

export const stateDbSchema = `
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  role TEXT NOT NULL,
  content TEXT,
  tool_call_id TEXT,
  tool_calls TEXT,
  tool_name TEXT,
  timestamp INTEGER NOT NULL,
  token_count INTEGER,
  finish_reason TEXT,
  turn_id TEXT
);
CREATE INDEX messages_session ON messages(session_id, timestamp, id);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  started_at INTEGER NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0
);
`;

export interface DbMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  toolCallId: string | null;
  toolCalls: string | null;
  toolName: string | null;
  turnId: string;
}

export class SessionDb {
  private constructor(private readonly db: SqlDatabase) {}

  static async open(sqlite: Sqlite): Promise<SessionDb> {
    return new SessionDb(await sqlite.open(stateDbPath, stateDbSchema));
  }

  async messages(sessionId: string): Promise<DbMessage[]> {
    const rows = await this.db.query(
      'SELECT role, content, tool_call_id, tool_calls, tool_name, turn_id FROM messages WHERE session_id = ? ORDER BY timestamp, id',
      [sessionId],
    );
    assert(sessionId.length > 0, 'messages of an unnamed session');
    return rows.map(rowToMessage);
  }

  /** Hermes' append_message: one row, in a transaction of its own (the sessions row counts it). */
  async appendMessage(sessionId: string, message: DbMessage, timestampMs: number): Promise<void> {
    assert(sessionId.length > 0, 'append_message to an unnamed session');
    assertNonNegativeInteger(timestampMs, `append_message timestamp in ${sessionId}`);
    assert(message.turnId.length > 0, `a ${message.role} row of ${sessionId} names its turn`);
    await this.db.transaction((tx) => {
      tx.run('INSERT OR IGNORE INTO sessions(id, started_at) VALUES (?, ?)', [sessionId, timestampMs]);
      tx.run(
        'INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, turn_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [sessionId, message.role, message.content, message.toolCallId, message.toolCalls, message.toolName, timestampMs, message.turnId],
      );
      tx.run('UPDATE sessions SET message_count = message_count + 1 WHERE id = ?', [sessionId]);
      // Read back what the transaction wrote: the count it keeps is the number of the session's rows (nothing else writes them).
      assert(
        Number(tx.query('SELECT message_count FROM sessions WHERE id = ?', [sessionId])[0]?.message_count) === Number(tx.query('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?', [sessionId])[0]?.n),
        `sessions.message_count of ${sessionId} counts its rows in messages`,
      );
    });
  }

  /** The session's message count as Hermes keeps it (sessions.message_count; 0 before the first row). */
  async messageCount(sessionId: string): Promise<number> {
    const rows = await this.db.query('SELECT message_count FROM sessions WHERE id = ?', [sessionId]);
    assert(rows.length <= 1, `${rows.length} sessions rows for ${sessionId}`);
    return Number(rows[0]?.message_count ?? 0);
  }
}

function rowToMessage(row: SqlRow): DbMessage {
  assert(row.role === 'user' || row.role === 'assistant' || row.role === 'tool', `a state.db row has role ${String(row.role)}`);
  return {
    role: row.role as DbMessage['role'],
    content: (row.content as string | null) ?? '',
    toolCallId: row.tool_call_id as string | null,
    toolCalls: row.tool_calls as string | null,
    toolName: row.tool_name as string | null,
    turnId: (row.turn_id as string | null) ?? '',
  };
}

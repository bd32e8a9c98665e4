// Hermes' SessionDB (`state.db`): a `messages` table and a `sessions` table. Reads order by timestamp, then id;
// append_message commits one row at a time and counts it in sessions.message_count.
// gatesim adds one column, `turn_id`, naming the turn (its inbound row id) a row belongs to: a retried turn
// recognises the rows it already wrote (no checker reads it).
// Session rotation (Hermes' SessionStore.reset_session): a /clear ends the session (`ended_at`, `end_reason`
// 'session_reset') and starts a new one whose `parent_session_id` is the old id, in one transaction. A session key's
// first session has the key as its id; its current session is the end of that parent chain.
import { assert, assertNonNegativeInteger } from './assert.ts';
import type { SqlDatabase, Sqlite, SqlRow } from './ports.ts';
import { contentHash } from './text.ts';

/** A bound on the rotations of one session key (each /clear is one). */
export const rotationsMax = 1_000;

/**
 * The id of the session a /clear starts: derived from the command's own row, so a /clear retried after a SIGKILL
 * names the same session (OpenClaw draws a uuid, Hermes a timestamp and 8 hex digits; either is persisted before the
 * reply, which is what the derivation stands for).
 */
export function rotatedSessionId(sessionKey: string, commandId: string): string {
  return `${sessionKey}~${contentHash(commandId)}`;
}

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
  message_count INTEGER NOT NULL DEFAULT 0,
  parent_session_id TEXT,
  ended_at INTEGER,
  end_reason TEXT
);
CREATE INDEX sessions_parent ON sessions(parent_session_id);
`;

export interface DbMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  toolCallId: string | null;
  toolCalls: string | null;
  toolName: string | null;
  turnId: string;
  /** The row's timestamp, on a row read back from state.db (a tool call's deadline is derived from its carrier's). */
  timestampMs?: number;
}

export class SessionDb {
  private constructor(private readonly db: SqlDatabase) {}

  static async open(sqlite: Sqlite): Promise<SessionDb> {
    return new SessionDb(await sqlite.open(stateDbPath, stateDbSchema));
  }

  async messages(sessionId: string): Promise<DbMessage[]> {
    const rows = await this.db.query(
      'SELECT role, content, tool_call_id, tool_calls, tool_name, turn_id, timestamp FROM messages WHERE session_id = ? ORDER BY timestamp, id',
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

  /**
   * A second writer's turn (src/dashboard.ts): its rows, in one transaction, into a session that no rotation has ended
   * (each counted in message_count as append_message counts it); false, and nothing written, when it was ended.
   */
  async appendTurnIfOpen(sessionId: string, messages: readonly DbMessage[], timestampMs: number): Promise<boolean> {
    assert(messages.length > 0 && messages.every((message) => message.turnId.length > 0), `a turn appended to ${sessionId} has rows, each naming its turn`);
    assertNonNegativeInteger(timestampMs, `a turn's timestamp in ${sessionId}`);
    return this.db.transaction((tx) => {
      const endedAt = tx.query('SELECT ended_at FROM sessions WHERE id = ?', [sessionId])[0]?.ended_at;
      if (endedAt !== undefined && endedAt !== null) return false;
      tx.run('INSERT OR IGNORE INTO sessions(id, started_at) VALUES (?, ?)', [sessionId, timestampMs]);
      for (const message of messages) {
        tx.run(
          'INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, turn_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          [sessionId, message.role, message.content, message.toolCallId, message.toolCalls, message.toolName, timestampMs, message.turnId],
        );
        tx.run('UPDATE sessions SET message_count = message_count + 1 WHERE id = ?', [sessionId]);
      }
      return true;
    });
  }

  /** The session a key's turns write to now: its first session (the key itself), followed through every rotation. */
  async currentSessionId(sessionKey: string): Promise<string> {
    return (await this.sessionsOf(sessionKey)).at(-1) ?? sessionKey;
  }

  /** The key's sessions, first (the key itself) to current, along the rotations' parent chain. */
  async sessionsOf(sessionKey: string): Promise<string[]> {
    const sessions = [sessionKey];
    for (let generation = 0; generation < rotationsMax; generation++) {
      const sessionId = sessions.at(-1) ?? sessionKey;
      const child = await this.db.query('SELECT id FROM sessions WHERE parent_session_id = ?', [sessionId]);
      if (child.length === 0) return sessions;
      assert(child.length === 1, `session ${sessionId} has ${child.length} successors`);
      sessions.push(String(child[0]?.id));
    }
    throw new Error(`session ${sessionKey} was rotated more than ${rotationsMax} times`);
  }

  /** The session a rotation started from (its parent), or null for a key's first session. */
  async parentOf(sessionId: string): Promise<string | null> {
    const rows = await this.db.query('SELECT parent_session_id FROM sessions WHERE id = ?', [sessionId]);
    return (rows[0]?.parent_session_id as string | null | undefined) ?? null;
  }

  /**
   * Hermes reset_session: end `oldId` and start `newId` after it, in one transaction (idempotent: a rotation already
   * committed is left as it is, so a retried /clear rotates once).
   */
  async rotate(oldId: string, newId: string, nowMs: number): Promise<void> {
    assert(oldId !== newId, 'a rotation starts a new session id');
    await this.db.transaction((tx) => {
      tx.run('INSERT OR IGNORE INTO sessions(id, started_at) VALUES (?, ?)', [oldId, nowMs]);
      tx.run("UPDATE sessions SET ended_at = ?, end_reason = 'session_reset' WHERE id = ? AND ended_at IS NULL", [nowMs, oldId]);
      tx.run('INSERT OR IGNORE INTO sessions(id, started_at, parent_session_id) VALUES (?, ?, ?)', [newId, nowMs, oldId]);
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
    ...(typeof row.timestamp === 'number' ? { timestampMs: row.timestamp } : {}),
  };
}

// nanoclaw's two SQLite files per session. `inbound.db` is written by the host (gateway) and only read by the
// runner: `messages_in` (id, seq, kind, status, process_after, tries, trigger, content, ..., and a scheduled task's
// recurrence and series_id: task-scheduler.ts) plus gatesim's durable
// `exec_seen` dedupe keys. `outbound.db` is written by the runner and the tool server: `messages_out` (id, seq,
// in_reply_to, kind, content as {"text": ...}, delivered, attempts), `session_state(key, value, updated_at)`, the
// runner's claims `processing_ack(message_id, status, status_changed)` and the fixed runner's own `turn_claims`
// (claims.ts); the host writes outbound.db only to drop orphan claims and to send its own error reply.
import { assert } from './assert.ts';
import type { SqlDatabase, Sqlite } from './ports.ts';

export const inboundSchema = `
CREATE TABLE messages_in (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  process_after INTEGER NOT NULL DEFAULT 0,
  tries INTEGER NOT NULL DEFAULT 0,
  trigger INTEGER NOT NULL DEFAULT 1,
  content TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  recurrence INTEGER,
  series_id TEXT
);
CREATE INDEX messages_in_due ON messages_in(status, process_after);
CREATE TABLE exec_seen (
  key TEXT PRIMARY KEY,
  seen_at INTEGER NOT NULL
);
`;

/** The schema of a session's outbound.db (nanoclaw's messages_out and session_state). */
export const outboundSchema = `
CREATE TABLE messages_out (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  in_reply_to TEXT,
  kind TEXT NOT NULL,
  content TEXT NOT NULL,
  source TEXT NOT NULL,
  delivered INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE INDEX messages_out_pending ON messages_out(delivered, seq);
CREATE TABLE session_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE processing_ack (
  message_id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  status_changed INTEGER NOT NULL
);
CREATE TABLE turn_claims (
  message_id TEXT PRIMARY KEY,
  turn_id TEXT NOT NULL,
  merged INTEGER NOT NULL DEFAULT 0,
  claimed_at INTEGER NOT NULL
);
CREATE INDEX turn_claims_turn ON turn_claims(turn_id);
`;

/** Where a session's inbound.db lives on the simulated disk. */
export function inboundPath(sessionKey: string): string {
  return `/data/sessions/${encodeURIComponent(sessionKey)}/inbound.db`;
}

/** Where a session's outbound.db lives on the simulated disk. */
export function outboundPath(sessionKey: string): string {
  return `/data/sessions/${encodeURIComponent(sessionKey)}/outbound.db`;
}

/**
 * Where a session's pi JSONL transcript lives on the simulated disk, by session id (OpenClaw's `<sessionId>.jsonl`;
 * a session key's first session has the key as its id).
 */
export function transcriptPath(sessionId: string): string {
  return `/data/sessions/${encodeURIComponent(sessionId)}.jsonl`;
}

export const runnerHeartbeatPath = '/run/runner.heartbeat';

/**
 * Opens and caches a process's handles to the per-session databases. The pollers ask for a handle on every poll, so
 * handles are looked up by session key (no path is built once a session's database is open). The getter keeps the
 * shape it always had (one async function that awaits only on the first open), so a caller resumes after the same
 * number of microtask hops as before; the scheduler's settling counts hops.
 */
export class SessionDbs {
  private readonly inbound = new Map<string, SqlDatabase>();
  private readonly outbound = new Map<string, SqlDatabase>();

  constructor(private readonly sqlite: Sqlite) {}

  inboundDb(sessionKey: string): Promise<SqlDatabase> {
    return this.open(this.inbound, sessionKey, inboundPath, inboundSchema);
  }

  outboundDb(sessionKey: string): Promise<SqlDatabase> {
    return this.open(this.outbound, sessionKey, outboundPath, outboundSchema);
  }

  private async open(handles: Map<string, SqlDatabase>, sessionKey: string, pathOf: (sessionKey: string) => string, schema: string): Promise<SqlDatabase> {
    assert(sessionKey.length > 0, 'a session database of an unnamed session');
    let db = handles.get(sessionKey);
    if (db === undefined) {
      db = await this.sqlite.open(pathOf(sessionKey), schema);
      assert(db.path === pathOf(sessionKey), `the database opened for ${sessionKey} is at ${db.path}, not ${pathOf(sessionKey)}`);
      handles.set(sessionKey, db);
    }
    return db;
  }
}

/**
 * turn_sent_payloads as stored in session_state: the payloads and the turn they belong to. The fixed model's per-turn
 * record also names the tool call that sent each payload (`calls`), so an answer is judged only by what its own calls
 * sent: a late repeat of a superseded answer's call (a replayed request) does not speak for the turn's new answer.
 */
export interface TurnSentPayloads {
  turnId: string | null;
  payloads: string[];
  calls?: { id: string; text: string }[];
  /**
   * The calls of the answer whose final row the turn is about to commit, kept only when a superseded answer of the
   * same prompt left durable calls beside them: a resumed turn replays every durable call, and judges its closing
   * text by this answer's alone.
   */
  answer?: string[];
}

export const turnSentPayloadsKey = 'turn_sent_payloads';

/** Seed 001's storage (one shared row) is what the send-stale and send-dup variants run with. */
export function sharedPayloadRow(bugs: ReadonlySet<string>): boolean {
  return bugs.has('send-stale') || bugs.has('send-dup') || bugs.has('sent-payloads-pr2531');
}

/**
 * Where a turn's sent payloads live in session_state. Seed 001 keeps one `turn_sent_payloads` row per session; the
 * fixed model keeps one row per turn, because a retried turn can run after another turn has sent (one shared row
 * would then hold the other turn's payloads and the retried turn would repeat its own).
 */
export function turnSentPayloadsKeyFor(turnId: string, sharedRow: boolean): string {
  assert(sharedRow || turnId.length > 0, 'a per-turn turn_sent_payloads key names its turn');
  return sharedRow ? turnSentPayloadsKey : `${turnSentPayloadsKey}:${turnId}`;
}

export const turnSendInvokedKey = 'turn_send_invoked';

/** Parse a turn_sent_payloads value (empty when absent). */
export function parseTurnSentPayloads(value: string | undefined): TurnSentPayloads {
  if (value === undefined) return { turnId: null, payloads: [] };
  const parsed = JSON.parse(value) as TurnSentPayloads;
  assert(Array.isArray(parsed.payloads), 'turn_sent_payloads holds a list of payloads');
  assert(parsed.turnId === null || typeof parsed.turnId === 'string', `turn_sent_payloads names its turn, not ${String(parsed.turnId)}`);
  if (parsed.calls === undefined) return { turnId: parsed.turnId, payloads: parsed.payloads };
  assert(Array.isArray(parsed.calls) && parsed.calls.every((call) => typeof call.id === 'string' && typeof call.text === 'string'), 'turn_sent_payloads names each call by id and text');
  if (parsed.answer === undefined) return { turnId: parsed.turnId, payloads: parsed.payloads, calls: parsed.calls };
  assert(Array.isArray(parsed.answer) && parsed.answer.every((id) => typeof id === 'string'), 'turn_sent_payloads names its answer by call ids');
  return { turnId: parsed.turnId, payloads: parsed.payloads, calls: parsed.calls, answer: parsed.answer };
}

// The fence of an abandoned call (chaos campaign seed 1001). In nanoclaw the MCP server is the agent's child over stdio:
// a call the agent stops waiting for dies with its answer, and nothing of it acts later. The model's tool server is a
// process of its own that reads its mailbox, so a call queued while it was down or slow to start would be carried out
// after the runner gave up on it (the turn went on as if nothing was sent, and the user saw the text twice). So the
// runner records its give-up where the tool server writes: a session_state row of the session's outbound database,
// keyed by the call id, written before the turn goes on. The tool server checks it inside the transaction that would
// write the call's outbound row, so one of the two happens first: the call acted before the give-up (its payload is
// recorded, and the turn's closing text is judged against it) or it never acts, and the tool server answers that the
// call is fenced (no retry can carry it out). The calls that act on the world carry a deadline instead
// (tool-deadline.ts).
import { assert } from './assert.ts';
import type { SqlDatabase, SqlTransaction } from './ports.ts';

/** `fenced` (fixed: the give-up is durable and the tool server honours it) or `unfenced` (before the fix; tests only). */
export const abandonedCallModes = ['fenced', 'unfenced'] as const;
export type AbandonedCallMode = (typeof abandonedCallModes)[number];

const abandonedCallPrefix = 'tool_call_abandoned:';

function abandonedCallKey(callId: string): string {
  assert(callId.length > 0, 'an abandoned call is named by its call id');
  return `${abandonedCallPrefix}${callId}`;
}

/** Records that the runner gave up on the call (idempotent: a second give-up keeps the first). */
export async function abandonCall(outbound: SqlDatabase, callId: string, turnId: string, nowMs: number): Promise<void> {
  await outbound.run('INSERT OR IGNORE INTO session_state(key, value, updated_at) VALUES (?, ?, ?)', [abandonedCallKey(callId), turnId, nowMs]);
}

/** Whether the runner gave up on the call, inside the tool server's write transaction. */
export function isAbandonedIn(tx: SqlTransaction, callId: string): boolean {
  return tx.query('SELECT 1 AS found FROM session_state WHERE key = ?', [abandonedCallKey(callId)]).length > 0;
}

// Your own component, run in gatesim's simulated world in place of the model's tool server: an MCP-style server,
// in its own process, that executes the agent's send_message / send_file / add_reaction calls. It is written only
// against the ports (ProcessContext: network, SQLite, clock, timers), so it can be killed at any await, see a
// "database is locked", and be replayed deterministically. The contract it keeps is the model's tool protocol:
// answer each `tool.call` with a `tool.result`; record a send durably as an outbound row keyed by the call id (so a
// retried call writes nothing twice) and its payload in the turn's `turn_sent_payloads`, in one transaction.
//
// It differs from the built-in one on purpose: a busy database is retried here a few times before the call is
// reported as failed (the built-in server fails it at once and lets the runner retry).
import {
  isToolCall,
  outboundPath,
  outboundSchema,
  parseTurnSentPayloads,
  type ProcessContext,
  type ProcessMain,
  type SqlDatabase,
  SqliteBusyError,
  type ToolCallMessage,
  type ToolResultMessage,
  turnSentPayloadsKeyFor,
} from 'gatesim';

const busyRetriesMax = 3;
const busyBackoffMs = 50;

/** The process main gatesim starts (and restarts after a kill) as the `tool-server` process. */
export const myToolServer: ProcessMain = async (ctx) => {
  const databases = new Map<string, SqlDatabase>();
  const outbound = async (sessionKey: string): Promise<SqlDatabase> => {
    const path = outboundPath(sessionKey);
    const open = databases.get(path) ?? (await ctx.sqlite.open(path, outboundSchema));
    databases.set(path, open);
    return open;
  };
  for (;;) {
    const delivery = await ctx.net.receive();
    if (!isToolCall(delivery.payload)) continue;
    const call = delivery.payload;
    ctx.spawnTask(`call:${call.callId}`, async () => {
      const ok = await recordWithRetries(ctx, await outbound(call.sessionKey), call);
      ctx.net.send(delivery.from, { type: 'tool.result', callId: call.callId, ok } satisfies ToolResultMessage);
    });
  }
};

async function recordWithRetries(ctx: ProcessContext, db: SqlDatabase, call: ToolCallMessage): Promise<boolean> {
  for (let attempt = 0; attempt <= busyRetriesMax; attempt++) {
    try {
      await record(ctx, db, call);
      return true;
    } catch (error) {
      if (!(error instanceof SqliteBusyError)) throw error;
      await ctx.timers.sleep(busyBackoffMs * (attempt + 1));
    }
  }
  return false;
}

async function record(ctx: ProcessContext, db: SqlDatabase, call: ToolCallMessage): Promise<void> {
  const nowMs = ctx.clock.nowMs();
  const kind = call.name === 'add_reaction' ? 'reaction' : call.name === 'send_file' ? 'file' : 'chat';
  await db.transaction((tx) => {
    const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_out')[0]?.next ?? 1);
    tx.run(
      'INSERT OR IGNORE INTO messages_out(id, seq, in_reply_to, kind, content, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [call.callId, seq, call.turnId, kind, JSON.stringify({ text: call.text }), 'tool', nowMs],
    );
    if (call.name === 'add_reaction') return;
    const key = turnSentPayloadsKeyFor(call.turnId, false);
    const sent = parseTurnSentPayloads(tx.query('SELECT value FROM session_state WHERE key = ?', [key])[0]?.value as string | undefined);
    if (!sent.payloads.includes(call.text)) sent.payloads.push(call.text);
    tx.run('INSERT OR REPLACE INTO session_state(key, value, updated_at) VALUES (?, ?, ?)', [key, JSON.stringify({ turnId: call.turnId, payloads: sent.payloads }), nowMs]);
  });
  ctx.note('tool-sent', { session: call.sessionKey, turn: call.turnId, call: call.callId, tool: call.name, text: call.text });
}

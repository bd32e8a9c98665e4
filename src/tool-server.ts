// The tool server: a separate process, as nanoclaw's MCP server, that shares nothing with the runner but SQLite.
// `send_message` and `send_file` write an outbound row and record their payload in `turn_sent_payloads`
// (read-modify-write in one transaction; the fixed model's per-turn record also names the call that sent it); `add_reaction` writes a reaction row and records nothing (a reaction
// plus a closing summary is a valid reply). With seed 001's first fix (send-flag) the handlers set the boolean
// `turn_send_invoked` instead. Outbound row ids are derived from the turn and the call, so a repeated call (a retry
// after a lost reply or a runner restart) writes nothing twice.
import { assert } from './assert.ts';
import { isBusy } from './busy.ts';
import type { BugId } from './config.ts';
import type { ProcessContext, ToolName } from './ports.ts';
import {
  parseTurnSentPayloads,
  SessionDbs,
  sharedPayloadRow,
  turnSendInvokedKey,
  turnSentPayloadsKeyFor,
} from './session-dbs.ts';

export { toolServerName } from './protocol.ts';

/** A tool call from the runner to the tool server. */
export interface ToolCallMessage {
  type: 'tool.call';
  callId: string;
  sessionKey: string;
  turnId: string;
  name: ToolName;
  text: string;
}

/** The tool server's answer to a call: ok false means the runner retries it. */
export interface ToolResultMessage {
  type: 'tool.result';
  callId: string;
  ok: boolean;
}

/** Whether a network payload is a tool call. */
export function isToolCall(payload: unknown): payload is ToolCallMessage {
  return typeof payload === 'object' && payload !== null && (payload as { type?: unknown }).type === 'tool.call';
}

/** The built-in tool server's process main (wrap it, or replace it through buildModel's components). */
export async function toolServerMain(ctx: ProcessContext, bugs: ReadonlySet<BugId>): Promise<void> {
  const dbs = new SessionDbs(ctx.sqlite);
  for (;;) {
    const delivery = await ctx.net.receive();
    if (!isToolCall(delivery.payload)) continue;
    const call = delivery.payload;
    ctx.spawnTask(`tool:${call.callId}`, async () => {
      const ok = await handleToolCall(ctx, dbs, bugs, call);
      ctx.net.send(delivery.from, { type: 'tool.result', callId: call.callId, ok } satisfies ToolResultMessage);
    });
  }
}

async function handleToolCall(
  ctx: ProcessContext,
  dbs: SessionDbs,
  bugs: ReadonlySet<BugId>,
  call: ToolCallMessage,
): Promise<boolean> {
  const db = await dbs.outboundDb(call.sessionKey);
  const nowMs = ctx.clock.nowMs();
  const kind = call.name === 'add_reaction' ? 'reaction' : call.name === 'send_file' ? 'file' : 'chat';
  assert(call.name === 'send_message' || call.name === 'send_file' || call.name === 'add_reaction', `the tool server offers no tool ${String(call.name)}`);
  try {
    const inserted = await db.transaction((tx) => {
      const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_out')[0]?.next ?? 1);
      const result = tx.run(
        'INSERT OR IGNORE INTO messages_out(id, seq, in_reply_to, kind, content, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [call.callId, seq, call.turnId, kind, JSON.stringify({ text: call.text }), 'tool', nowMs],
      );
      if (call.name === 'add_reaction') return result.changes;
      if (bugs.has('send-flag')) {
        // seed 001, first version of the fix: a boolean "a send happened this turn".
        tx.run('INSERT OR REPLACE INTO session_state(key, value, updated_at) VALUES (?, ?, ?)', [turnSendInvokedKey, '1', nowMs]);
        return result.changes;
      }
      const shared = sharedPayloadRow(bugs);
      const key = turnSentPayloadsKeyFor(call.turnId, shared);
      const row = tx.query('SELECT value FROM session_state WHERE key = ?', [key])[0];
      const record = parseTurnSentPayloads(row?.value as string | undefined);
      const { payloads } = record;
      if (!payloads.includes(call.text)) payloads.push(call.text);
      assert(payloads.includes(call.text) && new Set(payloads).size === payloads.length, `turn ${call.turnId}'s payload record holds ${call.callId}'s text once`);
      // The fixed per-turn record names the call that sent each payload (seed 001's shared row keeps texts only).
      const calls = shared ? undefined : (record.calls ?? []);
      if (calls !== undefined && !calls.some((sent) => sent.id === call.callId)) calls.push({ id: call.callId, text: call.text });
      tx.run('INSERT OR REPLACE INTO session_state(key, value, updated_at) VALUES (?, ?, ?)', [
        key,
        JSON.stringify(calls === undefined ? { turnId: call.turnId, payloads } : { turnId: call.turnId, payloads, calls }),
        nowMs,
      ]);
      return result.changes;
    });
    assert(inserted === 0 || inserted === 1, `tool call ${call.callId} is one messages_out row, not ${inserted}`);
    ctx.note('tool-sent', { session: call.sessionKey, turn: call.turnId, call: call.callId, tool: call.name, text: call.text, inserted });
    return true;
  } catch (error) {
    if (isBusy(error)) {
      ctx.note('tool-busy', { call: call.callId });
      return false;
    }
    throw error;
  }
}

// The tool server: a separate process, as nanoclaw's MCP server, that shares nothing with the runner but SQLite.
// `send_message` and `send_file` write an outbound row and record their payload in `turn_sent_payloads`
// (read-modify-write in one transaction; the fixed model's per-turn record also names the call that sent it); `add_reaction` writes a reaction row and records nothing (a reaction
// plus a closing summary is a valid reply). With seed 001's first fix (send-flag) the handlers set the boolean
// `turn_send_invoked` instead. Outbound row ids are derived from the turn and the call, so a repeated call (a retry
// after a lost reply or a runner restart) writes nothing twice.
// `create_event` acts on an external service (a calendar, part of the world): the tool server asks it to create the
// event and answers the runner once the service confirmed. The request carries the tool-call id the LLM API issued
// as the service's idempotency key (as a client-chosen event id: a second insert of one id creates nothing), so a
// call the runner retries, or replays when it resumes a turn after a crash, takes effect once however many times it
// reaches the service. nanoclaw's MCP tools draw a fresh id per execution instead (docs/MODEL.md), which acts twice.
// The call carries its deadline (tool-deadline.ts): a call that reaches the tool server past it, a stale one queued
// while the server was starting or a late replay, is refused (ok false) and asks the service nothing, so nothing the
// runner has stopped waiting for can act after the turn gave up. A call that writes an outbound row is refused when its
// runner recorded that it gave up on it (tool-fence.ts), checked in the transaction that would write the row.
import { assert } from './assert.ts';
import { isBusy } from './busy.ts';
import type { BugId, ToolRowIds } from './config.ts';
import type { ProcessContext, ToolName } from './ports.ts';
import { ReplyWaiter } from './reply-waiter.ts';
import { eventCreateTimeoutMs, withinDeadline } from './tool-deadline.ts';
import { isAbandonedIn } from './tool-fence.ts';
import {
  parseTurnSentPayloads,
  SessionDbs,
  sharedPayloadRow,
  turnSendInvokedKey,
  turnSentPayloadsKeyFor,
} from './session-dbs.ts';

import { calendarServiceName, type EventCreatedMessage, type EventCreateMessage } from './protocol.ts';

export { calendarServiceName, type EventCreatedMessage, type EventCreateMessage, toolServerName } from './protocol.ts';

/** A tool call from the runner to the tool server. */
export interface ToolCallMessage {
  type: 'tool.call';
  callId: string;
  sessionKey: string;
  turnId: string;
  name: ToolName;
  text: string;
  /**
   * The time after which the tool server starts nothing for the call (tool-deadline.ts), on a call that acts on the
   * world; absent on the others, and under the `none` sabotage.
   */
  deadlineMs?: number;
}

/** The tool server's answer to a call: ok false means the runner retries it, unless the call is `fenced`. */
export interface ToolResultMessage {
  type: 'tool.result';
  callId: string;
  ok: boolean;
  /** The call was refused because its runner gave up on it (tool-fence.ts): no retry can carry it out. */
  fenced?: boolean;
}

/** What became of a call: carried out, failed (a retry may succeed), or fenced off for good. */
export type ToolOutcome = 'done' | 'failed' | 'fenced';

export { eventCreateTimeoutMs } from './tool-deadline.ts';

/** Whether a network payload is the service's confirmation of an event. */
export function isEventCreated(payload: unknown): payload is EventCreatedMessage {
  return typeof payload === 'object' && payload !== null && (payload as { type?: unknown }).type === 'event.created';
}

/** Whether a network payload is a tool call. */
export function isToolCall(payload: unknown): payload is ToolCallMessage {
  return typeof payload === 'object' && payload !== null && (payload as { type?: unknown }).type === 'tool.call';
}

/** The built-in tool server's process main (wrap it, or replace it through buildModel's components). */
export async function toolServerMain(ctx: ProcessContext, bugs: ReadonlySet<BugId>, rowIds: ToolRowIds = 'call-id'): Promise<void> {
  const dbs = new SessionDbs(ctx.sqlite);
  const events = new ReplyWaiter(ctx.timers, eventCreateTimeoutMs, false);
  /** Event requests on their way to the service, by call id: a repeat of the call waits for the same answer. */
  const inProgress = new Map<string, Promise<boolean>>();
  for (;;) {
    const delivery = await ctx.net.receive();
    if (isEventCreated(delivery.payload)) {
      // A confirmation nobody waits for (late, or a replay) changes nothing: the event exists either way.
      events.settle(delivery.payload.key, true);
      continue;
    }
    if (!isToolCall(delivery.payload)) continue;
    const call = delivery.payload;
    ctx.spawnTask(`tool:${call.callId}`, async () => {
      const outcome = call.name === 'create_event' ? ((await createEvent(ctx, events, inProgress, call)) ? 'done' : 'failed') : await handleToolCall(ctx, dbs, bugs, call, rowIds);
      const result: ToolResultMessage = { type: 'tool.result', callId: call.callId, ok: outcome === 'done' };
      if (outcome === 'fenced') result.fenced = true;
      ctx.net.send(delivery.from, result);
    });
  }
}

/**
 * Asks the calendar to create the call's event, keyed by the call id, and waits for its confirmation. A repeat of a
 * call still waiting (the runner retried or resumed while the first attempt is on its way, or the network replayed
 * it) waits for the same confirmation instead of asking again. False when none came in time: the runner retries the
 * call, which the key makes harmless.
 */
async function createEvent(ctx: ProcessContext, events: ReplyWaiter, inProgress: Map<string, Promise<boolean>>, call: ToolCallMessage): Promise<boolean> {
  assert(call.name === 'create_event' && call.callId.length > 0, `create_event is keyed by its call id (${call.callId})`);
  const waiting = inProgress.get(call.callId);
  if (waiting !== undefined) return waiting;
  // Past its deadline the runner has stopped waiting, and its turn may give up: the call acts on nothing.
  if (!withinDeadline(call.deadlineMs, ctx.clock.nowMs())) {
    ctx.note('tool-refused', { session: call.sessionKey, turn: call.turnId, call: call.callId, deadlineMs: call.deadlineMs ?? -1 });
    return false;
  }
  const request: EventCreateMessage = { type: 'event.create', key: call.callId, sessionKey: call.sessionKey, text: call.text };
  const confirmed = events.wait(call.callId, () => ctx.net.send(calendarServiceName, request));
  inProgress.set(call.callId, confirmed);
  assert(inProgress.size <= 1_000, `${inProgress.size} event requests in progress at once`);
  const ok = await confirmed;
  inProgress.delete(call.callId);
  ctx.note('tool-event', { session: call.sessionKey, turn: call.turnId, call: call.callId, ok: ok ? 1 : 0 });
  return ok;
}

async function handleToolCall(
  ctx: ProcessContext,
  dbs: SessionDbs,
  bugs: ReadonlySet<BugId>,
  call: ToolCallMessage,
  rowIds: ToolRowIds,
): Promise<ToolOutcome> {
  const db = await dbs.outboundDb(call.sessionKey);
  const nowMs = ctx.clock.nowMs();
  // nanoclaw's id, drawn per execution (the sabotage), or the call's own (fixed).
  const rowId = rowIds === 'per-execution' ? `msg-${nowMs}-${ctx.random.int(0, 2 ** 31 - 1).toString(36)}` : call.callId;
  const kind = call.name === 'add_reaction' ? 'reaction' : call.name === 'send_file' ? 'file' : 'chat';
  assert(call.name === 'send_message' || call.name === 'send_file' || call.name === 'add_reaction', `the tool server offers no tool ${String(call.name)}`);
  try {
    const inserted = await db.transaction((tx) => {
      // The runner gave up on the call (tool-fence.ts): it acts on nothing now.
      if (isAbandonedIn(tx, call.callId)) return -1;
      const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_out')[0]?.next ?? 1);
      const result = tx.run(
        'INSERT OR IGNORE INTO messages_out(id, seq, in_reply_to, kind, content, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [rowId, seq, call.turnId, kind, JSON.stringify({ text: call.text }), 'tool', nowMs],
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
        JSON.stringify(calls === undefined ? { turnId: call.turnId, payloads } : { turnId: call.turnId, payloads, calls, answer: record.answer }),
        nowMs,
      ]);
      return result.changes;
    });
    if (inserted === -1) {
      ctx.note('tool-fenced', { session: call.sessionKey, turn: call.turnId, call: call.callId });
      return 'fenced';
    }
    assert(inserted === 0 || inserted === 1, `tool call ${call.callId} is one messages_out row, not ${inserted}`);
    ctx.note('tool-sent', { session: call.sessionKey, turn: call.turnId, call: call.callId, tool: call.name, text: call.text, inserted });
    return 'done';
  } catch (error) {
    if (isBusy(error)) {
      ctx.note('tool-busy', { call: call.callId });
      return 'failed';
    }
    throw error;
  }
}

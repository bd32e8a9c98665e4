// Deadlines of the tool calls that act on the world (create_event), as gRPC propagates a deadline with a call: the
// time after which the tool server starts nothing for the call. A call's deadline has a durable basis, the timestamp
// of its carrier row in state.db (written before the call is sent) plus toolCallDeadlineMs, so every runner
// incarnation computes the same deadline for it, a killed predecessor's calls included. The tool server refuses a call
// that reaches it past its deadline (ok false, nothing done); the runner stops retrying a call past its deadline; and
// a turn that gives up (the error reply) first waits until every such call of its session that may still act has
// passed its deadline and the tool server's own wait for the service (eventCreateTimeoutMs): after that nothing the
// session asked for can take effect, so the user is never told a request failed before one of its actions happens
// (effect-at-most-once, docs/MODEL.md "Tools that act on the world"). Chaos found the hole: a call queued at a tool
// server that was slow to start was carried out 38 s after the error reply for its message had been shown.
import { assert, assertNonNegativeInteger } from './assert.ts';
import type { ToolName } from './ports.ts';
import type { DbMessage } from './session-db.ts';

/** `propagated` (fixed: the deadline above) or `none` (no deadline, the model before the fix; tests only). */
export const toolDeadlineModes = ['propagated', 'none'] as const;
export type ToolDeadlineMode = (typeof toolDeadlineModes)[number];

/** The tools whose calls act on the world and so carry a deadline. */
export const deadlinedTools: readonly ToolName[] = ['create_event'];

/** How long the tool server waits for the service to confirm an event before it tells the runner the call failed. */
export const eventCreateTimeoutMs = 5_000;

/** The deadline of a call whose carrier row was written at carrierAtMs. */
export function callDeadlineMs(carrierAtMs: number, deadlineAfterMs: number): number {
  assertNonNegativeInteger(carrierAtMs, 'a carrier row timestamp');
  assert(Number.isSafeInteger(deadlineAfterMs) && deadlineAfterMs > 0, `a tool call deadline ${deadlineAfterMs} ms after its carrier`);
  return carrierAtMs + deadlineAfterMs;
}

/** Whether a call with this deadline may still be started at nowMs (no deadline: always). */
export function withinDeadline(deadlineMs: number | undefined, nowMs: number): boolean {
  return deadlineMs === undefined || nowMs <= deadlineMs;
}

/**
 * The time after which no deadlined call of the session's rows can take effect any more: the latest deadline of a
 * call with no `sent` result row (a confirmed call has acted, and a repeat of it is no new effect, by its key), plus
 * the tool server's wait for the service. Undefined when the rows hold no such call.
 */
export function effectsSettleAtMs(rows: readonly DbMessage[], deadlineAfterMs: number): number | undefined {
  const confirmed = new Set(rows.filter((row) => row.role === 'tool' && row.content === 'sent' && row.toolCallId !== null).map((row) => row.toolCallId));
  let settleAtMs: number | undefined;
  for (const row of rows) {
    if (row.role !== 'assistant' || row.toolCalls === null) continue;
    const calls = JSON.parse(row.toolCalls) as { id: string; function: { name: ToolName } }[];
    assert(Array.isArray(calls), `a tool_calls value of turn ${row.turnId} is a list`);
    if (!calls.some((call) => deadlinedTools.includes(call.function.name) && !confirmed.has(call.id))) continue;
    assert(row.timestampMs !== undefined, `the carrier row of turn ${row.turnId} was read with its timestamp`);
    const settle = callDeadlineMs(row.timestampMs, deadlineAfterMs) + eventCreateTimeoutMs;
    settleAtMs = Math.max(settleAtMs ?? settle, settle);
  }
  return settleAtMs;
}

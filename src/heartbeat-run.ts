// Gateway-side heartbeat runs (issue 24 item 5): OpenClaw's heartbeat runner runs a heartbeat as an agent run of its
// own (`runHeartbeatOnce` -> `getReplyFromConfig` with `isHeartbeat`), not as a row for the chat runner. What the model
// takes from it (read in 2026.4.24 dist/heartbeat-runner-CjYcq5k0.js, region src/infra/heartbeat-runner.ts, and
// dist/model-fallback-CHc4qFzF.js, region src/agents/model-fallback.ts):
// - the pending system events are inspected (peeked), not drained, before the run; they are consumed
//   (`consumeInspectedSystemEvents`) only on the paths where the run returned, so a run that failed leaves them queued;
// - the run has the heartbeat's own timeout (`heartbeat.timeoutSeconds`, passed as `timeoutOverrideSeconds`; without
//   it the agent's default of 48 h applies) and goes through `runWithModelFallback`: a failover error (a timeout, a rate
//   limit, an overload) moves on to the next configured model, each candidate with the same timeout;
// - a run that failed after every candidate is logged and answered `{status: 'failed'}`, which the wake does not
//   retry (dist/heartbeat-wake-gACR6ANS.js retries only `requests-in-flight` and a thrown handler): the events wait
//   in the queue for the session's next wake. The user is told nothing.
// The model's gateway makes the LLM call itself under these rules, then hands the answer to the runner with the
// heartbeat's row (`heartbeat_answers` beside `messages_in`), so that the transcripts, tool calls and delivery keep the
// runner's exactly-once machinery: the runner uses the stored answer when the prompt it would ask is the one the
// gateway asked (a row that took other messages along asks the LLM again). Modes (the knob `heartbeatRun`):
// - `gateway`, the fixed run: the prompt is written first as a row the gateway holds (never due for the runner) with
//   the events' durable keys, and only then are the events consumed and acknowledged to the node host; the run's answer
//   releases the row; a failed run asks for another wake after retryMs, and a restarted gateway wakes to run a row a
//   kill left held. So an event that reached a prompt is never lost with the gateway's memory;
// - `openclaw`: OpenClaw 2026.4.24 as released, the run from the in-memory events first (a gateway killed during it
//   loses them unless the node host sends them again), a failed run's events waiting for the session's next wake;
// - `gateway-no-retry` (tests only): the fixed run without the retry of a failed run.
import { assert, assertNonNegativeInteger } from './assert.ts';
import { isBusy } from './busy.ts';
import type { LlmAnswer, LlmApi, ProcessContext, SqlDatabase, SqlTransaction } from './ports.ts';
import { LlmAbort, LlmAbortedError, LlmTransientError } from './ports.ts';

export const heartbeatRunModes = ['gateway', 'openclaw', 'gateway-no-retry'] as const;
export type HeartbeatRunMode = (typeof heartbeatRunModes)[number];

export interface HeartbeatRunKnobs {
  mode: HeartbeatRunMode;
  /** The heartbeat's run timeout (OpenClaw `heartbeat.timeoutSeconds`), for each model candidate. */
  timeoutMs: number;
  /** How many fallback models follow the primary one (OpenClaw `agents.defaults.model.fallbacks`). */
  fallbacks: number;
  /** The fixed gateway's wait before it asks for another wake after a failed run. */
  retryMs: number;
}

/**
 * The due time of a heartbeat row the gateway holds while its own run asks the LLM: never due for the runner, nor work
 * waiting for the heartbeat's lane check (claims.ts), until the gateway releases it with its answer.
 */
export const heldRowDueMs = Number.MAX_SAFE_INTEGER;

/** The table in a session's inbound.db holding the answer the gateway's run got for a heartbeat row. */
const answersTable = 'CREATE TABLE IF NOT EXISTS heartbeat_answers(row_id TEXT PRIMARY KEY, prompt TEXT NOT NULL, answer TEXT NOT NULL)';

/**
 * The heartbeat's agent run: the primary model, then each fallback, every candidate with the run's timeout. A timed-out
 * candidate's request is abandoned (OpenClaw aborts the run; a late answer is never used). Undefined when every
 * candidate failed.
 */
export async function runHeartbeatAgent(ctx: ProcessContext, llm: LlmApi, knobs: HeartbeatRunKnobs, sessionKey: string, prompt: string): Promise<LlmAnswer | undefined> {
  assert(knobs.timeoutMs > 0, `a heartbeat run times out after a positive time, not ${knobs.timeoutMs} ms`);
  assertNonNegativeInteger(knobs.fallbacks, 'the heartbeat run fallbacks');
  for (let candidate = 0; candidate <= knobs.fallbacks; candidate++) {
    ctx.note('heartbeat-run', { session: sessionKey, candidate });
    const outcome = await withTimeout(ctx, llm, sessionKey, prompt, knobs.timeoutMs);
    if (outcome.kind === 'answer') return outcome.answer;
    ctx.note('heartbeat-run-failover', { session: sessionKey, candidate, reason: outcome.kind, last: candidate === knobs.fallbacks });
  }
  return undefined;
}

type Outcome = { kind: 'answer'; answer: LlmAnswer } | { kind: 'timeout' } | { kind: 'error' };

/** One candidate's run: the request, given up (aborted) when the timeout comes first. */
async function withTimeout(ctx: ProcessContext, llm: LlmApi, sessionKey: string, prompt: string, timeoutMs: number): Promise<Outcome> {
  const abort = new LlmAbort();
  const timer = ctx.timers.setTimer(timeoutMs, () => abort.abort());
  try {
    return { kind: 'answer', answer: await llm.complete({ sessionKey, prompt }, ctx.timers, abort) };
  } catch (error) {
    if (error instanceof LlmAbortedError) return { kind: 'timeout' };
    if (error instanceof LlmTransientError) return { kind: 'error' };
    throw error;
  } finally {
    timer.cancel();
  }
}

/** Releases a held heartbeat row to the runner with its run's answer (false when it was no longer held). */
export function releaseHeldRow(tx: SqlTransaction, rowId: string, prompt: string, answer: LlmAnswer, nowMs: number): boolean {
  if (tx.run('UPDATE messages_in SET process_after = ? WHERE id = ? AND process_after = ?', [nowMs, rowId, heldRowDueMs]).changes === 0) return false;
  storeHeartbeatAnswer(tx, rowId, prompt, answer);
  return true;
}

/** Records the answer of a heartbeat row, in the transaction that writes (or releases) the row. */
export function storeHeartbeatAnswer(tx: SqlTransaction, rowId: string, prompt: string, answer: LlmAnswer): void {
  tx.run(answersTable);
  const stored = JSON.stringify({ toolCalls: answer.toolCalls, result: answer.result, ...(answer.streamCut === true ? { streamCut: true } : {}) });
  assert(tx.run('INSERT INTO heartbeat_answers(row_id, prompt, answer) VALUES (?, ?, ?)', [rowId, prompt, stored]).changes === 1, `the answer of heartbeat row ${rowId} is stored once`);
}

/** The answer the gateway's run got for this heartbeat row, if it asked this very prompt. */
export async function storedHeartbeatAnswer(inbound: SqlDatabase, rowId: string, prompt: string): Promise<LlmAnswer | undefined> {
  try {
    const rows = await inbound.query('SELECT prompt, answer FROM heartbeat_answers WHERE row_id = ?', [rowId]);
    assert(rows.length <= 1, `heartbeat row ${rowId} has ${rows.length} stored answers`);
    const row = rows[0];
    if (row === undefined || row.prompt !== prompt) return undefined;
    return JSON.parse(String(row.answer)) as LlmAnswer;
  } catch (error) {
    // No heartbeat row was ever stored in this session (the table does not exist yet): nothing to use.
    if (!isBusy(error) && error instanceof Error && /no such table/.test(error.message)) return undefined;
    throw error;
  }
}

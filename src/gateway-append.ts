// Hermes' gateway transcript append (`gateway/run.py` `_handle_message_with_agent`, after `_run_agent` returns, and
// `gateway/session.py` `SessionStore.append_to_transcript`), the second writer of state.db. The gateway runs the
// agent, then appends the run's exchange to the session's transcript through its own SessionStore: every message to
// the legacy JSONL file (`sessions/<session_id>.jsonl`, kept as a backup) and to state.db through the store's own
// SessionDB unless `skip_db` is set. `skip_db` is `agent_persisted`: whether the agent has a SessionDB of its own,
// whose flush (`_flush_messages_to_session_db`) already wrote the rows, so nothing is written twice (#860). Its paths:
// - the run produced messages: each new message (the agent's messages from `history_offset`, system messages left
//   out) with skip_db; when none of them is an assistant message with text, the delivered response is backfilled with
//   skip_db off (#44100: a recovery path that delivered a response the agent never appended, as the agent's
//   partial-stream recovery does; `no-backfill` is the gateway before that fix);
// - the run failed early (a transient error, no answer): only the user message, with skip_db unless the agent did not
//   persist it (#42039; Hermes dedupes it on the platform message id). Newer Hermes reports `agent_persisted` per run:
//   false when the agent's own write failed (`_runtime_persistence_succeeded`: a `_last_persistence_error_cause`), and
//   the gateway then writes the user row to state.db itself; here the agent's write of the user row failed busy;
// - no new messages (history_offset past the agent's messages, after a context compression): the user message with
//   skip_db and the response with skip_db off (#44100). The model compresses no context, so its runs always have new
//   messages (their user message at least) and this path is not modelled.
// The model's agent always has a SessionDB (its write-ahead flush is what keeps a reply from leaving before its row),
// so in the fixed model the gateway's own writes reach state.db on the backfill paths and after a run that failed
// early whose user row the agent could not write. The rows go to the session the turn wrote to (the key's current
// one after a /clear; Hermes appends by `session_entry.session_id`). `no-skip-db` is Hermes before #860: every row
// written a second time.
import type { AgentMessage } from './agent.ts';
import { assert } from './assert.ts';
import type { GatewayAppendMode } from './config.ts';
import type { ProcessContext } from './ports.ts';
import type { DbMessage, SessionDb } from './session-db.ts';

/** Where Hermes' legacy JSONL transcript of a session (by its session id) lives on the simulated disk. */
export function hermesTranscriptPath(sessionId: string): string {
  return `/data/hermes/sessions/${encodeURIComponent(sessionId)}.jsonl`;
}

export type GatewayAppendPath = 'run' | 'failed-early';

export class GatewayTranscriptAppend {
  constructor(
    private readonly ctx: ProcessContext,
    private readonly mode: GatewayAppendMode,
    /** The SessionStore's own SessionDB (a handle of its own on state.db). */
    private readonly store: SessionDb,
  ) {
    assert(mode !== 'off', 'a gateway append is built only when it is on');
  }

  /** After a run: the new messages with skip_db, and the response backfilled when no new message carries it. */
  async afterRun(sessionId: string, newMessages: readonly AgentMessage[], response: string, turnId: string): Promise<void> {
    assert(newMessages[0]?.role === 'user', "a run's new messages start with its user message");
    const rows: { message: DbMessage; skipDb: boolean }[] = newMessages.map((message) => ({ message, skipDb: true }));
    const carried = newMessages.some((message) => message.role === 'assistant' && message.content.length > 0);
    // Before #44100's fix (no-backfill), the response no new message carries was written nowhere.
    const backfilled = !carried && this.mode !== 'no-backfill';
    if (backfilled) rows.push({ message: assistant(response, turnId), skipDb: false });
    await this.append(sessionId, 'run', rows, backfilled);
  }

  /** A run that failed early: the user message alone, with skip_db when the agent persisted it (`agent_persisted`). */
  async afterFailedRun(sessionId: string, user: AgentMessage): Promise<void> {
    assert(user.role === 'user', 'a failed run appends its user message');
    await this.append(sessionId, 'failed-early', [{ message: user, skipDb: user.persisted }]);
    // The gateway wrote the row the agent could not: a later flush of this agent must not write it again.
    if (!user.persisted) user.persisted = true;
  }

  /** append_to_transcript per message: state.db unless skip_db (honoured when the agent persisted), then the JSONL. */
  private async append(sessionId: string, path: GatewayAppendPath, rows: readonly { message: DbMessage; skipDb: boolean }[], backfilled = false): Promise<void> {
    const nowMs = this.ctx.clock.nowMs();
    let written = 0;
    for (const { message, skipDb } of rows) {
      // before Hermes #860 (no-skip-db): the gateway wrote the agent's rows to state.db again.
      if (!skipDb || this.mode === 'no-skip-db') {
        await this.store.appendMessage(sessionId, message, nowMs);
        written++;
      }
    }
    const lines = rows.map(({ message }) => JSON.stringify({ role: message.role, content: message.content, tool_calls: message.toolCalls, tool_call_id: message.toolCallId, timestamp: nowMs }));
    await this.ctx.disk.append(hermesTranscriptPath(sessionId), `${lines.join('\n')}\n`);
    this.ctx.note('gateway-append', { session: sessionId, path, rows: rows.length, toDb: written, backfilled: backfilled ? 1 : 0 });
  }
}

function assistant(content: string, turnId: string): DbMessage {
  return { role: 'assistant', content, toolCallId: null, toolCalls: null, toolName: null, turnId };
}

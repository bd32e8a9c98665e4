// What the checkers look at, gathered from outside the components: the trace, what the platform showed the user,
// and the final durable state (state.db rows, per-session inbound/outbound rows, the JSONL transcripts). Nothing
// here asks a component what it thinks; it reads what is durable or visible.
import {
  type BuiltModel,
  inboundPath,
  normalizeWhitespace,

  parseTranscript,
  type SessionEntry,
  stateDbPath,
  transcriptPath,
  type VisibleMessage,
} from '../../src/index.ts';
import { sessionKey } from '../run/plan.ts';
import type { RunSpec } from '../run/plan.ts';
import type { Simulation } from '../kernel/simulation.ts';
import type { TraceEvent } from '../kernel/trace.ts';

export interface StateRow {
  id: number;
  sessionId: string;
  role: string;
  content: string;
  toolCalls: string | null;
  toolCallId: string | null;
  turnId: string;
}

export interface InboundRowState {
  sessionKey: string;
  id: string;
  kind: string;
  status: string;
  content: string;
  mergedInto: string | null;
}

/**
 * An inbound message the system accepted: a chat message the platform saw acknowledged (taken from the platform,
 * not from the gateway's own tables), or an exec prompt the gateway persisted. `status` is its row's, if it has one.
 */
export interface AcceptedInbound {
  id: string;
  sessionKey: string;
  text: string;
  status: string | undefined;
}

export interface Observations {
  sessions: string[];
  accepted: AcceptedInbound[];
  visible: VisibleMessage[];
  stateRows: StateRow[];
  inbound: InboundRowState[];
  transcripts: Map<string, { entries: SessionEntry[]; malformedLines: number }>;
  events: readonly TraceEvent[];
  faultPhaseMs: number;
  endMs: number;
}

export function observe(sim: Simulation, model: BuiltModel, spec: RunSpec, endMs: number): Observations {
  const sessions = Array.from({ length: spec.plan.sessions }, (_, index) => sessionKey(index));
  const dbPaths = new Set(sim.sqlite.paths());
  const stateRows: StateRow[] = dbPaths.has(stateDbPath)
    ? sim.sqlite
        .inspect(stateDbPath, 'SELECT id, session_id, role, content, tool_calls, tool_call_id, turn_id FROM messages ORDER BY id')
        .map((row) => ({
          id: Number(row.id),
          sessionId: String(row.session_id),
          role: String(row.role),
          content: String(row.content ?? ''),
          toolCalls: row.tool_calls === null ? null : String(row.tool_calls),
          toolCallId: row.tool_call_id === null ? null : String(row.tool_call_id),
          turnId: String(row.turn_id ?? ''),
        }))
    : [];
  const inbound: InboundRowState[] = [];
  const transcripts = new Map<string, { entries: SessionEntry[]; malformedLines: number }>();
  for (const session of sessions) {
    if (dbPaths.has(inboundPath(session))) {
      for (const row of sim.sqlite.inspect(inboundPath(session), 'SELECT id, kind, status, content, merged_into FROM messages_in ORDER BY seq')) {
        inbound.push({
          sessionKey: session,
          id: String(row.id),
          kind: String(row.kind),
          status: String(row.status),
          content: String(row.content),
          mergedInto: row.merged_into === null ? null : String(row.merged_into),
        });
      }
    }
    // The durable transcript: what a crash of every process at the end would leave.
    const text = sim.disk.peekSynced(transcriptPath(session));
    if (text !== undefined) transcripts.set(session, parseTranscript(text));
  }
  const platform = model.world.platform;
  const rowById = new Map(inbound.map((row) => [row.id, row]));
  const accepted: AcceptedInbound[] = [
    ...platform.sent
      .filter((message) => platform.acknowledged.has(message.deliveryId))
      .map((message) => ({ id: `in:${message.deliveryId}`, sessionKey: message.sessionKey, text: message.text, status: rowById.get(`in:${message.deliveryId}`)?.status })),
    ...inbound.filter((row) => row.kind === 'system').map((row) => ({ id: row.id, sessionKey: row.sessionKey, text: row.content, status: row.status })),
  ];
  return {
    sessions,
    accepted,
    visible: platform.visible,
    stateRows,
    inbound,
    transcripts,
    events: sim.trace.events,
    faultPhaseMs: spec.plan.faultPhaseMs,
    endMs,
  };
}

export function replyPayloads(visible: readonly VisibleMessage[]): VisibleMessage[] {
  return visible.filter((message) => message.kind !== 'reaction');
}

export function normalized(text: string): string {
  return normalizeWhitespace(text);
}

/** Notes of one kind from the trace, as field records. */
export function notes(events: readonly TraceEvent[], kind: string): TraceEvent['fields'][] {
  const name = `model.${kind}`;
  return events.filter((event) => event.kind === name).map((event) => event.fields);
}

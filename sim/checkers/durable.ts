// The durable state, read as the real systems write it and as a crash of every process at the end would leave it:
// Hermes' state.db (`messages`: id, session_id, role, content, tool_calls in the OpenAI shape, timestamp) and pi's
// JSONL session files (a header line, then `message` entries with id, parentId and an AgentMessage). This is the
// checkers' own reader of those formats; it never looks at a column or field the model added for itself.
import { stateDbPath, transcriptPath } from '../../src/index.ts';
import type { Simulation } from '../kernel/simulation.ts';

/** A row of state.db's `messages` table, as Hermes writes it. */
export interface DbRow {
  id: number;
  sessionId: string;
  role: string;
  content: string;
  /** Ids of the tool calls the row carries (assistant rows). */
  toolCallIds: string[];
}

/** A message entry of a pi JSONL transcript. */
export interface JsonlEntry {
  id: string;
  parentId: string | null;
  /** pi's role (user, assistant, toolResult, ...), or the entry's type for entries that are not messages. */
  role: string;
  /** The text content (a string, or the text blocks joined). */
  text: string;
  toolCallIds: string[];
  /**
   * An OpenClaw delivery mirror: an assistant message marked `provider: "openclaw"`, `model: "delivery-mirror"` (the
   * real markers), a copy of a reply the gateway delivered, written by a second writer. It is not an answer.
   */
  mirror: boolean;
}

/** A JSONL transcript as parsed: its entries in file order, and how many lines did not parse. */
export interface Transcript {
  entries: JsonlEntry[];
  malformedLines: number;
}

/** What survived on the simulated disk: state.db rows and the JSONL transcripts, by session. */
export interface DurableState {
  rows: DbRow[];
  /** By session key; absent when the session has no file. */
  transcripts: Map<string, Transcript>;
}

/** Read the durable state of a simulation (what a crash now would leave, by default). */
export function readDurableState(sim: Simulation, sessions: readonly string[], view: 'synced' | 'current' = 'synced'): DurableState {
  const rows = sim.sqlite.paths().includes(stateDbPath)
    ? sim.sqlite
        .inspect(stateDbPath, 'SELECT id, session_id, role, content, tool_calls FROM messages ORDER BY timestamp, id')
        .map((row) => ({
          id: Number(row.id),
          sessionId: String(row.session_id),
          role: String(row.role),
          content: String(row.content ?? ''),
          toolCallIds: toolCallIdsOf(row.tool_calls),
        }))
    : [];
  return { rows, transcripts: readTranscripts(sim, sessions, view) };
}

/** The sessions' JSONL files as pi would reload them: what is synced (a crash's view) or what is written now. */
export function readTranscripts(sim: Simulation, sessions: readonly string[], view: 'synced' | 'current'): Map<string, Transcript> {
  const transcripts = new Map<string, Transcript>();
  for (const session of sessions) {
    const text = view === 'synced' ? sim.disk.peekSynced(transcriptPath(session)) : sim.disk.peek(transcriptPath(session));
    if (text !== undefined) transcripts.set(session, parsePiTranscript(text));
  }
  return transcripts;
}

/** Hermes' tool_calls column: a JSON list of `{id, type, function: {name, arguments}}`. */
function toolCallIdsOf(value: unknown): string[] {
  if (typeof value !== 'string' || value.length === 0) return [];
  try {
    const calls = JSON.parse(value) as unknown;
    return Array.isArray(calls) ? calls.map((call) => String((call as { id?: unknown }).id)) : [];
  } catch {
    return [];
  }
}

/** pi's JSONL: malformed lines are skipped (as pi's loader skips them) and counted. */
export function parsePiTranscript(text: string): Transcript {
  const entries: JsonlEntry[] = [];
  let malformedLines = 0;
  for (const line of text.split('\n')) {
    if (line.trim().length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      malformedLines++;
      continue;
    }
    const record = value as { type?: unknown; id?: unknown; parentId?: unknown; message?: { role?: unknown; content?: unknown; provider?: unknown; model?: unknown } };
    if (record.type === 'session') continue;
    if (typeof record.type !== 'string' || typeof record.id !== 'string') {
      malformedLines++;
      continue;
    }
    if (record.type !== 'message' || typeof record.message !== 'object' || record.message === null) {
      // Entries of other kinds (model_change, label, ...) are part of the tree: parent links go through them.
      entries.push({ id: record.id, parentId: typeof record.parentId === 'string' ? record.parentId : null, role: record.type, text: '', toolCallIds: [], mirror: false });
      continue;
    }
    const content = record.message.content;
    const blocks: unknown[] = Array.isArray(content) ? content : [];
    entries.push({
      id: record.id,
      parentId: typeof record.parentId === 'string' ? record.parentId : null,
      role: String(record.message.role),
      text: typeof content === 'string' ? content : blocks.map((block) => ((block as { type?: unknown }).type === 'text' ? String((block as { text?: unknown }).text) : '')).join(''),
      toolCallIds: blocks.filter((block) => (block as { type?: unknown }).type === 'toolCall').map((block) => String((block as { id?: unknown }).id)),
      mirror: record.message.role === 'assistant' && record.message.provider === 'openclaw' && record.message.model === 'delivery-mirror',
    });
  }
  return { entries, malformedLines };
}

/** pi's load rule: the leaf is the last entry in file order; the active branch is its path to the root. */
export function activeBranch(entries: readonly JsonlEntry[]): JsonlEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const branch: JsonlEntry[] = [];
  let cursor = entries.at(-1);
  while (cursor !== undefined && branch.length <= entries.length) {
    branch.push(cursor);
    cursor = cursor.parentId === null ? undefined : byId.get(cursor.parentId);
  }
  return branch.reverse();
}

// The durable state, read as the real systems write it and as a crash of every process at the end would leave it:
// Hermes' state.db (`messages`: id, session_id, role, content, tool_calls in the OpenAI shape, timestamp) and pi's
// JSONL session files (a header line, then `message` entries with id, parentId and an AgentMessage). This is the
// checkers' own reader of those formats; it never looks at a column or field the model added for itself.
// A session key's conversation may span several sessions: a rotation (/clear, Hermes' reset_session) ends one
// (`sessions.ended_at`, `end_reason`) and starts the next with `parent_session_id` naming it. The key's first session
// has the key as its id; its family is that session and its successors, in chain order, each with its state.db rows
// and its own JSONL file (`<sessionId>.jsonl`).
// Where the files are comes from the description of the system under test (system.ts), never from src/.
import type { Simulation } from '../kernel/simulation.ts';
import { agentDatabaseImage, type AgentDbTranscript, agentDbTranscripts, readAgentDbRows } from './agent-db.ts';
import { referenceSystem, type SystemDescription } from './system.ts';

/** A row of state.db's `messages` table, as Hermes writes it. */
export interface DbRow {
  id: number;
  /** The session key whose family holds the row's session ('' when no family does). */
  sessionKey: string;
  sessionId: string;
  timestamp: number;
  role: string;
  content: string;
  /** Ids of the tool calls the row carries (assistant rows). */
  toolCallIds: string[];
  /** The tool call a tool row is the result of (Hermes' `tool_call_id`), else null. */
  toolCallId: string | null;
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
  /** The tool call a `toolResult` message answers (pi's `toolCallId`), else null. */
  toolCallId: string | null;
  /**
   * An OpenClaw delivery mirror: an assistant message marked `provider: "openclaw"`, `model: "delivery-mirror"` (the
   * real markers), a copy of a reply the gateway delivered, written by a second writer. It is not an answer.
   */
  mirror: boolean;
  /** A `compaction` entry's firstKeptEntryId (pi: where the context it builds resumes verbatim). */
  firstKeptEntryId?: string;
}

/** A JSONL transcript as parsed: its entries in file order, and how many lines did not parse. */
export interface Transcript {
  entries: JsonlEntry[];
  malformedLines: number;
  /** The session whose file it is (`<sessionId>.jsonl`), when read from a family. */
  sessionId?: string;
}

/** A state.db session of a key's family: when it started and, once a rotation ended it, when. */
export interface SessionSpan {
  sessionId: string;
  startedAtMs: number | null;
  endedAtMs: number | null;
  endReason: string | null;
}

/** What survived on the simulated disk: state.db rows and the JSONL transcripts, by session key. */
export interface DurableState {
  rows: DbRow[];
  /** By session key: the key's state.db sessions, first to current (one, the key itself, before any rotation). */
  families: Map<string, SessionSpan[]>;
  /** By session key: the JSONL file of each session of the family that has one, in family order. */
  files: Map<string, Transcript[]>;
  /** By session key: the file of its current (last) session with a file; absent when none has one. */
  transcripts: Map<string, Transcript>;
  /**
   * A SQLite-era release's agent DB, when the system keeps one (SystemDescription.agentDbPath): each session's
   * transcript events, with the key its session window names. Read as committed (every commit in the page cache, the
   * WAL's applied: what a kill of every process would leave, SQLite keeping each commit across a process kill), not as
   * synced: under `synchronous = NORMAL` a commit is not synced, and a power loss may take it (docs/MODEL.md).
   */
  agentDb?: AgentDbTranscript[];
  /**
   * Hermes' delivery ledger (state.db `delivery_obligations`, gateway/delivery_ledger.py), when the system keeps one:
   * each reply it owed a chat, with its state (`pending`, `attempting`, `delivered`, `failed`, `abandoned`) and the
   * platform's error. A give-up the system recorded (issue 48 item 1). Absent: no such table.
   */
  deliveryObligations?: DeliveryObligation[];
}

/** A row of Hermes' `delivery_obligations` (the columns the checkers read). */
export interface DeliveryObligation {
  sessionKey: string;
  content: string;
  state: string;
  lastError: string | null;
  /** updated_at, Hermes' seconds, as simulated milliseconds. */
  updatedAtMs: number;
}

/**
 * Read the durable state of a simulation (what a crash now would leave, by default), at the locations the system's
 * description gives (the documented model's when none is handed in).
 */
export function readDurableState(sim: Simulation, sessions: readonly string[], view: 'synced' | 'current' = 'synced', system: SystemDescription = referenceSystem): DurableState {
  const { stateDbPath } = system;
  const hasDb = sim.sqlite.paths().includes(stateDbPath);
  const families = readFamilies(sim, sessions, hasDb, system);
  const keyOf = new Map([...families].flatMap(([key, family]) => family.map((span) => [span.sessionId, key] as const)));
  const rows = hasDb
    ? sim.sqlite
        .inspect(stateDbPath, 'SELECT id, session_id, role, content, tool_calls, tool_call_id, timestamp FROM messages ORDER BY timestamp, id')
        .map((row) => ({
          id: Number(row.id),
          sessionKey: keyOf.get(String(row.session_id)) ?? '',
          sessionId: String(row.session_id),
          timestamp: Number(row.timestamp),
          role: String(row.role),
          content: String(row.content ?? ''),
          toolCallIds: toolCallIdsOf(row.tool_calls),
          toolCallId: row.tool_call_id === null || row.tool_call_id === undefined ? null : String(row.tool_call_id),
        }))
    : [];
  const files = readFamilyFiles(sim, families, view, system);
  const transcripts = new Map([...files].flatMap(([key, list]) => (list.length === 0 ? [] : [[key, list.at(-1) as Transcript] as const])));
  const obligations = hasDb ? readDeliveryObligations(sim, stateDbPath) : undefined;
  const durable: DurableState = { rows, families, files, transcripts, ...(obligations === undefined ? {} : { deliveryObligations: obligations }) };
  if (system.agentDbPath === undefined) return durable;
  return { ...durable, agentDb: readAgentDb(sim, system.agentDbPath) };
}

/** Hermes' delivery ledger in state.db, if the table exists (a system that never gave up a reply may have none). */
function readDeliveryObligations(sim: Simulation, stateDbPath: string): DeliveryObligation[] | undefined {
  const table = sim.sqlite.inspect(stateDbPath, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'delivery_obligations'");
  if (table.length === 0) return undefined;
  return sim.sqlite.inspect(stateDbPath, 'SELECT session_key, content, state, last_error, updated_at FROM delivery_obligations ORDER BY updated_at, obligation_id').map((row) => ({
    sessionKey: String(row.session_key),
    content: String(row.content ?? ''),
    state: String(row.state),
    lastError: row.last_error === null || row.last_error === undefined ? null : String(row.last_error),
    updatedAtMs: Math.round(Number(row.updated_at) * 1_000),
  }));
}

/** The transcripts of the agent DB at `path` as committed (its -wal's valid commits applied); none when it has no file. */
export function readAgentDb(sim: Simulation, path: string): AgentDbTranscript[] {
  const image = agentDatabaseImage(sim.disk.peekBytes(path), sim.disk.peekBytes(`${path}-wal`));
  return image === undefined ? [] : agentDbTranscripts(readAgentDbRows(image));
}

/** The agent DB's transcripts of a session key (every session window the key has had), in session id order. */
export function agentDbTranscriptsOf(durable: DurableState, sessionKey: string): AgentDbTranscript[] {
  return (durable.agentDb ?? []).filter((transcript) => transcript.sessionKey === sessionKey);
}

/**
 * Each key's family from state.db's `sessions` (Hermes' parent_session_id chain), from the key's first session on; a
 * key with no sessions row yet (or no state.db) has its first session alone. A session with two successors (a
 * rotation done twice) follows the one that started first; the other is nobody's, so its rows count for no key.
 */
export function readFamilies(
  sim: Simulation,
  sessions: readonly string[],
  hasDb: boolean | undefined = undefined,
  system: SystemDescription = referenceSystem,
): Map<string, SessionSpan[]> {
  const { stateDbPath } = system;
  const spans = (hasDb ?? sim.sqlite.paths().includes(stateDbPath))
    ? sim.sqlite.inspect(stateDbPath, 'SELECT id, parent_session_id, started_at, ended_at, end_reason FROM sessions ORDER BY started_at, id').map((row) => ({
        span: {
          sessionId: String(row.id),
          startedAtMs: row.started_at === null ? null : Number(row.started_at),
          endedAtMs: row.ended_at === null || row.ended_at === undefined ? null : Number(row.ended_at),
          endReason: row.end_reason === null || row.end_reason === undefined ? null : String(row.end_reason),
        },
        parent: row.parent_session_id === null || row.parent_session_id === undefined ? null : String(row.parent_session_id),
      }))
    : [];
  const families = new Map<string, SessionSpan[]>();
  for (const key of sessions) {
    const family = [spans.find((candidate) => candidate.span.sessionId === key)?.span ?? { sessionId: key, startedAtMs: null, endedAtMs: null, endReason: null }];
    for (let next = spans.find((candidate) => candidate.parent === key); next !== undefined && family.length <= spans.length; ) {
      family.push(next.span);
      const id = next.span.sessionId;
      next = spans.find((candidate) => candidate.parent === id);
    }
    families.set(key, family);
  }
  return families;
}

/** The families' JSONL files as pi would reload them: what is synced (a crash's view) or what is written now. */
export function readFamilyFiles(
  sim: Simulation,
  families: ReadonlyMap<string, readonly SessionSpan[]>,
  view: 'synced' | 'current',
  system: SystemDescription = referenceSystem,
): Map<string, Transcript[]> {
  const { transcriptPath } = system;
  const files = new Map<string, Transcript[]>();
  for (const [key, family] of families) {
    const list: Transcript[] = [];
    for (const { sessionId } of family) {
      const text = view === 'synced' ? sim.disk.peekSynced(transcriptPath(sessionId)) : sim.disk.peek(transcriptPath(sessionId));
      if (text !== undefined) list.push({ ...parsePiTranscript(text), sessionId });
    }
    files.set(key, list);
  }
  return files;
}

/** The rows of a key's family (every session it has had), in state.db's order. */
export function familyRows(durable: DurableState, sessionKey: string): DbRow[] {
  return durable.rows.filter((row) => row.sessionKey === sessionKey);
}

/** The active branches of a key's JSONL files, one after the other in family order (each file as pi reloads it). */
export function familyBranch(durable: DurableState, sessionKey: string): JsonlEntry[] {
  return (durable.files.get(sessionKey) ?? []).flatMap((transcript) => activeBranch(transcript.entries));
}

/** Every entry of a key's JSONL files, on a branch or not. */
export function familyEntries(durable: DurableState, sessionKey: string): JsonlEntry[] {
  return (durable.files.get(sessionKey) ?? []).flatMap((transcript) => transcript.entries);
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

/** A parsed JSONL line: an entry, the session header (skipped) or a malformed line (counted). */
type ParsedLine = JsonlEntry | 'session' | 'malformed';
/**
 * Lines parsed before, by their text: the checkers reread every transcript after each turn, and a file mostly grows
 * by appends, so most lines were parsed already. Parsing is a pure function of the line; entries are frozen, so a
 * shared one cannot be changed by a caller. Emptied when it reaches parsedLinesMax.
 */
const parsedLines = new Map<string, ParsedLine>();
/** A run's transcripts hold a few hundred lines; across runs the texts differ, so the cache stays small. */
const parsedLinesMax = 4_096;

/**
 * Texts parsed before, newest first: at each check most files are as the last check read them, and one that changed
 * mostly grew by appends, so only the lines after the text it grew from are split and looked up.
 */
const parsedTexts: { text: string; transcript: Transcript }[] = [];
/** A check reads each session file twice (as written and as synced); a run has a few sessions of a few files each. */
const parsedTextsMax = 64;

/** pi's JSONL: malformed lines are skipped (as pi's loader skips them) and counted. */
export function parsePiTranscript(text: string): Transcript {
  let from: { text: string; transcript: Transcript } | undefined;
  for (const parsed of parsedTexts) {
    if (parsed.text === text) return { entries: parsed.transcript.entries.slice(), malformedLines: parsed.transcript.malformedLines };
    const known = parsed.text;
    // slice, not startsWith: an appended-to text is pieces, which startsWith walks at every call; a slice flattens it once.
    if (known.length < text.length && (from === undefined || known.length > from.text.length) && known.endsWith('\n') && text.slice(0, known.length) === known) from = parsed;
  }
  // The earlier text's last line is the empty one after its final newline (no entry): the rest's first line starts there.
  const entries: JsonlEntry[] = from === undefined ? [] : from.transcript.entries.slice();
  let malformedLines = from === undefined ? 0 : from.transcript.malformedLines;
  for (const line of (from === undefined ? text : text.slice(from.text.length)).split('\n')) {
    let parsed = parsedLines.get(line);
    if (parsed === undefined) {
      if (parsedLines.size >= parsedLinesMax) parsedLines.clear();
      parsed = parseLine(line);
      parsedLines.set(line, parsed);
    }
    if (parsed === 'malformed') malformedLines++;
    else if (parsed !== 'session') entries.push(parsed);
  }
  parsedTexts.unshift({ text, transcript: { entries: entries.slice(), malformedLines } });
  if (parsedTexts.length > parsedTextsMax) parsedTexts.pop();
  return { entries, malformedLines };
}

function parseLine(line: string): ParsedLine {
  if (line.trim().length === 0) return 'session';
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'malformed';
  }
  const record = value as { type?: unknown; id?: unknown; parentId?: unknown; firstKeptEntryId?: unknown; message?: { role?: unknown; content?: unknown; provider?: unknown; model?: unknown; toolCallId?: unknown } };
  if (record.type === 'session') return 'session';
  if (typeof record.type !== 'string' || typeof record.id !== 'string') return 'malformed';
  if (record.type !== 'message' || typeof record.message !== 'object' || record.message === null) {
    // Entries of other kinds (model_change, label, ...) are part of the tree: parent links go through them.
    const kept = record.type === 'compaction' ? { firstKeptEntryId: String(record.firstKeptEntryId ?? '') } : {};
    return frozen({ id: record.id, parentId: typeof record.parentId === 'string' ? record.parentId : null, role: record.type, text: '', toolCallIds: [], toolCallId: null, mirror: false, ...kept });
  }
  const content = record.message.content;
  const blocks: unknown[] = Array.isArray(content) ? content : [];
  return frozen({
    id: record.id,
    parentId: typeof record.parentId === 'string' ? record.parentId : null,
    role: String(record.message.role),
    text: typeof content === 'string' ? content : blocks.map((block) => ((block as { type?: unknown }).type === 'text' ? String((block as { text?: unknown }).text) : '')).join(''),
    toolCallIds: blocks.filter((block) => (block as { type?: unknown }).type === 'toolCall').map((block) => String((block as { id?: unknown }).id)),
    toolCallId: record.message.role === 'toolResult' && typeof record.message.toolCallId === 'string' ? record.message.toolCallId : null,
    mirror: record.message.role === 'assistant' && record.message.provider === 'openclaw' && record.message.model === 'delivery-mirror',
  });
}

function frozen(entry: JsonlEntry): JsonlEntry {
  Object.freeze(entry.toolCallIds);
  return Object.freeze(entry);
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

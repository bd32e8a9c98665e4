// The checkers' own reader of a SQLite-era OpenClaw release's agent database (issue 45 item 2):
// `<stateDir>/agents/<agentId>/agent/openclaw-agent.sqlite`, which the release keeps in WAL mode, so what it holds is
// the main file with the committed frames of its `-wal` applied. Written from SQLite's file format
// (sqlite.org/fileformat2.html, "The WAL File Format"), never from src/ or the release: the WAL header (magic
// 0x377f0682 or 0x377f0683, whose low bit says the checksums' words are big-endian, version 3007000, page size, salts,
// a checksum of its first 24 bytes), then frames (page number, the database's size in pages after a commit frame or 0,
// the header's salts, a running checksum of each frame header's first 8 bytes and its page). A frame counts only when
// its salts match and its checksum continues the chain, and only up to the last valid commit frame: what SQLite's
// recovery would keep. The image is a standalone file (its header's write and read versions set to 1, the rollback
// journal) that any SQLite tool opens without the -wal; `repro --artifacts` writes it beside the other .db files.
//
// The rows are read with SQLite's own WebAssembly build (@sqlite.org/sqlite-wasm, an engine instance of the reader's
// own, loaded once with loadAgentDbReader): the sessions (`session_windows`: session id and key) and the transcript
// events (`transcript_events`: session id, sequence, the event's JSON when stored uncompressed), as the agent schema
// names them (2026.9.6's OPENCLAW_AGENT_SCHEMA_SQL, read, not imported).
import type sqlite3InitModule from '@sqlite.org/sqlite-wasm';
import { decompress as zstdDecompress } from 'fzstd';

const walHeaderBytes = 32;
const frameHeaderBytes = 24;
const walMagicLittle = 0x377f0682;
const walMagicBig = 0x377f0683;

/** The running WAL checksum of `bytes` (a multiple of 8 long), continued from `s`. */
function walChecksum(bytes: Uint8Array, bigEndian: boolean, s: [number, number]): [number, number] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let [s0, s1] = s;
  for (let at = 0; at + 8 <= bytes.length; at += 8) {
    s0 = (s0 + view.getUint32(at, !bigEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(at + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

/** What a WAL adds to its database: the pages of its valid frames up to the last commit, and the size after it. */
export interface WalContents {
  pageSize: number;
  /** The database's size in pages after the last valid commit (0 when no commit is valid). */
  pagesAfterCommit: number;
  /** The page images, by page number (1-based), the last valid committed write of each. */
  pages: Map<number, Uint8Array>;
  /** Frames counted, and frames past the last valid commit (never applied). */
  committedFrames: number;
  ignoredFrames: number;
}

/** The committed contents of a WAL file, or undefined when it has no valid header (an empty or torn file). */
export function readWal(wal: Uint8Array): WalContents | undefined {
  if (wal.length < walHeaderBytes) return undefined;
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const magic = view.getUint32(0);
  if (magic !== walMagicLittle && magic !== walMagicBig) return undefined;
  const bigEndian = magic === walMagicBig;
  const pageSize = view.getUint32(8);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return undefined;
  const salt1 = view.getUint32(16);
  const salt2 = view.getUint32(20);
  let sum = walChecksum(wal.subarray(0, 24), bigEndian, [0, 0]);
  if (sum[0] !== view.getUint32(24) || sum[1] !== view.getUint32(28)) return undefined;
  const pending = new Map<number, Uint8Array>();
  const pages = new Map<number, Uint8Array>();
  let pagesAfterCommit = 0;
  let committedFrames = 0;
  let frames = 0;
  let since = 0;
  for (let at = walHeaderBytes; at + frameHeaderBytes + pageSize <= wal.length; at += frameHeaderBytes + pageSize) {
    if (view.getUint32(at + 8) !== salt1 || view.getUint32(at + 12) !== salt2) break;
    sum = walChecksum(wal.subarray(at, at + 8), bigEndian, sum);
    const page = wal.subarray(at + frameHeaderBytes, at + frameHeaderBytes + pageSize);
    sum = walChecksum(page, bigEndian, sum);
    if (sum[0] !== view.getUint32(at + 16) || sum[1] !== view.getUint32(at + 20)) break;
    frames += 1;
    since += 1;
    pending.set(view.getUint32(at), page);
    const commitSize = view.getUint32(at + 4);
    if (commitSize > 0) {
      for (const [number, image] of pending) pages.set(number, image);
      pending.clear();
      pagesAfterCommit = commitSize;
      committedFrames += since;
      since = 0;
    }
  }
  return { pageSize, pagesAfterCommit, pages, committedFrames, ignoredFrames: frames - committedFrames };
}

/**
 * The database a WAL-mode SQLite file holds: `main` with the committed frames of `wal` applied (cut or grown to the
 * last commit's size), its header's file format versions set to 1 (a standalone file, no -wal needed). Undefined when
 * neither file has a page.
 */
export function agentDatabaseImage(main: Uint8Array | undefined, wal: Uint8Array | undefined): Uint8Array | undefined {
  const contents = wal === undefined ? undefined : readWal(wal);
  const pageSize = contents?.pageSize ?? (main !== undefined && main.length >= 100 ? pageSizeOf(main) : 0);
  if (pageSize === 0) return main !== undefined && main.length > 0 ? main.slice() : undefined;
  const basePages = Math.floor((main?.length ?? 0) / pageSize);
  const pagesTotal = contents !== undefined && contents.pagesAfterCommit > 0 ? contents.pagesAfterCommit : basePages;
  if (pagesTotal === 0) return undefined;
  const image = new Uint8Array(pagesTotal * pageSize);
  if (main !== undefined) image.set(main.subarray(0, Math.min(main.length, image.length)));
  for (const [number, page] of contents?.pages ?? []) if (number <= pagesTotal) image.set(page, (number - 1) * pageSize);
  // Bytes 18 and 19: the write and read versions, 2 for WAL; 1 makes the image open alone, in rollback mode.
  image[18] = 1;
  image[19] = 1;
  return image;
}

/** The page size a database header names (bytes 16-17, big-endian; 1 means 65536). */
function pageSizeOf(main: Uint8Array): number {
  const size = (main[16] ?? 0) * 256 + (main[17] ?? 0);
  return size === 1 ? 65536 : size;
}

/** A session of the agent DB (`session_windows`). */
export interface AgentDbSession {
  sessionId: string;
  sessionKey: string;
}

/** A transcript event of the agent DB (`transcript_events`); `json` is absent when the event is stored compressed. */
export interface AgentDbTranscriptEvent {
  sessionId: string;
  seq: number;
  json?: string;
}

export interface AgentDbRows {
  sessions: AgentDbSession[];
  transcript: AgentDbTranscriptEvent[];
}

type Sqlite3 = Awaited<ReturnType<typeof sqlite3InitModule>>;
let engine: Sqlite3 | undefined;
let loading: Promise<void> | undefined;

/** Load the reader's engine (once per process); readAgentDbRows needs it. */
export function loadAgentDbReader(): Promise<void> {
  // Imported only here (a run that reads no agent DB never loads it). The module takes Emscripten's settings (its
  // types say none): its console output is dropped.
  loading ??= import('@sqlite.org/sqlite-wasm').then(async (module) => {
    const init = module.default as unknown as (settings: object) => ReturnType<typeof sqlite3InitModule>;
    engine = await init({ print: () => undefined, printErr: () => undefined });
  });
  return loading;
}

/** The sessions and transcript events of an agent DB image (agentDatabaseImage), in key and sequence order. */
export function readAgentDbRows(image: Uint8Array): AgentDbRows {
  const sqlite3 = engine;
  if (sqlite3 === undefined) throw new Error('the agent DB reader is not loaded (await loadAgentDbReader())');
  const db = new sqlite3.oo1.DB(':memory:');
  try {
    const copy = new Uint8Array(image);
    const pointer = sqlite3.wasm.allocFromTypedArray(copy);
    const { capi } = sqlite3;
    const rc = capi.sqlite3_deserialize(db.pointer as number, 'main', pointer, copy.length, copy.length, capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_READONLY);
    if (rc !== 0) throw new Error(`the agent DB image does not open (SQLite code ${rc})`);
    const tables = new Set(db.selectValues("SELECT name FROM sqlite_schema WHERE type = 'table'").map(String));
    const sessions = tables.has('session_windows')
      ? db.selectObjects('SELECT session_id, session_key FROM session_windows ORDER BY session_key, session_id').map((row) => ({ sessionId: String(row.session_id), sessionKey: String(row.session_key) }))
      : [];
    // 2026.9.6 stores an event of 1 KiB or more zstd-compressed when that saves a tenth (event_zstd, event_json null):
    // `prepareTranscriptPayload`, dist/transcript-payload-*.mjs, with node:zlib's zstd where the Node has it.
    const compressed = tables.has('transcript_events') && db.selectValues("SELECT name FROM pragma_table_info('transcript_events')").map(String).includes('event_zstd');
    const transcript = tables.has('transcript_events')
      ? db.selectObjects(`SELECT session_id, seq, event_json${compressed ? ', event_zstd' : ''} FROM transcript_events ORDER BY session_id, seq`).map((row) => {
          const json = typeof row.event_json === 'string' ? row.event_json : row.event_zstd instanceof Uint8Array ? decompressedEvent(row.event_zstd, String(row.session_id), Number(row.seq)) : undefined;
          return { sessionId: String(row.session_id), seq: Number(row.seq), ...(json === undefined ? {} : { json }) };
        })
      : [];
    return { sessions, transcript };
  } finally {
    db.close();
  }
}

/** A transcript event stored zstd-compressed, as its JSON text (fzstd: a decoder of its own, on any Node). */
function decompressedEvent(bytes: Uint8Array, sessionId: string, seq: number): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(zstdDecompress(bytes));
  } catch (error) {
    throw new Error(`the agent DB's transcript event ${sessionId}:${seq} is stored zstd-compressed and does not decompress to UTF-8 text: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * A transcript event of the agent DB as the checkers judge it, read from its JSON (the release's envelope: `type`, `id`,
 * `parentId`, and for a message its AgentMessage; read in 2026.9.6's rows, the format pi's JSONL lines have): the role
 * (or the event's type when it is no message), the text blocks joined, the delivery mirror's markers (`provider:
 * "openclaw"`, `model: "delivery-mirror"`) and its idempotency key.
 */
export interface AgentDbEvent {
  sessionId: string;
  seq: number;
  id: string | null;
  parentId: string | null;
  type: string;
  role: string;
  text: string;
  mirror: boolean;
  idempotencyKey?: string;
}

/** The text of a message's content (a string, or its text blocks joined), as durable.ts reads pi's. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text' && typeof (block as { text?: unknown }).text === 'string' ? (block as { text: string }).text : ''))
    .join('');
}

/** An event's JSON as the checkers judge it; undefined when it is stored compressed or does not parse as an object. */
export function parseAgentDbEvent(event: AgentDbTranscriptEvent): AgentDbEvent | undefined {
  if (event.json === undefined) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(event.json);
  } catch {
    return undefined;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const fields = record as { type?: unknown; id?: unknown; parentId?: unknown; message?: unknown };
  const type = typeof fields.type === 'string' ? fields.type : '';
  const message = typeof fields.message === 'object' && fields.message !== null ? (fields.message as Record<string, unknown>) : undefined;
  const role = typeof message?.role === 'string' ? message.role : type;
  return {
    sessionId: event.sessionId,
    seq: event.seq,
    id: typeof fields.id === 'string' ? fields.id : null,
    parentId: typeof fields.parentId === 'string' ? fields.parentId : null,
    type,
    role,
    text: message === undefined ? '' : contentText(message.content),
    mirror: role === 'assistant' && message?.provider === 'openclaw' && message.model === 'delivery-mirror',
    ...(typeof message?.idempotencyKey === 'string' ? { idempotencyKey: message.idempotencyKey } : {}),
  };
}

/** One session's transcript in the agent DB: its events in sequence order, and how many the checkers cannot read. */
export interface AgentDbTranscript {
  sessionId: string;
  /** The session key its `session_windows` row names ('' when none does). */
  sessionKey: string;
  events: AgentDbEvent[];
  /** Events stored compressed or whose JSON does not parse (not judged). */
  unreadable: number;
}

/** The transcripts of an agent DB's rows, one per session that has events or a session window, in key and id order. */
export function agentDbTranscripts(rows: AgentDbRows): AgentDbTranscript[] {
  const keyOf = new Map(rows.sessions.map((session) => [session.sessionId, session.sessionKey]));
  const ids = [...new Set([...rows.sessions.map((session) => session.sessionId), ...rows.transcript.map((event) => event.sessionId)])];
  return ids
    .map((sessionId) => {
      const raw = rows.transcript.filter((event) => event.sessionId === sessionId);
      const events = raw.map(parseAgentDbEvent).filter((event): event is AgentDbEvent => event !== undefined);
      return { sessionId, sessionKey: keyOf.get(sessionId) ?? '', events, unreadable: raw.length - events.length };
    })
    .sort((a, b) => (a.sessionKey === b.sessionKey ? (a.sessionId < b.sessionId ? -1 : 1) : a.sessionKey < b.sessionKey ? -1 : 1));
}

/**
 * What is wrong with one transcript's tree, as transcript-consistent judges pi's JSONL (the release keeps the same
 * tree: each event names its parent, the active branch runs from the leaf, the last event with an id in sequence order):
 * two events with one id, a parent that is no earlier event of the session, or a message event off the active branch
 * (a durable second copy or a lost branch). Empty when the tree is sound.
 */
export function agentDbTranscriptProblems(transcript: AgentDbTranscript): string[] {
  const problems: string[] = [];
  const seqOf = new Map<string, number>();
  for (const event of transcript.events) {
    if (event.id === null) continue;
    if (seqOf.has(event.id)) problems.push(`two events have the id ${event.id} (seq ${seqOf.get(event.id)} and ${event.seq})`);
    else seqOf.set(event.id, event.seq);
  }
  for (const event of transcript.events) {
    if (event.parentId === null) continue;
    const parentSeq = seqOf.get(event.parentId);
    if (parentSeq === undefined || parentSeq >= event.seq) problems.push(`event ${event.id ?? `at seq ${event.seq}`} names a parent ${event.parentId} that is no earlier event of the session`);
  }
  const byId = new Map(transcript.events.flatMap((event) => (event.id === null ? [] : [[event.id, event] as const])));
  const leaf = [...transcript.events].reverse().find((event) => event.id !== null && event.type !== 'session');
  const onBranch = new Set<string>();
  for (let at = leaf; at !== undefined && at.id !== null && !onBranch.has(at.id); at = at.parentId === null ? undefined : byId.get(at.parentId)) onBranch.add(at.id);
  const off = transcript.events.filter((event) => event.type === 'message' && (event.id === null || !onBranch.has(event.id)));
  if (off.length > 0) problems.push(`${off.length} message events are off the active branch (${off.map((event) => `${event.role} ${event.id ?? '(no id)'} "${event.text.slice(0, 40)}"`).join(', ')})`);
  return problems;
}

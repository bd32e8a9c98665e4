// The pi SessionManager and its JSONL transcript (@mariozechner/pi-coding-agent 0.73.1, `dist/core/session-manager.js`).
// Line 1 is a header `{"type":"session","version":3,"id","timestamp","cwd"}`; then one entry per line, `{type, id,
// parentId, timestamp, message, turnId}` with an 8-character id. The model, as pi:
// - append sets parentId to the current leaf and advances the leaf;
// - nothing is written while no assistant message exists (an append then marks the file unflushed); the first
//   append that finds one appends every in-memory line, header included, and each later entry is appended alone;
// - load skips blank and malformed lines, requires the first line that parses to be a header, and sets the leaf to
//   the last entry in file order, so an in-memory branch that was never written is undone by a reload; a loaded file
//   counts as flushed, assistant message or not, which is pi's load-then-append hazard: the first non-assistant
//   append unmarks it and the next assistant message appends the whole file again (two headers, repeated entries);
// - opening an empty file, or one whose first line that parses is not a header, truncates it in place to a fresh
//   header line (the entries are gone, with no backup);
// - a header line after the first, and JSON lines that are no entry, stay in the file (written back on a rewrite)
//   and out of the tree;
// - branch(id) only moves the leaf; entries are never edited in place;
// - rewriteInPlace() is pi's rewrite hook (`_rewriteFile`): every line written over the file, no backup, no fsync;
//   rewriteFile() replaces the file as the repair step does (src/session-file-repair.ts); neither changes whether
//   the file counts as flushed.
// Unlike pi, the model fsyncs every write it makes (docs/MODEL.md, "The model's SessionManager and the real one").
import { assert } from './assert.ts';
import { blank, malformed, readLines } from './line-memo.ts';
import { fromPiMessage, isSessionHeader, isoAt, simMsOf, toPiMessage, type TranscriptMessage } from './pi-format.ts';
import type { Disk } from './ports.ts';
import { replaceSessionFile } from './session-file-replace.ts';
import { shortId } from './text.ts';

export type { Role, TranscriptMessage } from './pi-format.ts';

export interface SessionEntry {
  type: 'message';
  id: string;
  parentId: string | null;
  timestamp: number;
  message: TranscriptMessage;
  /** The model's own field (the turn the entry belongs to), for its resume logic; '' in a file pi wrote. */
  turnId: string;
  /** The line as loaded, written back verbatim on a rewrite (pi's own fields, and entries the model skips). */
  raw?: Record<string, unknown>;
  /** A `compaction` entry's fields (its message is role 'other'; src/compaction.ts). */
  compaction?: CompactionFields;
}

/** What a compaction entry holds (pi's CompactionEntry, without its optional details and fromHook). */
export interface CompactionFields {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
}

interface SessionHeader {
  type: 'session';
  id: string;
  timestamp: number;
  cwd: string;
  /** The header as loaded, written back verbatim. */
  raw?: Record<string, unknown>;
}

/** A line that parses but is not in the tree (a header after the first line, JSON that is no entry): kept as read. */
interface OpaqueLine {
  type: 'opaque';
  raw: unknown;
}

type FileLine = SessionHeader | SessionEntry | OpaqueLine;

export interface LoadReport {
  malformedLines: number;
  /** Nothing parsed, or the first line that parsed was no header: pi truncated the file to a fresh header. */
  truncated: boolean;
}

export class SessionManager {
  /** Every line of the file, in order, header first (pi's fileEntries). */
  private fileLines: FileLine[] = [];
  /** The tree's entries in file order. */
  private entries: SessionEntry[] = [];
  private byId = new Map<string, SessionEntry>();
  private leafId: string | null = null;
  private flushed = false;
  loadReport: LoadReport = { malformedLines: 0, truncated: false };

  private constructor(
    private readonly disk: Disk,
    readonly path: string,
    private readonly draw: (min: number, max: number) => number,
    private readonly nowMs: () => number,
    private readonly pid: number,
  ) {}

  static async open(
    disk: Disk,
    path: string,
    draw: (min: number, max: number) => number,
    nowMs: () => number,
    pid: number,
  ): Promise<SessionManager> {
    const manager = new SessionManager(disk, path, draw, nowMs, pid);
    await manager.load();
    return manager;
  }

  private async load(): Promise<void> {
    const text = await this.disk.read(this.path);
    if (text === undefined) {
      this.fileLines = [this.freshHeader()];
      return;
    }
    const { records, malformedLines } = parseRecords(text);
    const [first, ...rest] = records;
    this.loadReport = { malformedLines, truncated: !isSessionHeader(first) };
    // A file that loads counts as flushed whether or not it holds an assistant message (pi's setSessionFile).
    this.flushed = true;
    if (!isSessionHeader(first)) {
      // pi: an empty or headerless file is truncated in place to a fresh header; what it held is gone.
      this.fileLines = [this.freshHeader()];
      await this.disk.write(this.path, this.serialise());
      await this.disk.fsync(this.path);
      return;
    }
    this.fileLines = [headerOf(first), ...rest.map(lineOf)];
    for (const line of this.fileLines) {
      if (line.type !== 'message') continue;
      this.entries.push(line);
      this.byId.set(line.id, line);
    }
    this.leafId = this.entries.at(-1)?.id ?? null;
    assert(this.leafId === null || this.byId.has(this.leafId), `the loaded leaf of ${this.path} is an entry`);
    assert(this.entries.length < this.fileLines.length, `the entries of ${this.path} are lines after its header`);
  }

  private freshHeader(): SessionHeader {
    const hex = () => shortId(this.draw);
    const uuid = `${hex()}-${hex().slice(0, 4)}-7${hex().slice(0, 3)}-8${hex().slice(0, 3)}-${hex()}${hex().slice(0, 4)}`;
    assert(uuid.length === 36, `a session id is a uuid, not ${uuid}`);
    return { type: 'session', id: uuid, timestamp: this.nowMs(), cwd: '/work' };
  }

  get leaf(): SessionEntry | undefined {
    assert(this.leafId === null || this.byId.has(this.leafId), `the leaf ${this.leafId} of ${this.path} is an entry`);
    return this.leafId === null ? undefined : this.byId.get(this.leafId);
  }

  allEntries(): readonly SessionEntry[] {
    return this.entries;
  }

  /** Root-to-leaf path through parent links. */
  activeBranch(): SessionEntry[] {
    const branch: SessionEntry[] = [];
    let cursor = this.leaf;
    let guard = 0;
    while (cursor !== undefined) {
      branch.push(cursor);
      assert(++guard <= this.entries.length, `cycle in the entry tree of ${this.path}`);
      cursor = cursor.parentId === null ? undefined : this.byId.get(cursor.parentId);
    }
    return branch.reverse();
  }

  branch(id: string): void {
    assert(this.byId.has(id), `branch to unknown entry ${id}`);
    this.leafId = id;
  }

  resetLeaf(): void {
    this.leafId = null;
  }

  /**
   * Remove an entry from the in-memory lines (the fixed orphan repair); the caller rewrites the file. A removed leaf
   * hands the leaf to its parent, or resets it when the parent is not there (OpenClaw's repair branches the same way).
   */
  removeEntry(id: string): void {
    const removed = this.byId.get(id);
    assert(removed !== undefined, `remove of unknown entry ${id}`);
    this.fileLines = this.fileLines.filter((line) => line !== removed);
    this.entries = this.entries.filter((entry) => entry !== removed);
    this.byId.delete(id);
    if (this.leafId !== id) return;
    this.leafId = removed.parentId !== null && this.byId.has(removed.parentId) ? removed.parentId : null;
    assert(!this.byId.has(id) && !this.entries.includes(removed), `the removed entry ${id} is gone from ${this.path}`);
  }

  /** OpenClaw's prepareSessionManagerForRun reset (it empties the file itself): the header alone, unflushed. */
  resetToHeader(): void {
    const header = this.fileLines[0];
    assert(header?.type === 'session', `no header for ${this.path}`);
    this.fileLines = [header];
    this.entries = [];
    this.byId.clear();
    this.leafId = null;
    this.flushed = false;
  }

  async appendMessage(message: TranscriptMessage, turnId: string): Promise<SessionEntry> {
    const entry: SessionEntry = {
      type: 'message',
      id: this.newId(),
      parentId: this.leafId,
      timestamp: this.nowMs(),
      message,
      turnId,
    };
    return this.appendToLeaf(entry);
  }

  /** pi's appendCompaction: a `compaction` entry as a child of the leaf, which it becomes (persisted as any entry). */
  async appendCompaction(fields: CompactionFields): Promise<SessionEntry> {
    const entry: SessionEntry = { type: 'message', id: this.newId(), parentId: this.leafId, timestamp: this.nowMs(), message: { role: 'other', content: '' }, turnId: '', compaction: { ...fields } };
    const raw = { type: 'compaction', id: entry.id, parentId: entry.parentId, timestamp: isoAt(entry.timestamp), ...fields };
    Object.defineProperty(entry, 'raw', { value: raw, enumerable: false });
    return this.appendToLeaf(entry);
  }

  /** A new entry, a child of the leaf: it becomes the leaf and is persisted (pi's _appendEntry). */
  private async appendToLeaf(entry: SessionEntry): Promise<SessionEntry> {
    assert(entry.parentId === null || this.byId.has(entry.parentId), `the parent ${entry.parentId} of a new entry of ${this.path} exists`);
    assert(!this.byId.has(entry.id), `the new entry id ${entry.id} is fresh in ${this.path}`);
    this.fileLines.push(entry);
    this.entries.push(entry);
    this.byId.set(entry.id, entry);
    this.leafId = entry.id;
    await this.persist(entry);
    return entry;
  }

  /** pi's _persist: nothing while no assistant message exists; then every line once, then one line per entry. */
  private async persist(entry: SessionEntry): Promise<void> {
    if (!this.entries.some((candidate) => candidate.message.role === 'assistant')) {
      this.flushed = false;
      return;
    }
    assert(this.fileLines[0]?.type === 'session', `the lines of ${this.path} start with the header`);
    const text = this.flushed ? `${serialiseLine(entry)}\n` : this.serialise();
    this.flushed = true;
    await this.disk.append(this.path, text);
    await this.disk.fsync(this.path);
  }

  /** pi's own rewrite hook: the whole file written in place, with no backup and no fsync (not atomic). */
  async rewriteInPlace(): Promise<void> {
    await this.disk.write(this.path, this.serialise());
  }

  /** Replace the file with the in-memory lines as the repair step does (backup, temporary file, rename). */
  async rewriteFile(): Promise<string> {
    return replaceSessionFile(this.disk, this.path, this.serialise(), this.pid, this.nowMs());
  }

  private serialise(): string {
    return `${this.fileLines.map(serialiseLine).join('\n')}\n`;
  }

  private newId(): string {
    for (let attempt = 0; attempt < 16; attempt++) {
      const id = shortId(this.draw);
      if (!this.byId.has(id)) return id;
    }
    assert(false, 'could not draw a fresh entry id in 16 attempts');
  }
}

/** One line as pi writes it (an entry with the model's own turnId field); a loaded line goes back as it was read. */
function serialiseLine(line: FileLine): string {
  if (line.type === 'opaque') return stringifyLoaded(line.raw);
  if (line.raw !== undefined) return stringifyLoaded(line.raw);
  if (line.type === 'session') return JSON.stringify({ type: 'session', version: 3, id: line.id, timestamp: isoAt(line.timestamp), cwd: line.cwd });
  return JSON.stringify({
    type: 'message',
    id: line.id,
    parentId: line.parentId,
    timestamp: isoAt(line.timestamp),
    message: toPiMessage(line.message, line.timestamp),
    turnId: line.turnId,
  });
}

/**
 * JSON.stringify of a line's value, remembered by the value when it is frozen: a loaded line's value is the line
 * memo's, frozen through and shared by every load of the line (line-memo.ts), and every rewrite writes it back.
 */
const stringifiedLoaded = new WeakMap<object, string>();
function stringifyLoaded(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null || !Object.isFrozen(raw)) return JSON.stringify(raw);
  let text = stringifiedLoaded.get(raw);
  if (text === undefined) {
    text = JSON.stringify(raw);
    stringifiedLoaded.set(raw, text);
  }
  return text;
}

/** pi's loadEntriesFromFile: every non-blank line that parses, in order; the others counted. */
function parseRecords(text: string): { records: unknown[]; malformedLines: number } {
  const records: unknown[] = [];
  let malformedLines = 0;
  const { lines } = readLines(text);
  for (const line of lines) {
    if (line === malformed) malformedLines++;
    else if (line !== blank) records.push(line);
  }
  assert(records.length + malformedLines <= lines.length, 'a line parses or is counted malformed, once');
  return { records, malformedLines };
}

function headerOf(record: { id: string } & Record<string, unknown>): SessionHeader {
  const header: SessionHeader = { type: 'session', id: record.id, timestamp: simMsOf(record.timestamp), cwd: typeof record.cwd === 'string' ? record.cwd : '' };
  Object.defineProperty(header, 'raw', { value: record, enumerable: false });
  return header;
}

/** A parsed line after the header: an entry of the tree, or a line kept as it is (a second header, not an entry). */
function lineOf(value: unknown): SessionEntry | OpaqueLine {
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const isEntry = record.type !== 'session' && typeof record.type === 'string' && typeof record.id === 'string' && (record.parentId === null || typeof record.parentId === 'string');
  if (!isEntry) return { type: 'opaque', raw: value };
  // Entries of other kinds (model_change, thinking_level_change, label, ...) and messages of roles the model does not
  // use stay in the tree, as pi keeps them, so parent links through them hold.
  const message = (record.type === 'message' ? fromPiMessage(record.message) : undefined) ?? { role: 'other' as const, content: '' };
  const entry: SessionEntry = {
    type: 'message',
    id: record.id as string,
    parentId: record.parentId as string | null,
    timestamp: simMsOf(record.timestamp),
    message,
    turnId: typeof record.turnId === 'string' ? record.turnId : '',
    ...compactionOf(record),
  };
  // Not enumerable: the loaded line rides along for a verbatim rewrite without showing in comparisons or logs.
  Object.defineProperty(entry, 'raw', { value: record, enumerable: false });
  return entry;
}

/** A `compaction` line's fields, when the record is one (pi's CompactionEntry). */
export function compactionOf(record: Record<string, unknown>): { compaction: CompactionFields } | Record<string, never> {
  if (record.type !== 'compaction') return {};
  const { summary, firstKeptEntryId, tokensBefore } = record;
  return { compaction: { summary: String(summary ?? ''), firstKeptEntryId: String(firstKeptEntryId ?? ''), tokensBefore: Number(tokensBefore ?? 0) } };
}

/**
 * Parse a transcript's text for checkers and tests, by the load's rules: malformed lines skipped and counted, no
 * entries unless the first line that parses is a header, the leaf the last entry in file order.
 */
export function parseTranscript(text: string): { entries: SessionEntry[]; malformedLines: number; leafId: string | null } {
  const { records, malformedLines } = parseRecords(text);
  const [first, ...rest] = records;
  const entries = isSessionHeader(first) ? rest.map(lineOf).filter((line): line is SessionEntry => line.type === 'message') : [];
  return { entries, malformedLines, leafId: entries.at(-1)?.id ?? null };
}

/** The active branch of a parsed transcript: root-to-leaf from the last entry in file order. */
export function activeBranchOf(entries: readonly SessionEntry[]): SessionEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const branch: SessionEntry[] = [];
  let cursor = entries.at(-1);
  while (cursor !== undefined && branch.length <= entries.length) {
    branch.push(cursor);
    cursor = cursor.parentId === null ? undefined : byId.get(cursor.parentId);
  }
  return branch.reverse();
}

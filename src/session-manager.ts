// The pi SessionManager and its JSONL transcript. Line 1 is a header
// `{"type":"session","version":3,"id","timestamp","cwd"}`; then one entry per line, `{type, id, parentId, timestamp,
// message, turnId}` with an 8-character id. The model:
// - append sets parentId to the current leaf and advances the leaf;
// - nothing is written until the first assistant message exists; then all entries are flushed (a whole-file write),
//   and after that each entry is appended as it comes;
// - load skips malformed lines (a torn append after a crash), requires the header, and sets the leaf to the last
//   entry in file order, so an in-memory branch that was never written is undone by a reload;
// - branch(id) only moves the leaf; entries are never edited in place;
// - rewriteFile() (the file-repair step) writes a backup `<file>.bak-<pid>-<time>`, then replaces the file through
//   a temporary file and an atomic rename.
import { assert } from './assert.ts';
import { fromPiMessage, isoAt, simMsOf, toPiMessage, type TranscriptMessage } from './pi-format.ts';
import type { Disk } from './ports.ts';
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
}

interface SessionHeader {
  type: 'session';
  version: 3;
  id: string;
  timestamp: number;
  cwd: string;
}

export interface LoadReport {
  malformedLines: number;
  missingHeader: boolean;
}

export class SessionManager {
  private entries: SessionEntry[] = [];
  private byId = new Map<string, SessionEntry>();
  private leafId: string | null = null;
  private header: SessionHeader | undefined;
  private flushed = false;
  loadReport: LoadReport = { malformedLines: 0, missingHeader: false };

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
      this.header = this.freshHeader();
      return;
    }
    const report: LoadReport = { malformedLines: 0, missingHeader: false };
    const lines = text.split('\n').filter((line) => line.length > 0);
    lines.forEach((line, index) => {
      const parsed = parseLine(line);
      if (parsed === undefined) {
        report.malformedLines++;
      } else if (index === 0 && parsed.type === 'session') {
        this.header = parsed;
      } else if (parsed.type === 'message') {
        this.entries.push(parsed);
        this.byId.set(parsed.id, parsed);
      } else {
        report.malformedLines++;
      }
    });
    if (this.header === undefined) {
      report.missingHeader = true;
      this.header = this.freshHeader();
    }
    this.leafId = this.entries.at(-1)?.id ?? null;
    // A file that already holds an assistant message has been flushed; appends go straight to it.
    this.flushed = this.entries.some((entry) => entry.message.role === 'assistant') && report.malformedLines === 0 && !report.missingHeader;
    this.loadReport = report;
  }

  private freshHeader(): SessionHeader {
    const hex = () => shortId(this.draw);
    const uuid = `${hex()}-${hex().slice(0, 4)}-7${hex().slice(0, 3)}-8${hex().slice(0, 3)}-${hex()}${hex().slice(0, 4)}`;
    return { type: 'session', version: 3, id: uuid, timestamp: this.nowMs(), cwd: '/work' };
  }

  get leaf(): SessionEntry | undefined {
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

  /** Remove an entry from the in-memory file entries (the fixed orphan repair); the caller rewrites the file. */
  removeEntry(id: string): void {
    const index = this.entries.findIndex((entry) => entry.id === id);
    assert(index >= 0, `remove of unknown entry ${id}`);
    this.entries.splice(index, 1);
    this.byId.delete(id);
    if (this.leafId === id) this.leafId = this.entries.at(-1)?.id ?? null;
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
    this.entries.push(entry);
    this.byId.set(entry.id, entry);
    this.leafId = entry.id;
    await this.persist(entry);
    return entry;
  }

  private async persist(entry: SessionEntry): Promise<void> {
    if (!this.flushed) {
      if (!this.entries.some((candidate) => candidate.message.role === 'assistant')) return;
      this.flushed = true;
      await this.disk.write(this.path, this.serialise());
      await this.disk.fsync(this.path);
      return;
    }
    await this.disk.append(this.path, `${serialiseEntry(entry)}\n`);
    await this.disk.fsync(this.path);
  }

  /** pi's own rewrite hook: the whole file written in place, with no backup and no fsync (not atomic). */
  async rewriteInPlace(): Promise<void> {
    await this.disk.write(this.path, this.serialise());
    this.flushed = this.entries.some((candidate) => candidate.message.role === 'assistant');
  }

  /** Backup, then replace the file atomically with the in-memory entries. */
  async rewriteFile(): Promise<string> {
    const current = await this.disk.read(this.path);
    const backup = `${this.path}.bak-${this.pid}-${this.nowMs()}`;
    if (current !== undefined) {
      await this.disk.write(backup, current);
      await this.disk.fsync(backup);
    }
    const temporary = `${this.path}.tmp-${this.pid}`;
    await this.disk.write(temporary, this.serialise());
    await this.disk.fsync(temporary);
    await this.disk.rename(temporary, this.path);
    this.flushed = this.entries.some((candidate) => candidate.message.role === 'assistant');
    return backup;
  }

  private serialise(): string {
    const header = this.header;
    assert(header !== undefined, `no header for ${this.path}`);
    const lines = [JSON.stringify({ ...header, timestamp: isoAt(header.timestamp) }), ...this.entries.map(serialiseEntry)];
    return `${lines.join('\n')}\n`;
  }

  private newId(): string {
    for (let attempt = 0; attempt < 16; attempt++) {
      const id = shortId(this.draw);
      if (!this.byId.has(id)) return id;
    }
    assert(false, 'could not draw a fresh entry id in 16 attempts');
  }
}

/** One entry as pi writes it (plus the model's own turnId field); a loaded entry goes back as it was read. */
function serialiseEntry(entry: SessionEntry): string {
  if (entry.raw !== undefined) return JSON.stringify(entry.raw);
  return JSON.stringify({
    type: 'message',
    id: entry.id,
    parentId: entry.parentId,
    timestamp: isoAt(entry.timestamp),
    message: toPiMessage(entry.message, entry.timestamp),
    turnId: entry.turnId,
  });
}

/** A line of pi's format: the header, a message entry, or undefined (malformed, or a kind the model skips). */
function parseLine(line: string): SessionEntry | SessionHeader | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record.type === 'session' && typeof record.id === 'string') {
    return { type: 'session', version: 3, id: record.id, timestamp: simMsOf(record.timestamp), cwd: typeof record.cwd === 'string' ? record.cwd : '' };
  }
  if (typeof record.type !== 'string' || typeof record.id !== 'string' || !(record.parentId === null || typeof record.parentId === 'string')) return undefined;
  // Entries of other kinds (model_change, thinking_level_change, label, ...) and messages of roles the model does not
  // use stay in the tree, as pi keeps them, so parent links through them hold.
  const message = (record.type === 'message' ? fromPiMessage(record.message) : undefined) ?? { role: 'other' as const, content: '' };
  const entry: SessionEntry = {
    type: 'message',
    id: record.id,
    parentId: record.parentId,
    timestamp: simMsOf(record.timestamp),
    message,
    turnId: typeof record.turnId === 'string' ? record.turnId : '',
  };
  // Not enumerable: the loaded line rides along for a verbatim rewrite without showing in comparisons or logs.
  Object.defineProperty(entry, 'raw', { value: record, enumerable: false });
  return entry;
}

/** Parse a transcript's text for checkers and tests (same rules as load). */
export function parseTranscript(text: string): { entries: SessionEntry[]; malformedLines: number; leafId: string | null } {
  const entries: SessionEntry[] = [];
  let malformedLines = 0;
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    const parsed = parseLine(line);
    if (parsed === undefined) malformedLines++;
    else if (parsed.type === 'message') entries.push(parsed);
  }
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

// The part of pi's session-manager.js (@mariozechner/pi-coding-agent 0.73.x) that sim/real uses, typed by hand so
// the lean install type-checks without the package. Fields marked internal are not part of pi's public API; OpenClaw
// reaches the same ones (its fixed orphan repair edits fileEntries and calls the rewrite hook).

export interface PiHeader {
  type: 'session';
  version: number;
  id: string;
  timestamp: string;
  cwd: string;
}

export interface PiMessageEntry {
  type: 'message';
  id: string;
  parentId: string | null;
  timestamp: string;
  message: Record<string, unknown> & { role: string };
}

/** Any entry pi keeps (message, label, compaction, ...). */
export interface PiEntry {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  message?: Record<string, unknown> & { role: string };
}

export interface PiSessionManager {
  getLeafId(): string | null;
  getLeafEntry(): PiEntry | undefined;
  getEntry(id: string): PiEntry | undefined;
  getEntries(): PiEntry[];
  getBranch(fromId?: string): PiEntry[];
  getHeader(): PiHeader | null;
  getSessionFile(): string | undefined;
  branch(id: string): void;
  resetLeaf(): void;
  appendMessage(message: Record<string, unknown>): string;
  appendCompaction(summary: string, firstKeptEntryId: string, tokensBefore: number): string;
  /** internal: header plus entries, in file order. */
  fileEntries: (PiHeader | PiEntry)[];
  /** internal: the id index. */
  byId: Map<string, PiEntry>;
  /** internal: labels by target id. */
  labelsById: Map<string, string>;
  /** internal: the leaf pointer. */
  leafId: string | null;
  /** internal: whether the in-memory entries have been written. */
  flushed: boolean;
  /** internal: writeFileSync of every in-memory line, in place (the hook OpenClaw's fixed repair calls). */
  _rewriteFile(): void;
}

export interface PiSessionManagerClass {
  open(path: string, sessionDir?: string, cwdOverride?: string): PiSessionManager;
}

export interface PiSessionManagerModule {
  SessionManager: PiSessionManagerClass;
  CURRENT_SESSION_VERSION: number;
}

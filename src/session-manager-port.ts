// What the runner needs of a SessionManager, so that either the model's (src/session-manager.ts) or the real pi
// one (sim/real, runSpec's `sessionManager: 'pi'`) can stand behind a run. The runner is handed a SessionManagerFactory and
// opens the transcript through it (src/session-file-repair.ts: repair, open, prepare); everything else goes through the
// SessionManagerPort it gets back.
import type { ProcessContext } from './ports.ts';
import { type CompactionFields, SessionManager, type SessionEntry, type TranscriptMessage } from './session-manager.ts';

export interface SessionManagerPort {
  readonly path: string;
  readonly leaf: SessionEntry | undefined;
  allEntries(): readonly SessionEntry[];
  /** Root-to-leaf path through parent links. */
  activeBranch(): SessionEntry[];
  /** Move the in-memory leaf only. */
  branch(id: string): void;
  resetLeaf(): void;
  /** Remove an entry from the in-memory entries (the fixed orphan repair); a removed leaf moves to its parent. */
  removeEntry(id: string): void;
  /** OpenClaw's prepareSessionManagerForRun (which empties the file itself): in memory, the header alone, unflushed. */
  resetToHeader(): void;
  appendMessage(message: TranscriptMessage, turnId: string): Promise<SessionEntry>;
  /** pi's appendCompaction: a `compaction` entry as the leaf's child (src/compaction.ts). */
  appendCompaction(fields: CompactionFields): Promise<SessionEntry>;
  /** pi's own rewrite hook: the in-memory lines written over the file in place (no backup, no fsync). */
  rewriteInPlace(): Promise<void>;
  /** Back up the file, then replace it with the in-memory lines through a temporary file; returns the backup's path. */
  rewriteFile(): Promise<string>;
}

/** Opens (loading or creating) the transcript at `path` for the process behind `ctx`. */
export type SessionManagerFactory = (ctx: ProcessContext, path: string) => Promise<SessionManagerPort>;

/** The model's own SessionManager (the runner's default). */
export const modelSessionManagerFactory: SessionManagerFactory = (ctx, path) =>
  SessionManager.open(ctx.disk, path, (min, max) => ctx.random.int(min, max), () => ctx.clock.nowMs(), ctx.incarnation);

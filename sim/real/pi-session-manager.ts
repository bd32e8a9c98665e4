// The real pi SessionManager (@mariozechner/pi-coding-agent) behind the runner's SessionManagerPort. Every call into
// pi runs under withBinding, so its readFileSync/writeFileSync/appendFileSync hit the simulated disk of the calling
// incarnation (volatile until a sync: pi never fsyncs), its ids come from that incarnation's PRNG stream and its
// timestamps from the simulated clock. What is OpenClaw's rather than pi's is done here, as OpenClaw does it (the
// repair before the open and prepareSessionManagerForRun's file write are the runner's, src/session-file-repair.ts):
// - removeEntry is the fixed orphan repair: the entry leaves pi's in-memory entries and index, the leaf moves to
//   its parent (or is reset);
// - resetToHeader is prepareSessionManagerForRun's edit of pi's internals: the header alone, no index, no leaf,
//   unflushed;
// - rewriteFile replaces the file with pi's in-memory lines as the repair step does (backup, temporary file,
//   rename); rewriteInPlace is pi's own rewrite hook (`_rewriteFile`: writeFileSync in place).
// Entries of other kinds (model_change, label, ...) and messages of roles the model does not use are entries of
// role 'other' to the runner, as the model's own SessionManager keeps them. The gatesim turn id rides inside pi's
// message object (`message.turnId`), not at the entry's top level as the model writes it, since pi builds the entry.
import { fromPiMessage, simMsOf, toPiMessage } from '../../src/pi-format.ts';
import { assert } from '../kernel/assert.ts';
import type { SimDisk } from '../kernel/disk.ts';
import type { ProcessTable } from '../kernel/process.ts';
import type { ProcessContext } from '../../src/ports.ts';
import { replaceSessionFile } from '../../src/session-file-repair.ts';
import { type CompactionFields, compactionOf, type SessionEntry, type TranscriptMessage } from '../../src/session-manager.ts';
import type { SessionManagerFactory, SessionManagerPort } from '../../src/session-manager-port.ts';
import { type RealBinding, simulatedBinding, withBinding } from './bindings.ts';
import type { PiEntry, PiSessionManager, PiSessionManagerModule } from './pi-types.ts';

/** The parts of a Simulation the adapter needs (a Simulation is one). */
export interface PiWorld {
  readonly disk: SimDisk;
  readonly processes: ProcessTable;
}

export function piSessionManagerFactory(world: PiWorld, pi: PiSessionManagerModule): SessionManagerFactory {
  return async (ctx, path) => {
    const owner = world.processes.incarnation(ctx.incarnation);
    assert(owner !== undefined, `no incarnation ${ctx.incarnation} for ${ctx.name}`);
    return PiSessionManagerAdapter.open(ctx, simulatedBinding(world.disk, owner, ctx.random, ctx.clock), pi, path);
  };
}

/** A pi entry as the model's SessionEntry (simulated ms, the turn id lifted out; other kinds as role 'other'). */
export function toModelEntry(entry: PiEntry): SessionEntry {
  const turnId = (entry.message as { turnId?: unknown } | undefined)?.turnId;
  return {
    type: 'message',
    id: entry.id,
    parentId: entry.parentId,
    timestamp: simMsOf(entry.timestamp),
    message: (entry.type === 'message' ? fromPiMessage(entry.message) : undefined) ?? { role: 'other', content: '' },
    turnId: typeof turnId === 'string' ? turnId : '',
    ...compactionOf(entry as unknown as Record<string, unknown>),
  };
}

export class PiSessionManagerAdapter implements SessionManagerPort {
  private constructor(
    private readonly ctx: ProcessContext,
    private readonly binding: RealBinding,
    readonly manager: PiSessionManager,
    readonly path: string,
  ) {}

  static open(ctx: ProcessContext, binding: RealBinding, pi: PiSessionManagerModule, path: string): PiSessionManagerAdapter {
    return new PiSessionManagerAdapter(ctx, binding, withBinding(binding, () => pi.SessionManager.open(path)), path);
  }

  get leaf(): SessionEntry | undefined {
    const entry = this.manager.getLeafEntry();
    return entry === undefined ? undefined : toModelEntry(entry);
  }

  allEntries(): readonly SessionEntry[] {
    return this.manager.getEntries().map(toModelEntry);
  }

  activeBranch(): SessionEntry[] {
    return this.manager.getBranch().map(toModelEntry);
  }

  branch(id: string): void {
    this.manager.branch(id);
  }

  resetLeaf(): void {
    this.manager.resetLeaf();
  }

  removeEntry(id: string): void {
    const entries = this.manager.fileEntries;
    const index = entries.findIndex((entry) => entry.type !== 'session' && entry.id === id);
    assert(index >= 0, `remove of unknown entry ${id}`);
    const [removed] = entries.splice(index, 1) as PiEntry[];
    this.manager.byId.delete(id);
    if (this.manager.leafId === id) {
      const parent = removed?.parentId ?? null;
      if (parent !== null && this.manager.byId.has(parent)) this.manager.branch(parent);
      else this.manager.resetLeaf();
    }
  }

  resetToHeader(): void {
    const header = this.manager.fileEntries.find((entry) => entry.type === 'session');
    assert(header !== undefined, `pi holds no header for ${this.path}`);
    this.manager.fileEntries = [header];
    this.manager.byId.clear();
    this.manager.labelsById.clear();
    this.manager.leafId = null;
    this.manager.flushed = false;
  }

  async appendMessage(message: TranscriptMessage, turnId: string): Promise<SessionEntry> {
    const id = withBinding(this.binding, () => this.manager.appendMessage({ ...toPiMessage(message, this.ctx.clock.nowMs()), turnId }));
    const entry = this.manager.getEntry(id);
    assert(entry !== undefined, `pi lost the entry ${id} it just appended`);
    return toModelEntry(entry);
  }

  async appendCompaction(fields: CompactionFields): Promise<SessionEntry> {
    const id = withBinding(this.binding, () => this.manager.appendCompaction(fields.summary, fields.firstKeptEntryId, fields.tokensBefore));
    const entry = this.manager.getEntry(id);
    assert(entry !== undefined, `pi lost the compaction ${id} it just appended`);
    return toModelEntry(entry);
  }

  /** pi's rewrite hook as OpenClaw calls it: every in-memory line written in place, no backup, no fsync. */
  async rewriteInPlace(): Promise<void> {
    withBinding(this.binding, () => this.manager._rewriteFile());
  }

  async rewriteFile(): Promise<string> {
    const { disk, clock, incarnation } = this.ctx;
    return replaceSessionFile(disk, this.path, `${this.manager.fileEntries.map((entry) => JSON.stringify(entry)).join('\n')}\n`, incarnation, clock.nowMs());
  }
}

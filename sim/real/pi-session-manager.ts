// The real pi SessionManager (@mariozechner/pi-coding-agent) behind the runner's SessionManagerPort. Every call into
// pi runs under withBinding, so its readFileSync/writeFileSync/appendFileSync hit the simulated disk of the calling
// incarnation (volatile until a sync: pi never fsyncs), its ids come from that incarnation's PRNG stream and its
// timestamps from the simulated clock. What is OpenClaw's rather than pi's is done here, as OpenClaw does it:
// - the load report is OpenClaw's repair judgement (malformed lines under a valid header); a file whose first line
//   that parses is not a header is pi's to handle (pi truncates it to a fresh header when it opens it);
// - removeEntry is the fixed orphan repair: the entry leaves pi's in-memory entries and index, the leaf moves to
//   its parent (or is reset);
// - rewriteFile is the file-repair step: a backup `<file>.bak-<pid>-<time>`, then the in-memory lines through a
//   temporary file and a rename; rewriteInPlace is pi's own rewrite hook (`_rewriteFile`: writeFileSync in place).
// Entries of other kinds (model_change, label, ...) and messages of roles the model does not use are entries of
// role 'other' to the runner, as the model's own SessionManager keeps them. The gatesim turn id rides inside pi's
// message object (`message.turnId`), not at the entry's top level as the model writes it, since pi builds the entry.
import { fromPiMessage, simMsOf, toPiMessage } from '../../src/pi-format.ts';
import { assert } from '../kernel/assert.ts';
import type { SimDisk } from '../kernel/disk.ts';
import type { ProcessTable } from '../kernel/process.ts';
import type { ProcessContext } from '../../src/ports.ts';
import type { LoadReport, SessionEntry, TranscriptMessage } from '../../src/session-manager.ts';
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

/** OpenClaw's repair judgement of a transcript's text: malformed lines count only under a valid header. */
export function openClawLoadReport(text: string | undefined): LoadReport {
  const report: LoadReport = { malformedLines: 0, missingHeader: false };
  if (text === undefined) return report;
  let header: unknown;
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (line.trim().length === 0) continue;
    try {
      const value = JSON.parse(line) as unknown;
      header ??= value;
    } catch {
      malformed++;
    }
  }
  const record = header as { type?: unknown; id?: unknown } | undefined;
  if (record?.type === 'session' && typeof record.id === 'string') report.malformedLines = malformed;
  return report;
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
  };
}

export class PiSessionManagerAdapter implements SessionManagerPort {
  private constructor(
    private readonly ctx: ProcessContext,
    private readonly binding: RealBinding,
    readonly manager: PiSessionManager,
    readonly path: string,
    readonly loadReport: LoadReport,
  ) {}

  static open(ctx: ProcessContext, binding: RealBinding, pi: PiSessionManagerModule, path: string): PiSessionManagerAdapter {
    return withBinding(binding, () => {
      const text = binding.fs.existsSync(path) ? binding.fs.readFileSync(path, 'utf8') : undefined;
      const report = openClawLoadReport(text);
      return new PiSessionManagerAdapter(ctx, binding, pi.SessionManager.open(path), path, report);
    });
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

  async appendMessage(message: TranscriptMessage, turnId: string): Promise<SessionEntry> {
    const id = withBinding(this.binding, () => this.manager.appendMessage({ ...toPiMessage(message, this.ctx.clock.nowMs()), turnId }));
    const entry = this.manager.getEntry(id);
    assert(entry !== undefined, `pi lost the entry ${id} it just appended`);
    return toModelEntry(entry);
  }

  /** pi's rewrite hook as OpenClaw calls it: every in-memory line written in place, no backup, no fsync. */
  async rewriteInPlace(): Promise<void> {
    withBinding(this.binding, () => this.manager._rewriteFile());
  }

  async rewriteFile(): Promise<string> {
    const { disk, clock, incarnation } = this.ctx;
    const current = await disk.read(this.path);
    const backup = `${this.path}.bak-${incarnation}-${clock.nowMs()}`;
    if (current !== undefined) {
      await disk.write(backup, current);
      await disk.fsync(backup);
    }
    const temporary = `${this.path}.tmp-${incarnation}`;
    await disk.write(temporary, `${this.manager.fileEntries.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
    await disk.fsync(temporary);
    await disk.rename(temporary, this.path);
    return backup;
  }
}

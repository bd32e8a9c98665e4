// The disk: one shared namespace of text files. The durability model:
// - write, append, rename and remove take effect in the page cache when called and return after a latency;
// - data is volatile until an fsync of the file completes (or a background writeback syncs it);
// - file creation, rename and remove are metadata and durable at once; rename is atomic (the file keeps its
//   synced and unsynced parts under the new name), so renaming an unsynced temporary file is not durable data;
// - a crash of a process drops the volatile writes it made; if the oldest unsynced operation of the file was its
//   append, a torn prefix of that append may survive (the writeback that was under way when it died).
// A real module written against synchronous fs (sim/real) uses the *Now calls: they take effect at once and take no
// simulated time (a blocking call holds the thread, the clock does not move), under the same durability rules.
import { assert } from './assert.ts';
import type { Incarnation } from './process.ts';
import type { Prng } from './prng.ts';
import type { Scheduler } from './scheduler.ts';
import type { Trace } from './trace.ts';

export interface DiskFaults {
  /** Chance that a write schedules a background writeback of its file. */
  backgroundSyncPer1000: number;
  backgroundSyncDelayMsMax: number;
  /** Chance that a crash leaves a torn prefix of the oldest unsynced append. */
  tearPer1000: number;
  latencyMsMax: number;
  fsyncLatencyMsMax: number;
}

export const defaultDiskFaults: DiskFaults = {
  backgroundSyncPer1000: 0,
  backgroundSyncDelayMsMax: 5_000,
  tearPer1000: 0,
  latencyMsMax: 2,
  fsyncLatencyMsMax: 10,
};

interface PendingOp {
  owner: string;
  kind: 'write' | 'append';
  data: string;
}

interface FileState {
  synced: string;
  pending: PendingOp[];
  current: string;
}

export class SimDisk {
  private readonly files = new Map<string, FileState>();
  faults: DiskFaults = { ...defaultDiskFaults };

  constructor(
    private readonly scheduler: Scheduler,
    private readonly trace: Trace,
    private readonly prng: Prng,
  ) {}

  /** Current (page-cache) content, for inspection by checkers and tests. */
  peek(path: string): string | undefined {
    return this.files.get(path)?.current;
  }

  /** Durable content only: what a crash of every process would leave. */
  peekSynced(path: string): string | undefined {
    return this.files.get(path)?.synced;
  }

  paths(): string[] {
    return [...this.files.keys()].sort();
  }

  read(owner: Incarnation, path: string): Promise<string | undefined> {
    const content = owner.alive ? this.files.get(path)?.current : undefined;
    return this.complete(owner, this.latency(), content);
  }

  write(owner: Incarnation, path: string, data: string): Promise<void> {
    if (owner.alive) this.applyWrite(owner.name, path, 'write', data);
    return this.complete(owner, this.latency(), undefined);
  }

  append(owner: Incarnation, path: string, data: string): Promise<void> {
    if (owner.alive) this.applyWrite(owner.name, path, 'append', data);
    return this.complete(owner, this.latency(), undefined);
  }

  fsync(owner: Incarnation, path: string): Promise<void> {
    return owner.suspend<void>((resume) => {
      this.scheduler.schedule(this.prng.int(1, this.faults.fsyncLatencyMsMax), () => {
        if (!owner.alive) return;
        this.sync(path, 'fsync');
        resume(undefined);
      }, owner.id);
    });
  }

  rename(owner: Incarnation, from: string, to: string): Promise<void> {
    if (owner.alive) {
      const file = this.files.get(from);
      assert(file !== undefined, `rename of a missing file ${from}`);
      this.files.delete(from);
      this.files.set(to, file);
      this.trace.record('disk.rename', { from, to });
    }
    return this.complete(owner, this.latency(), undefined);
  }

  remove(owner: Incarnation, path: string): Promise<void> {
    if (owner.alive && this.files.delete(path)) this.trace.record('disk.remove', { path });
    return this.complete(owner, this.latency(), undefined);
  }

  list(owner: Incarnation, prefix: string): Promise<string[]> {
    const names = owner.alive ? this.paths().filter((path) => path.startsWith(prefix)) : [];
    return this.complete(owner, this.latency(), names);
  }

  /** Synchronous read (readFileSync): the page-cache content, or undefined if missing or the caller is dead. */
  readNow(owner: Incarnation, path: string): string | undefined {
    return owner.alive ? this.files.get(path)?.current : undefined;
  }

  /** Synchronous whole-file write (writeFileSync): volatile until an fsync or writeback. */
  writeNow(owner: Incarnation, path: string, data: string): void {
    if (owner.alive) this.applyWrite(owner.name, path, 'write', data);
  }

  /** Synchronous append (appendFileSync): volatile until an fsync or writeback; a crash may tear it. */
  appendNow(owner: Incarnation, path: string, data: string): void {
    if (owner.alive) this.applyWrite(owner.name, path, 'append', data);
  }

  /** The process `name` died: its volatile writes are gone, except perhaps a torn prefix. */
  crash(name: string): void {
    for (const [path, file] of this.files) {
      if (!file.pending.some((op) => op.owner === name)) continue;
      const first = file.pending[0] as PendingOp;
      let tornBytes = 0;
      // An empty append has no prefix to tear (and int(0, -1) would be an empty range).
      const tearable = first.owner === name && first.kind === 'append' && first.data.length > 0;
      if (tearable && this.prng.chance(this.faults.tearPer1000, 1000)) {
        tornBytes = this.prng.int(0, first.data.length - 1);
        file.synced += first.data.slice(0, tornBytes);
      }
      const survivors = file.pending.filter((op) => op.owner !== name);
      file.pending = survivors;
      file.current = survivors.reduce(applyOp, file.synced);
      this.trace.record('disk.crash', { path, process: name, tornBytes, keptBytes: file.current.length });
    }
  }

  private applyWrite(owner: string, path: string, kind: 'write' | 'append', data: string): void {
    let file = this.files.get(path);
    if (file === undefined) {
      file = { synced: '', pending: [], current: '' };
      this.files.set(path, file);
    }
    const op: PendingOp = { owner, kind, data };
    file.pending.push(op);
    file.current = applyOp(file.current, op);
    this.trace.record(kind === 'write' ? 'disk.write' : 'disk.append', { path, bytes: data.length });
    if (this.prng.chance(this.faults.backgroundSyncPer1000, 1000)) {
      const delayMs = this.prng.int(1, this.faults.backgroundSyncDelayMsMax);
      this.scheduler.schedule(delayMs, () => this.sync(path, 'writeback'));
    }
  }

  private sync(path: string, reason: 'fsync' | 'writeback'): void {
    const file = this.files.get(path);
    if (file === undefined || file.pending.length === 0) return;
    file.synced = file.current;
    file.pending = [];
    this.trace.record('disk.sync', { path, reason, bytes: file.synced.length });
  }

  private latency(): number {
    return this.prng.int(0, this.faults.latencyMsMax);
  }

  private complete<T>(owner: Incarnation, delayMs: number, value: T): Promise<T> {
    return owner.suspend<T>((resume) => {
      this.scheduler.schedule(delayMs, () => resume(value), owner.id);
    });
  }
}

function applyOp(content: string, op: PendingOp): string {
  return op.kind === 'write' ? op.data : content + op.data;
}

// The disk: one shared namespace of text files. The durability model:
// - write, append, rename and remove take effect in the page cache when called and return after a latency;
// - data is volatile until an fsync of the file completes (or a background writeback syncs it);
// - file creation, rename and remove are metadata and durable at once; rename is atomic (the file keeps its
//   synced and unsynced parts under the new name), so renaming an unsynced temporary file is not durable data;
// - a SIGKILL of a process loses nothing it wrote: its writes are in the page cache, which the kernel keeps and writes
//   back (Linux's flusher wakes every 5 s and writes back a file whose oldest dirty data is 30 s old, as
//   vm.dirty_writeback_centisecs and vm.dirty_expire_centisecs say by default);
// - a power loss (the machine dies) drops every volatile write that was not written back; if the oldest unsynced
//   operation of a file was an append, a torn prefix of that append may survive (the writeback under way).
// The periodic writeback is applied lazily (when a power loss or a durable read asks what is on the platter), so it
// costs no events: a write at time w is durable from the first 5 s flusher tick at or after w + 30 s.
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
  /** Chance that a power loss leaves a torn prefix of the oldest unsynced append. */
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
  kind: 'write' | 'append';
  data: string;
  /** When the write reached the page cache (the dirty time of the data). */
  atMs: number;
}

/** Linux's defaults: dirty data expires after 30 s; the flusher wakes every 5 s. */
export const dirtyExpireMs = 30_000;
export const flusherIntervalMs = 5_000;

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

  /** Durable content only: what a power loss now would leave (without a torn prefix). */
  peekSynced(path: string): string | undefined {
    const file = this.files.get(path);
    if (file !== undefined) this.writeBackExpired(file);
    return file?.synced;
  }

  paths(): string[] {
    return [...this.files.keys()].sort();
  }

  read(owner: Incarnation, path: string): Promise<string | undefined> {
    const content = owner.alive ? this.files.get(path)?.current : undefined;
    return this.complete(owner, this.latency(), content);
  }

  write(owner: Incarnation, path: string, data: string): Promise<void> {
    if (owner.alive) this.applyWrite(path, 'write', data);
    return this.complete(owner, this.latency(), undefined);
  }

  append(owner: Incarnation, path: string, data: string): Promise<void> {
    if (owner.alive) this.applyWrite(path, 'append', data);
    return this.complete(owner, this.latency(), undefined);
  }

  /** O_CREAT | O_EXCL: the check and the creation are one step, so two processes never both create the file. */
  createExclusive(owner: Incarnation, path: string, data: string): Promise<boolean> {
    const created = owner.alive && !this.files.has(path);
    if (created) this.applyWrite(path, 'write', data);
    assert(!created || this.files.get(path)?.current === data, `exclusive create of ${path} left the wrong content`);
    return this.complete(owner, this.latency(), created);
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
      assert(from === to || (!this.files.has(from) && this.files.get(to) === file), `rename ${from} -> ${to} did not move the file`);
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
    if (owner.alive) this.applyWrite(path, 'write', data);
  }

  /** Synchronous append (appendFileSync): volatile until an fsync or writeback; a crash may tear it. */
  appendNow(owner: Incarnation, path: string, data: string): void {
    if (owner.alive) this.applyWrite(path, 'append', data);
  }

  /**
   * The machine lost power: every volatile write that the periodic writeback had not yet made durable is gone, except
   * perhaps a torn prefix of a file's oldest unsynced append.
   */
  powerLoss(): void {
    for (const [path, file] of this.files) {
      this.writeBackExpired(file);
      const first = file.pending[0];
      if (first === undefined) continue;
      let tornBytes = 0;
      // An empty append has no prefix to tear (and int(0, -1) would be an empty range).
      if (first.kind === 'append' && first.data.length > 0 && this.prng.chance(this.faults.tearPer1000, 1000)) {
        tornBytes = this.prng.int(0, first.data.length - 1);
        file.synced += first.data.slice(0, tornBytes);
      }
      assert(file.pending.reduce(applyOp, file.synced.slice(0, file.synced.length - tornBytes)) === file.current, `${path}: the page cache is not its synced content plus its pending writes`);
      const lostBytes = file.current.length - file.synced.length;
      file.pending = [];
      file.current = file.synced;
      this.trace.record('disk.crash', { path, tornBytes, lostBytes, keptBytes: file.current.length });
    }
  }

  private applyWrite(path: string, kind: 'write' | 'append', data: string): void {
    let file = this.files.get(path);
    if (file === undefined) {
      file = { synced: '', pending: [], current: '' };
      this.files.set(path, file);
    }
    const op: PendingOp = { kind, data, atMs: this.scheduler.clock.nowMs() };
    const before = file.current.length;
    file.pending.push(op);
    file.current = applyOp(file.current, op);
    // Paired with the read back: an append grows the file by exactly its data, a write replaces it.
    assert(kind === 'write' ? file.current === data : file.current.length === before + data.length, `${kind} of ${path} left the wrong content`);
    this.trace.record(kind === 'write' ? 'disk.write' : 'disk.append', { path, bytes: data.length });
    if (this.prng.chance(this.faults.backgroundSyncPer1000, 1000)) {
      const delayMs = this.prng.int(1, this.faults.backgroundSyncDelayMsMax);
      this.scheduler.schedule(delayMs, () => this.sync(path, 'writeback'));
    }
  }

  private sync(path: string, reason: 'fsync' | 'writeback'): void {
    const file = this.files.get(path);
    if (file === undefined || file.pending.length === 0) return;
    assert(file.pending.reduce(applyOp, file.synced) === file.current, `${path}: the page cache is not its synced content plus its pending writes`);
    file.synced = file.current;
    file.pending = [];
    this.trace.record('disk.sync', { path, reason, bytes: file.synced.length });
  }

  /**
   * The flusher's work up to now, applied lazily: while the file's oldest dirty data has expired by a flusher tick
   * that has passed, that tick wrote back everything written up to it.
   */
  private writeBackExpired(file: FileState): void {
    const now = this.scheduler.clock.nowMs();
    while (file.pending.length > 0) {
      const dirtySince = (file.pending[0] as PendingOp).atMs;
      const tickMs = Math.ceil((dirtySince + dirtyExpireMs) / flusherIntervalMs) * flusherIntervalMs;
      if (tickMs > now) return;
      let written = 0;
      while (written < file.pending.length && (file.pending[written] as PendingOp).atMs <= tickMs) written++;
      // The oldest dirty write is at most the tick, so each pass writes at least one back.
      assert(written > 0, 'a writeback tick before the oldest dirty write');
      file.synced = file.pending.slice(0, written).reduce(applyOp, file.synced);
      file.pending = file.pending.slice(written);
    }
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

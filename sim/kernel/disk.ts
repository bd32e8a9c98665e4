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
// Stalled fsyncs (issue 48 item 4; off unless enableFsyncStalls is called): while they are on, an fsync may take
// seconds (a slow disk), drawn from a stream of its own; its data is durable when it returns, and a writer killed
// meanwhile leaves the data volatile (in the page cache, for the writeback). Each stall is a `fault` event
// (`fsync-stall`), its end a `disk.stall-end` (`landed` when the data was synced).
// Binary files (the simulated node:sqlite's database, -wal and -shm: sim/real/openclaw-hooks/sqlite.mjs) hold bytes,
// written in place (pwrite) or truncated, under the same rules: each write is volatile until a sync of the file (syncNow:
// fdatasync, at once) or the writeback; a power loss keeps the synced bytes plus the writes the writeback had made
// durable, and may keep a torn prefix of the oldest unsynced write. A text call on a binary file, or the reverse, is a
// bug of the caller (asserted). A run without binary files takes exactly the paths it took before they existed.
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

/** A write of bytes at an offset (the file grows with zeros up to it), or a truncation (or extension with zeros). */
type BinaryOp = { kind: 'pwrite'; offset: number; data: Uint8Array; atMs: number } | { kind: 'truncate'; size: number; atMs: number };

interface BinaryFileState {
  synced: Uint8Array;
  pending: BinaryOp[];
  /** The page-cache bytes: `size` bytes of `buffer` (which has room to grow). */
  buffer: Uint8Array;
  size: number;
}

/**
 * One incarnation's view of the disk's binary files, every call at once (the *Now calls): what the simulated
 * node:sqlite's VFS reads and writes (sim/real/openclaw-hooks.d.mts `SqliteFiles`). A dead owner reads nothing and its
 * writes are dropped, as everywhere on the disk.
 */
export interface BinaryFiles {
  /** The disk itself: locks and shared memory are per disk. */
  readonly disk: SimDisk;
  alive(): boolean;
  size(path: string): number | undefined;
  read(path: string, offset: number, length: number): Uint8Array | undefined;
  write(path: string, offset: number, data: Uint8Array): void;
  truncate(path: string, size: number): void;
  sync(path: string): void;
  remove(path: string): void;
}

export class SimDisk {
  private readonly files = new Map<string, FileState>();
  private readonly binaryFiles = new Map<string, BinaryFileState>();
  faults: DiskFaults = { ...defaultDiskFaults };
  /** Stalled fsyncs, when a run has them; `active` false once the faults stopped. */
  private fsyncStalls: { per1000: number; msMin: number; msMax: number; prng: Prng; active: boolean; count: number } | undefined;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly trace: Trace,
    private readonly prng: Prng,
  ) {}

  /** Current (page-cache) content, for inspection by checkers and tests (a binary file's: one character per byte). */
  peek(path: string): string | undefined {
    const binary = this.binaryFiles.get(path);
    if (binary !== undefined) return latin1(binary.buffer.subarray(0, binary.size));
    return this.files.get(path)?.current;
  }

  /** Current (page-cache) bytes of a binary file (a copy), for inspection by checkers and tests. */
  peekBytes(path: string): Uint8Array | undefined {
    const binary = this.binaryFiles.get(path);
    return binary === undefined ? undefined : binary.buffer.slice(0, binary.size);
  }

  /** Durable bytes of a binary file only: what a power loss now would leave (without a torn prefix); a copy. */
  peekSyncedBytes(path: string): Uint8Array | undefined {
    const binary = this.binaryFiles.get(path);
    if (binary !== undefined) this.writeBackExpiredBinary(binary);
    return binary?.synced.slice();
  }

  /** Whether the path is a binary file. */
  isBinary(path: string): boolean {
    return this.binaryFiles.has(path);
  }

  /** Durable content only: what a power loss now would leave (without a torn prefix). */
  peekSynced(path: string): string | undefined {
    const file = this.files.get(path);
    if (file !== undefined) this.writeBackExpired(file);
    return file?.synced;
  }

  paths(): string[] {
    if (this.binaryFiles.size === 0) return [...this.files.keys()].sort();
    return [...this.files.keys(), ...this.binaryFiles.keys()].sort();
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

  /** Stalled fsyncs from now on (issue 48 item 4), drawn from a stream of their own. */
  enableFsyncStalls(knobs: { per1000: number; msMin: number; msMax: number }): void {
    assert(Number.isSafeInteger(knobs.per1000) && knobs.per1000 >= 0 && knobs.per1000 <= 1000, `stalled fsyncs per 1000: ${knobs.per1000}`);
    assert(Number.isSafeInteger(knobs.msMin) && knobs.msMin >= 1 && Number.isSafeInteger(knobs.msMax) && knobs.msMax >= knobs.msMin, `an fsync stalls msMin..msMax: ${knobs.msMin}..${knobs.msMax}`);
    this.fsyncStalls = { ...knobs, prng: this.prng.fork('fsync-stalls'), active: true, count: 0 };
  }

  /** No new fsync stall after this (the faults stopped); one under way still ends when it was drawn to. */
  stopFsyncStalls(): void {
    if (this.fsyncStalls !== undefined) this.fsyncStalls.active = false;
  }

  fsync(owner: Incarnation, path: string): Promise<void> {
    const stalls = this.fsyncStalls;
    if (stalls !== undefined && stalls.active && owner.alive && stalls.prng.chance(stalls.per1000, 1000)) return this.stalledFsync(owner, path, stalls);
    return owner.suspend<void>((resume) => {
      this.scheduler.schedule(this.prng.int(1, this.faults.fsyncLatencyMsMax), () => {
        if (!owner.alive) return;
        this.sync(path, 'fsync');
        resume(undefined);
      }, owner.id);
    });
  }

  private stalledFsync(owner: Incarnation, path: string, stalls: NonNullable<SimDisk['fsyncStalls']>): Promise<void> {
    const ms = stalls.prng.int(stalls.msMin, stalls.msMax);
    const stall = ++stalls.count;
    this.trace.record('fault', { kind: 'fsync-stall', path, process: owner.name, stall, ms });
    return owner.suspend<void>((resume) => {
      this.scheduler.schedule(
        ms,
        () => {
          if (!owner.alive) return;
          this.sync(path, 'fsync');
          this.trace.record('disk.stall-end', { path, process: owner.name, stall, landed: true });
          resume(undefined);
        },
        owner.id,
      );
    });
  }

  rename(owner: Incarnation, from: string, to: string): Promise<void> {
    if (owner.alive && this.binaryFiles.size > 0 && this.binaryFiles.has(from)) {
      const file = this.binaryFiles.get(from) as BinaryFileState;
      this.binaryFiles.delete(from);
      this.binaryFiles.set(to, file);
      this.trace.record('disk.rename', { from, to });
    } else if (owner.alive) {
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
    if (owner.alive && (this.files.delete(path) || (this.binaryFiles.size > 0 && this.binaryFiles.delete(path)))) this.trace.record('disk.remove', { path });
    return this.complete(owner, this.latency(), undefined);
  }

  list(owner: Incarnation, prefix: string): Promise<string[]> {
    const names = owner.alive ? this.paths().filter((path) => path.startsWith(prefix)) : [];
    return this.complete(owner, this.latency(), names);
  }

  /**
   * Synchronous read (readFileSync): the page-cache content, or undefined if missing or the caller is dead. A binary
   * file reads as one character per byte (its existence is what a text reader can use).
   */
  readNow(owner: Incarnation, path: string): string | undefined {
    if (!owner.alive) return undefined;
    if (this.binaryFiles.size > 0 && this.binaryFiles.has(path)) return this.peek(path);
    return this.files.get(path)?.current;
  }

  /** The binary-file calls of one incarnation (the simulated node:sqlite's VFS), each at once. */
  binaryFilesOf(owner: Incarnation): BinaryFiles {
    return {
      disk: this,
      alive: () => owner.alive,
      size: (path) => (owner.alive ? this.binaryFiles.get(path)?.size : undefined),
      read: (path, offset, length) => {
        const file = owner.alive ? this.binaryFiles.get(path) : undefined;
        if (file === undefined) return undefined;
        return file.buffer.slice(Math.min(offset, file.size), Math.min(offset + length, file.size));
      },
      write: (path, offset, data) => {
        if (owner.alive) this.applyBinary(path, { kind: 'pwrite', offset, data: data.slice(), atMs: this.scheduler.clock.nowMs() });
      },
      truncate: (path, size) => {
        if (owner.alive) this.applyBinary(path, { kind: 'truncate', size, atMs: this.scheduler.clock.nowMs() });
      },
      sync: (path) => {
        if (owner.alive) this.syncBinary(path, 'fsync');
      },
      remove: (path) => {
        if (owner.alive && this.binaryFiles.delete(path)) this.trace.record('disk.remove', { path });
      },
    };
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
    for (const [path, file] of this.binaryFiles) {
      this.writeBackExpiredBinary(file);
      const first = file.pending[0];
      if (first === undefined) continue;
      let tornBytes = 0;
      if (first.kind === 'pwrite' && first.data.length > 0 && this.prng.chance(this.faults.tearPer1000, 1000)) {
        tornBytes = this.prng.int(0, first.data.length - 1);
        file.synced = applyBinaryOps(file.synced, [{ ...first, data: first.data.subarray(0, tornBytes) }]);
      }
      const lostOps = file.pending.length;
      file.pending = [];
      file.buffer = file.synced.slice();
      file.size = file.synced.length;
      this.trace.record('disk.crash', { path, tornBytes, lostOps, keptBytes: file.size });
    }
  }

  private applyWrite(path: string, kind: 'write' | 'append', data: string): void {
    assert(this.binaryFiles.size === 0 || !this.binaryFiles.has(path), `a text ${kind} of the binary file ${path}`);
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
    if (this.binaryFiles.size > 0 && this.binaryFiles.has(path)) {
      this.syncBinary(path, reason);
      return;
    }
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

  private applyBinary(path: string, op: BinaryOp): void {
    assert(!this.files.has(path), `a binary write of the text file ${path}`);
    let file = this.binaryFiles.get(path);
    if (file === undefined) {
      file = { synced: new Uint8Array(0), pending: [], buffer: new Uint8Array(0), size: 0 };
      this.binaryFiles.set(path, file);
    }
    file.pending.push(op);
    if (op.kind === 'pwrite') {
      const end = op.offset + op.data.length;
      if (end > file.buffer.length) {
        const grown = new Uint8Array(Math.max(end, file.buffer.length * 2));
        grown.set(file.buffer.subarray(0, file.size));
        file.buffer = grown;
      }
      // The gap between the old end and the offset (if any) reads as zeros, as a sparse file's hole does.
      if (op.offset > file.size) file.buffer.fill(0, file.size, op.offset);
      file.buffer.set(op.data, op.offset);
      file.size = Math.max(file.size, end);
      this.trace.record('disk.write', { path, offset: op.offset, bytes: op.data.length });
    } else {
      if (op.size > file.buffer.length) {
        const grown = new Uint8Array(op.size);
        grown.set(file.buffer.subarray(0, file.size));
        file.buffer = grown;
      } else if (op.size > file.size) file.buffer.fill(0, file.size, op.size);
      file.size = op.size;
      this.trace.record('disk.write', { path, truncateTo: op.size });
    }
    if (this.prng.chance(this.faults.backgroundSyncPer1000, 1000)) {
      const delayMs = this.prng.int(1, this.faults.backgroundSyncDelayMsMax);
      this.scheduler.schedule(delayMs, () => this.sync(path, 'writeback'));
    }
  }

  private syncBinary(path: string, reason: 'fsync' | 'writeback'): void {
    const file = this.binaryFiles.get(path);
    if (file === undefined || file.pending.length === 0) return;
    const synced = applyBinaryOps(file.synced, file.pending);
    // Paired with the read back: the synced bytes plus the pending writes are the page cache's.
    assert(synced.length === file.size && bytesEqual(synced, file.buffer.subarray(0, file.size)), `${path}: the page cache is not its synced bytes plus its pending writes`);
    file.synced = synced;
    file.pending = [];
    this.trace.record('disk.sync', { path, reason, bytes: file.size });
  }

  /** writeBackExpired for a binary file: the flusher's ticks that have passed wrote back what was dirty by them. */
  private writeBackExpiredBinary(file: BinaryFileState): void {
    const now = this.scheduler.clock.nowMs();
    while (file.pending.length > 0) {
      const dirtySince = (file.pending[0] as BinaryOp).atMs;
      const tickMs = Math.ceil((dirtySince + dirtyExpireMs) / flusherIntervalMs) * flusherIntervalMs;
      if (tickMs > now) return;
      let written = 0;
      while (written < file.pending.length && (file.pending[written] as BinaryOp).atMs <= tickMs) written++;
      assert(written > 0, 'a writeback tick before the oldest dirty write');
      file.synced = applyBinaryOps(file.synced, file.pending.slice(0, written));
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

/** Binary ops applied in order to bytes: a new array (the old one is left as it was). */
function applyBinaryOps(content: Uint8Array, ops: readonly BinaryOp[]): Uint8Array {
  let capacity = content.length;
  let size = content.length;
  for (const op of ops) {
    size = op.kind === 'truncate' ? op.size : Math.max(size, op.offset + op.data.length);
    capacity = Math.max(capacity, size);
  }
  const out = new Uint8Array(capacity);
  out.set(content);
  size = content.length;
  for (const op of ops) {
    if (op.kind === 'truncate') {
      if (op.size > size) out.fill(0, size, op.size);
      size = op.size;
    } else {
      if (op.offset > size) out.fill(0, size, op.offset);
      out.set(op.data, op.offset);
      size = Math.max(size, op.offset + op.data.length);
    }
  }
  return out.slice(0, size);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** Bytes as a string of one character per byte. */
function latin1(bytes: Uint8Array): string {
  let out = '';
  for (let start = 0; start < bytes.length; start += 8192) out += String.fromCharCode(...bytes.subarray(start, start + 8192));
  return out;
}

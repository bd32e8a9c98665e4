// The session-file repair of a pinned OpenClaw release (`repairSessionFileIfNeeded`, region
// src/agents/session-file-repair.ts: 2026.4.24 dist/wait-for-idle-before-flush-CkZJsBmY.js, 2026.7.1
// dist/session-manager-BKz2VYho.js) in place of the model's (src/session-file-repair.ts), behind
// src/session-file-repair.ts SessionFileRepairPort, asked by the runner at each run attempt before it opens the
// transcript (src/turn.ts openTranscript). Seed code `fr`.
//
// What the releases do (read in the chunks; docs/MODEL.md "The session-file repair, real"):
// - 2026.4.24: the model's rule. Lines split on \r?\n, blank ones skipped, those that do not parse dropped; the first
//   entry must be a session header (type "session", a non-empty string id). A repair writes a backup
//   `<file>.bak-<pid>-<Date.now()>` and a temporary `<file>.repair-<pid>-<Date.now()>.tmp` with fs.promises.writeFile,
//   copies the file's mode to both (stat, chmod) and renames the temporary over the file; nothing is fsynced.
// - 2026.7.1 repairs more: a message entry without a role string is dropped (counted with the malformed lines); an
//   assistant message with empty content and stopReason "error" gets a fallback text; a user message whose text is
//   blank becomes "(continue)" (blank text blocks of a longer content are removed); corrupted base64 images are
//   replaced; code-mode tool calls without a result get a synthetic one. It keeps a per-process cache of the files it
//   found clean (a stat snapshot: dev, ino, size, mtimeNs, ctimeNs): an unchanged snapshot skips the read. It replaces
//   the file with replaceFileAtomic (mkdir -p of the directory with mode 0700, chmod of the directory to 0700, the
//   temporary `<name>.repair.<pid>.<uuid>.tmp` written with flag wx, rename, chmod of the file) and removes its backup
//   afterwards; nothing is fsynced either. It reads the file again after the repair to cache its snapshot.
//
// The adapter runs the release's function in an instance of its own per runner incarnation (module state, the 2026.7.1
// cache among it, dies with the process), loaded at the first repair, with node:fs/promises over the simulated disk
// (below; each call a disk round trip, so a kill can fall between any two of the release's steps) and code generation
// under the hooks (2026.4.24's closure compiles the gateway protocol's schemas with ajv at module level). It passes no
// `trustedSnapshot` (2026.7.1 takes it from its session write lock's controller, which is not run): so the release's
// incremental repair (read only what was appended since a trusted snapshot) never runs, and a cached snapshot equal to
// the file's skips the read, as in the release.
//
// What the simulated disk cannot say: it keeps no inode numbers and no times. The repair's stats carry a modification
// time that changes exactly when the contents did (ModificationTimes), so 2026.7.1's snapshot sees a same-size rewrite
// (a retried attempt's entry with a new timestamp, chaos seed 1) as a real mtime would; inodes stay 0. Checked loudly:
// when the release skips its read, the adapter compares the file with what the release last read of it and reports a
// difference as an escape (the run fails).
import type { ProcessContext, Random } from '../../../src/index.ts';
import { simEpochMs } from '../../../src/pi-format.ts';
import type { SessionFileRepair, SessionFileRepairPort } from '../../../src/session-file-repair.ts';
import { assert } from '../../kernel/assert.ts';
import type { SimDisk } from '../../kernel/disk.ts';
import type { Incarnation } from '../../kernel/process.ts';
import type { Simulation } from '../../kernel/simulation.ts';
import { enoent } from '../openclaw-hooks.mjs';
import { openclawIncarnationBinding, type SimulatedDirectories, simulatedDiskFs } from './binding.ts';
import { componentSource } from './components.ts';
import { OpenclawInstance } from './instance.ts';
import type { OpenclawRelease } from './releases.ts';

/** What the releases' function answers (2026.7.1 adds the counts of its other repairs and a validated snapshot). */
export interface RealSessionFileRepairResult {
  repaired: boolean;
  droppedLines: number;
  reason?: string;
  backupPath?: string;
  rewrittenAssistantMessages?: number;
  droppedBlankUserMessages?: number;
  rewrittenUserMessages?: number;
  removedCorruptedImageBlocks?: number;
  insertedToolResults?: number;
  validatedSnapshot?: unknown;
}

export type RealRepairSessionFileIfNeeded = (params: { sessionFile: string; warn?: (message: string) => void; debug?: (message: string) => void }) => Promise<RealSessionFileRepairResult>;

/** The release's repairSessionFileIfNeeded of an instance. */
export function realRepairFunction(instance: OpenclawInstance): RealRepairSessionFileIfNeeded {
  const { sourceFile, functions } = componentSource('session-file-repair', instance.release);
  return instance.function<RealRepairSessionFileIfNeeded>(sourceFile, functions[0] ?? 'repairSessionFileIfNeeded');
}

function textOf(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  throw new TypeError(`gatesim: the simulated disk takes text or bytes, not ${typeof data}`);
}

function encodingOf(options: unknown): string | undefined {
  return typeof options === 'string' ? options : ((options as { encoding?: string } | null | undefined)?.encoding ?? undefined);
}

function errorOf(code: string, errno: number, syscall: string, path: string, text: string): Error {
  return Object.assign(new Error(`${code}: ${text}, ${syscall} '${path}'`), { code, errno, syscall, path });
}

function parentOf(path: string): string {
  return path.split('/').slice(0, -1).join('/') || '/';
}

/**
 * The modification times of the files the repair stats, as a file system with exact times would report them: the disk
 * keeps no times, so a file's time is the simulated moment a stat first saw its current contents (nanoseconds from
 * the epoch, a sequence number breaking ties within a millisecond). Two stats see the same time exactly when the
 * contents did not change between them, which is all 2026.7.1's snapshot compares: a file rewritten with contents of
 * the same size (a retried attempt's entry with a new timestamp) is changed, as a real mtime says. Changed and changed
 * back between two stats reads as unchanged (a real file system would make the release read it again, to the same
 * result). One table per run, shared by its incarnations (the file system's, not a process's).
 */
export class ModificationTimes {
  private readonly seen = new Map<string, { content: string; ns: bigint }>();
  private lastNs = 0n;

  timeOf(path: string, content: string, epochNowMs: number): bigint {
    const known = this.seen.get(path);
    if (known !== undefined && known.content === content) return known.ns;
    const ns = BigInt(epochNowMs) * 1_000_000n;
    this.lastNs = ns > this.lastNs ? ns : this.lastNs + 1n;
    this.seen.set(path, { content, ns: this.lastNs });
    return this.lastNs;
  }
}

/** Stats with the file's modification (and change) time; with `bigint`, every number a bigint and the ns times added. */
function timedStats(stats: Record<string, unknown>, ns: bigint | undefined, bigint: boolean): object {
  const copy = Object.create(Object.getPrototypeOf(stats) as object) as Record<string, unknown>;
  Object.defineProperty(copy, 'kind', { value: stats.kind });
  Object.assign(copy, stats);
  if (ns !== undefined) {
    const ms = Number(ns / 1_000_000n) + Number(ns % 1_000_000n) / 1_000_000;
    copy.mtimeMs = ms;
    copy.ctimeMs = ms;
    Object.defineProperty(copy, 'mtime', { value: new Date(Math.trunc(ms)), enumerable: true });
    Object.defineProperty(copy, 'ctime', { value: new Date(Math.trunc(ms)), enumerable: true });
  }
  if (!bigint) return copy;
  for (const [key, value] of Object.entries(copy)) if (typeof value === 'number') copy[key] = BigInt(Math.trunc(value));
  for (const key of ['atimeNs', 'birthtimeNs']) copy[key] = 0n;
  copy.mtimeNs = ns ?? 0n;
  copy.ctimeNs = ns ?? 0n;
  return copy;
}

/**
 * node:fs/promises over the simulated disk for the repair's calls: readFile, stat and lstat (with `bigint`), writeFile
 * (flags w and wx), chmod, rename, unlink, rm, mkdir. Reads, writes, renames and removes are the disk's own calls (a
 * latency each, under its durability rules: nothing the release writes is durable before a writeback, since it never
 * fsyncs); stat, chmod and mkdir answer after a read of the path (a disk round trip). A dead incarnation's call never
 * settles. `lastRead` keeps what the release last read of each file. Any other function is loud (the hooks).
 */
export function repairFsPromises(
  disk: SimDisk,
  owner: Incarnation,
  directories: SimulatedDirectories,
  lastRead: Map<string, string>,
  times: ModificationTimes,
  epochNowMs: () => number,
): Record<string, (...args: never[]) => Promise<unknown>> {
  const sync = simulatedDiskFs(disk, owner, directories) as Record<string, (...args: unknown[]) => unknown>;
  const call = (name: string, ...args: unknown[]): unknown => (sync[name] as (...args: unknown[]) => unknown)(...args);
  /** A metadata call: a read of the path first (its latency), then the synchronous answer. */
  const roundTrip = async <T>(path: string, work: () => T): Promise<T> => {
    await disk.read(owner, path);
    return work();
  };
  const stat = (name: 'statSync' | 'lstatSync') => (path: string, options?: { bigint?: boolean }) =>
    roundTrip(path, () => {
      const stats = call(name, path) as Record<string, unknown>;
      const content = disk.readNow(owner, path);
      return timedStats(stats, content === undefined ? undefined : times.timeOf(path, content, epochNowMs()), options?.bigint === true);
    });
  return {
    readFile: async (path: string, options?: unknown): Promise<unknown> => {
      const content = await disk.read(owner, path);
      if (content === undefined) throw directories.mode(disk, path) === undefined ? enoent('open', path) : errorOf('EISDIR', -21, 'read', path, 'illegal operation on a directory');
      lastRead.set(path, content);
      return encodingOf(options) === undefined ? Buffer.from(content, 'utf8') : content;
    },
    stat: stat('statSync'),
    lstat: stat('lstatSync'),
    writeFile: async (path: string, data: unknown, options?: unknown): Promise<void> => {
      const flag = typeof options === 'object' && options !== null ? ((options as { flag?: string }).flag ?? 'w') : 'w';
      const encoding = encodingOf(options);
      if (encoding !== undefined && encoding !== 'utf8' && encoding !== 'utf-8') throw new Error(`gatesim: writeFile with encoding ${encoding} is not simulated (${path})`);
      if (directories.mode(disk, parentOf(path)) === undefined) return roundTrip(path, () => {
        throw enoent('open', path);
      });
      if (flag === 'wx') {
        if (!(await disk.createExclusive(owner, path, textOf(data)))) throw errorOf('EEXIST', -17, 'open', path, 'file already exists');
        return;
      }
      if (flag !== 'w') throw new Error(`gatesim: writeFile with flag ${flag} is not simulated (${path})`);
      await disk.write(owner, path, textOf(data));
    },
    chmod: (path: string, mode: number) => roundTrip(path, () => call('chmodSync', path, mode) as undefined),
    mkdir: (path: string, options?: unknown) => roundTrip(path, () => call('mkdirSync', path, options)),
    rename: async (from: string, to: string): Promise<void> => {
      if (disk.peek(from) === undefined) return roundTrip(from, () => {
        throw enoent('rename', from);
      });
      await disk.rename(owner, from, to);
    },
    unlink: async (path: string): Promise<void> => {
      if (disk.peek(path) === undefined) return roundTrip(path, () => {
        throw enoent('unlink', path);
      });
      await disk.remove(owner, path);
    },
    rm: async (path: string, options?: unknown): Promise<void> => {
      const force = typeof options === 'object' && options !== null && (options as { force?: boolean }).force === true;
      if (disk.peek(path) === undefined) return roundTrip(path, () => {
        if (!force) throw enoent('rm', path);
      });
      await disk.remove(owner, path);
    },
  };
}

/** The release's repair of one runner incarnation, as the model's port. */
export class RealSessionFileRepair implements SessionFileRepairPort {
  private repairFn: RealRepairSessionFileIfNeeded | undefined;

  constructor(
    private readonly instance: () => OpenclawInstance,
    private readonly disk: SimDisk,
    private readonly owner: Incarnation,
    private readonly lastRead: Map<string, string>,
    private readonly escaped: (what: string) => void,
  ) {}

  async repair(path: string): Promise<SessionFileRepair> {
    this.repairFn ??= realRepairFunction(this.instance());
    const readBefore = this.lastRead.get(path);
    this.lastRead.delete(path);
    const result = await this.repairFn({ sessionFile: path });
    assert(typeof result.repaired === 'boolean' && typeof result.droppedLines === 'number', 'the release answers whether it repaired and how many lines it dropped');
    if (result.repaired) return { repaired: true, droppedLines: result.droppedLines, backupPath: result.backupPath ?? null };
    const reason = result.reason;
    if (reason !== undefined) {
      assert(reason === 'missing session file' || reason === 'empty session file' || reason === 'invalid session header' || reason.startsWith('failed to read session file: ') || reason.startsWith('repair failed: '), `the release's reason ${reason}`);
      return { repaired: false, droppedLines: result.droppedLines, reason: reason as NonNullable<Extract<SessionFileRepair, { repaired: false }>['reason']> };
    }
    const content = this.disk.readNow(this.owner, path);
    if (!this.lastRead.has(path)) {
      // The release took the file as unchanged since its last clean look (2026.7.1's snapshot cache): it must be.
      if (readBefore === undefined || content !== readBefore) this.escaped(`2026.7.1's session-file repair cache took ${path} as unchanged, but it changed since the release last read it`);
      if (readBefore !== undefined) this.lastRead.set(path, readBefore);
    }
    // The fixed runner's step beyond OpenClaw reads whether the clean file's last line lacks its newline.
    return content !== undefined && content.length > 0 && !content.endsWith('\n') ? { repaired: false, droppedLines: 0, unterminated: true } : { repaired: false, droppedLines: 0 };
  }
}

/**
 * The runner's repair factory of a run: one repair (and one instance, made at its first call) per runner incarnation,
 * with node:fs over the simulated disk as the incarnation sees it and a PRNG stream of its own.
 */
export function realSessionFileRepairs(sim: Simulation, release: OpenclawRelease, home: SimulatedDirectories, onEscape: (what: string) => void): (ctx: ProcessContext) => SessionFileRepairPort {
  let current: { incarnation: number; repair: RealSessionFileRepair } | undefined;
  const times = new ModificationTimes();
  return (ctx) => {
    if (current?.incarnation === ctx.incarnation) return current.repair;
    const owner = sim.processes.incarnation(ctx.incarnation);
    assert(owner !== undefined, `no incarnation ${ctx.incarnation} for ${ctx.name}`);
    const escaped = (what: string) => onEscape(`${ctx.name}#${ctx.incarnation}: ${what}`);
    const lastRead = new Map<string, string>();
    const instance = () => {
      const random = sim.prng.fork(`openclaw/${ctx.name}/${ctx.incarnation}/session-file-repair`) as Random;
      const binding = openclawIncarnationBinding(release, owner, { clock: ctx.clock, timers: ctx.timers, random }, { fs: simulatedDiskFs(sim.disk, owner, home), fsPromises: repairFsPromises(sim.disk, owner, home, lastRead, times, () => simEpochMs + ctx.clock.nowMs()), onEscape: escaped });
      binding.codeGeneration = true;
      return new OpenclawInstance(release, binding);
    };
    current = { incarnation: ctx.incarnation, repair: new RealSessionFileRepair(instance, sim.disk, owner, lastRead, escaped) };
    return current.repair;
  };
}

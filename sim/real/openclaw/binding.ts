// What an instance of a release's chunks is bound to: one simulated process incarnation. Its clock (Date from
// simEpochMs, as the model's and pi's timestamps are), its timers (fenced by the incarnation: a kill cancels them), a
// PRNG stream, a pid, an environment, a home and a cwd, and the simulated disk as node:fs sees it. Every use of
// something the hooks do not simulate is recorded in `escapes` (and thrown), so a run can fail on it even when the
// real code caught the error.
import { simEpochMs } from '../../../src/pi-format.ts';
import type { Clock, Random, Timers } from '../../../src/ports.ts';
import type { SimDisk } from '../../kernel/disk.ts';
import type { Incarnation } from '../../kernel/process.ts';
import { assert } from '../../kernel/assert.ts';
import { uuidV4 } from '../bindings.ts';
import { enoent, type HooksBinding, loaderBeforeRound2, readStreamContents, releasePackageDir, simulatedDirent, simulatedStats, virtualPackageRoot } from '../openclaw-hooks.mjs';
import { type OpenclawRelease, openclawReleases, requireRelease, workspaceMissing } from './releases.ts';

export interface OpenclawBinding extends HooksBinding {
  /** Every host access the hooks refused, in order (empty in a clean run). */
  readonly escapes: string[];
  /** What the instance wrote to console, process.stdout and process.stderr, as `<level>: <text>`. */
  readonly logs: string[];
}

export interface OpenclawBindingOptions {
  clock: Clock;
  timers: Timers;
  /** The instance's own PRNG stream (Math.random, crypto.randomUUID, randomBytes). */
  random: Random;
  /** False once the incarnation is dead (the instance's queued microtasks then never run). */
  alive: () => boolean;
  pid?: number;
  ppid?: number;
  env?: Record<string, string>;
  home?: string;
  cwd?: string;
  /** node:fs functions over the simulated disk (simulatedDiskFs); without them, a chunk's disk access throws. */
  fs?: Record<string, (...args: never[]) => unknown>;
  fsPromises?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** The simulated process table (`process.kill(pid, 0)`); without it a kill is not simulated. */
  processes?: SimulatedProcesses;
  /** Called on each escape as well (a harness may fail the run at once). */
  onEscape?: (what: string) => void;
  /** Keep at most this many log lines (the oldest go first). */
  maxLogLines?: number;
}

export const openclawDefaultHome = '/home/openclaw';

export function openclawBinding(release: OpenclawRelease, options: OpenclawBindingOptions): OpenclawBinding {
  requireRelease(release);
  const packageHostDir = releasePackageDir(release);
  if (packageHostDir === undefined) throw workspaceMissing(release);
  const home = options.home ?? openclawDefaultHome;
  const escapes: string[] = [];
  const logs: string[] = [];
  const maxLogLines = options.maxLogLines ?? 1_000;
  const binding: OpenclawBinding = {
    escapes,
    logs,
    epochNowMs: () => simEpochMs + options.clock.nowMs(),
    monotonicMs: () => options.clock.nowMs(),
    setTimer: (delayMs, fn) => options.timers.setTimer(delayMs, fn),
    randomInt: (min, max) => options.random.int(min, max),
    uuidV4: () => uuidV4(options.random),
    alive: options.alive,
    escaped: (what) => {
      escapes.push(what);
      options.onEscape?.(what);
    },
    log: (level, text) => {
      logs.push(`${level}: ${text}`);
      if (logs.length > maxLogLines) logs.shift();
    },
    pid: options.pid ?? 4242,
    ppid: options.ppid ?? 1,
    env: { HOME: home, ...(options.env ?? {}) },
    cwd: options.cwd ?? home,
    home,
    tmpdir: '/tmp',
    hostname: 'gatesim',
    packageRoot: virtualPackageRoot(release),
    packageHostDir: packageHostDir.replace(/\/$/, ''),
    // The JSONL-era releases see no node:sqlite on any Node, as on Node 20: where it exists (their own Nodes, 22 and
    // later) 2026.7.1 keeps a state database in it, which the simulated disk does not hold until node:sqlite is
    // simulated (docs/MODEL.md, "2026.7.1 on the Node its engines name keeps a state database"). So their runs take
    // the release's path for its absence, and give the same traces on Node 20 and 24.
    ...((openclawReleases as readonly string[]).includes(release) ? { absentBuiltins: ['sqlite'] } : {}),
  };
  if (options.fs !== undefined) binding.fs = options.fs;
  if (options.fsPromises !== undefined) binding.fsPromises = options.fsPromises;
  const processes = options.processes;
  if (processes !== undefined) binding.processExists = (pid) => processes.at(pid)?.alive === true;
  return binding;
}

/** The binding of one simulated incarnation: its clock, timers and liveness; the pid derived from its id. */
export function openclawIncarnationBinding(
  release: OpenclawRelease,
  owner: Incarnation,
  ports: { clock: Clock; timers: Timers; random: Random },
  options: Omit<OpenclawBindingOptions, 'clock' | 'timers' | 'random' | 'alive'> = {},
): OpenclawBinding {
  return openclawBinding(release, { pid: pidOfIncarnation(owner.id), ...options, ...ports, alive: () => owner.alive });
}

/** The pid of a simulated incarnation: unique on the machine for the run (a pid is never recycled). */
export function pidOfIncarnation(id: number): number {
  return 1000 + id;
}

/** What the simulated machine's process table says of a pid (`kill(pid, 0)`, `/proc/<pid>/...`). */
export interface SimulatedProcess {
  pid: number;
  alive: boolean;
  stopped: boolean;
  /** When it started, simulated ms from the machine's boot (the simulation's start). */
  startedAtMs: number;
  /** Its command line (`/proc/<pid>/cmdline`). */
  argv: readonly string[];
}

export interface SimulatedProcesses {
  /** The process with this pid, alive or dead, or undefined when no process ever had it. */
  at(pid: number): SimulatedProcess | undefined;
}

/**
 * The process table of a simulation as a machine's: each incarnation a pid (pidOfIncarnation), alive until killed, its
 * start time the incarnation's. The gateway and the runner are OpenClaw's own processes (in OpenClaw the run attempt
 * runs inside the gateway), so their command line is the gateway's, `node <package>/openclaw.mjs gateway`; any other
 * process of the simulated machine is a node script of its own.
 */
export function simulatedProcesses(table: { incarnation(id: number): Incarnation | undefined }, packageRoot: string): SimulatedProcesses {
  return {
    at: (pid) => {
      const incarnation = Number.isSafeInteger(pid) && pid > 1000 ? table.incarnation(pid - 1000) : undefined;
      if (incarnation === undefined) return undefined;
      const openclaw = incarnation.name === 'gateway' || incarnation.name === 'runner';
      return {
        pid,
        alive: incarnation.alive,
        stopped: incarnation.stopped,
        startedAtMs: incarnation.startedAtMs,
        argv: openclaw ? ['/usr/bin/node', `${packageRoot}/openclaw.mjs`, 'gateway'] : ['/usr/bin/node', `/gatesim/${incarnation.name}.js`],
      };
    },
  };
}

/**
 * The simulated machine's one filesystem: ext4 at / (/proc/self/mountinfo, and fs.statfsSync's `type`). 2026.9.6 probes
 * both before it puts a SQLite database in WAL mode (dist/sqlite-wal-*.mjs: WAL on a local filesystem, rollback on a
 * network one).
 */
const simulatedMountInfo = '1 0 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n';
const ext4SuperMagic = 0xef53;

/** Linux's USER_HZ: /proc/<pid>/stat counts times in ticks of 10 ms. */
const ticksPerSecond = 100;

/**
 * The files of /proc/<pid>/ a component reads, for a live simulated process (a dead one has none): `stat` (its start
 * time in ticks since boot as field 22), `status` (State: S, or T when SIGSTOPped; never a zombie, since the simulated
 * supervisor reaps at once) and `cmdline` (NUL-separated). Any other /proc path does not exist.
 */
export function procFile(processes: SimulatedProcesses | undefined, path: string): string | undefined {
  if (path === '/proc/self/mountinfo') return simulatedMountInfo;
  const match = /^\/proc\/(\d+)\/(stat|status|cmdline)$/.exec(path);
  const process = match === null ? undefined : processes?.at(Number(match[1]));
  if (match === null || process === undefined || !process.alive) return undefined;
  const state = process.stopped ? 'T' : 'S';
  if (match[2] === 'cmdline') return `${process.argv.join('\0')}\0`;
  if (match[2] === 'status') return `Name:\tnode\nState:\t${state} (${process.stopped ? 'stopped' : 'sleeping'})\nPid:\t${process.pid}\nPPid:\t1\n`;
  const starttime = Math.floor((process.startedAtMs * ticksPerSecond) / 1000);
  // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
  // priority nice num_threads itrealvalue starttime vsize rss
  return `${process.pid} (node) ${state} 1 ${process.pid} ${process.pid} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 ${starttime} 0 0\n`;
}

/**
 * The directories of the simulated disk: a path some file lies under is a directory (mode 0755), and so is one a
 * component made with mkdirSync (the mode it asked for, changed by chmodSync). The disk itself keeps files only; this
 * table lives as long as the run's disk (one per run, shared by its incarnations), and a directory made is durable at
 * once (metadata, as the disk's file creation is).
 */
export class SimulatedDirectories {
  private readonly made = new Map<string, number>();

  /**
   * The machine's own directories: /tmp (sticky, world-writable), /home and each home given. `installed` are files the
   * machine had before the run (an OpenClaw config, a session store): read where the disk has no file of that path,
   * never written to the disk, so they add nothing to the trace (a component that writes one writes the disk's copy).
   */
  constructor(
    homes: readonly string[] = [openclawDefaultHome],
    readonly installed: Map<string, string> = new Map(),
  ) {
    this.made.set('/tmp', 0o1777);
    this.made.set('/home', 0o755);
    for (const home of homes) this.made.set(home, 0o755);
  }

  mode(disk: SimDisk, path: string): number | undefined {
    const normal = path.length > 1 ? path.replace(/\/+$/, '') : path;
    const made = this.made.get(normal);
    if (made !== undefined) return made;
    if (normal === '/') return 0o755;
    const prefix = `${normal}/`;
    const under = (path: string) => path.startsWith(prefix);
    return disk.paths().some(under) || [...this.made.keys()].some(under) || [...this.installed.keys()].some(under) ? 0o755 : undefined;
  }

  make(path: string, mode: number): void {
    const normal = path.replace(/\/+$/, '');
    assert(normal.startsWith('/'), `a simulated directory is absolute: ${path}`);
    this.made.set(normal, mode & 0o7777);
  }

  /**
   * Files a component created through fs/promises `open` (the session write lock's lock files): an inode number and the
   * time of the last write (simulated wall-clock ms), which their Stats report. The disk keeps neither; every other
   * file reports inode 0 and time 0. Metadata, durable at once (as the disk's file creation is).
   */
  private readonly files = new Map<string, { ino: number; mtimeMs: number }>();
  private lastIno = 0;

  /** A new file at `path` (a new inode), written at `nowMs`. */
  created(path: string, nowMs: number): number {
    this.lastIno += 1;
    this.files.set(path, { ino: this.lastIno, mtimeMs: nowMs });
    return this.lastIno;
  }

  /** The file at `path` was written at `nowMs` (when it is still inode `ino`). */
  written(path: string, ino: number, nowMs: number): void {
    const meta = this.files.get(path);
    if (meta?.ino === ino) meta.mtimeMs = nowMs;
  }

  removed(path: string): void {
    this.files.delete(path);
  }

  /** The inode and write time of a created file that is still on the disk, else undefined. */
  metaOf(disk: SimDisk, path: string): { ino: number; mtimeMs: number } | undefined {
    const meta = this.files.get(path);
    const present = onDisk(disk, path);
    if (meta !== undefined && !present) this.files.delete(path);
    return present ? meta : undefined;
  }

  /** Children made with mkdirSync directly under `prefix` (which ends with a slash). */
  madeUnder(prefix: string): string[] {
    return [...this.made.keys()].filter((dir) => dir.startsWith(prefix) && !dir.slice(prefix.length).includes('/')).map((dir) => dir.slice(prefix.length));
  }
}

/**
 * Whether a file is on the simulated disk, without reading it: a binary file (the simulated node:sqlite's database and
 * WAL) is, and disk.peek of one copies its bytes into a string of one character per byte, which a stat or an existence
 * check of a database of a few MB did each time (issue 46: over half of a 2026.9.6 chaos run's CPU).
 */
function onDisk(disk: SimDisk, path: string): boolean {
  return disk.isBinary(path) || disk.peek(path) !== undefined;
}

/** A Stats of a path whose content (file; only its length is read) is known or not (a directory, or missing: ENOENT unless throwIfNoEntry is false). */
function statOf(disk: SimDisk, directories: SimulatedDirectories, path: string, content: { readonly length: number } | undefined, options?: { throwIfNoEntry?: boolean }): object | undefined {
  const directoryMode = content === undefined ? directories.mode(disk, path) : undefined;
  if (content === undefined && directoryMode === undefined) {
    if (options?.throwIfNoEntry === false) return undefined;
    throw enoent('stat', path);
  }
  if (content === undefined) return simulatedStats('directory', 4096, directoryMode);
  const stats = simulatedStats('file', content.length) as { ino: number; mtimeMs: number; mtime?: Date; ctimeMs: number };
  const meta = directories.metaOf(disk, path);
  if (meta !== undefined) {
    stats.ino = meta.ino;
    stats.mtimeMs = meta.mtimeMs;
    stats.ctimeMs = meta.mtimeMs;
    Object.defineProperty(stats, 'mtime', { value: new Date(meta.mtimeMs), enumerable: true });
  }
  return stats;
}

function parentOf(path: string): string {
  return path.split('/').slice(0, -1).join('/') || '/';
}

function textOf(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  throw new TypeError(`gatesim: the simulated disk takes text or bytes, not ${typeof data}`);
}

/** The first descriptor number of the simulated disk's files (the package views' start at 100: hooks fs.mjs). */
const firstDiskDescriptor = 10_000;

/**
 * Descriptors of the simulated disk's files: openSync with a string flag (`r`, `r+`, `w`, `w+`, `wx`, `a`, `a+`, `ax`),
 * readSync and writeSync (at the descriptor's position or at the one given; an append descriptor appends), fstatSync,
 * closeSync; each call takes effect at once (the disk's *Now calls: a blocking call holds the thread). Writes are
 * volatile until written back, as the disk's are. No fsyncSync or fdatasyncSync: the simulated disk has no synchronous
 * sync, so they stay loud (the hooks), as does a numeric flag.
 */
function diskDescriptors(
  disk: SimDisk,
  owner: Incarnation,
  directories: SimulatedDirectories,
  read: (path: string) => string | undefined,
  stat: (path: string, options?: { throwIfNoEntry?: boolean }) => unknown,
  present: (path: string) => boolean,
): Record<string, (...args: never[]) => unknown> {
  const open = new Map<number, { path: string; readable: boolean; writable: boolean; append: boolean; position: number }>();
  let next = firstDiskDescriptor;
  const described = (fd: number, syscall: string) => {
    const found = open.get(fd);
    if (found === undefined) throw Object.assign(new Error(`EBADF: bad file descriptor, ${syscall}`), { code: 'EBADF', errno: -9, syscall });
    return found;
  };
  const bytesOf = (path: string): Buffer => Buffer.from(read(path) ?? '', 'utf8');
  return {
    openSync: (path: string, flags: unknown = 'r') => {
      if (typeof flags !== 'string' || !/^(?:r\+?|w\+?|wx\+?|a\+?|ax\+?)$/.test(flags)) throw new Error(`gatesim: openSync with the flag ${String(flags)} is not simulated (${path})`);
      const exists = present(path);
      if (flags.startsWith('r') && !exists) throw enoent('open', path);
      if (flags.includes('x') && exists) throw Object.assign(new Error(`EEXIST: file already exists, open '${path}'`), { code: 'EEXIST', errno: -17, syscall: 'open', path });
      if (!flags.startsWith('r') && directories.mode(disk, parentOf(path)) === undefined) throw enoent('open', path);
      if (flags.startsWith('w')) disk.writeNow(owner, path, '');
      else if (flags.startsWith('a') && !exists) disk.writeNow(owner, path, '');
      const fd = next++;
      open.set(fd, { path, readable: flags.startsWith('r') || flags.includes('+'), writable: !flags.startsWith('r') || flags.includes('+'), append: flags.startsWith('a'), position: 0 });
      return fd;
    },
    readSync: (fd: number, buffer: Uint8Array, offsetOrOptions?: unknown, lengthArg?: number, positionArg?: number | bigint | null) => {
      const file = described(fd, 'read');
      if (!file.readable) throw Object.assign(new Error('EBADF: bad file descriptor, read'), { code: 'EBADF', errno: -9, syscall: 'read' });
      const options = typeof offsetOrOptions === 'object' && offsetOrOptions !== null ? (offsetOrOptions as { offset?: number; length?: number; position?: number | bigint | null }) : { offset: offsetOrOptions as number | undefined, length: lengthArg, position: positionArg };
      const offset = options.offset ?? 0;
      const length = options.length ?? buffer.byteLength - offset;
      const explicit = typeof options.position === 'number' || typeof options.position === 'bigint';
      const from = explicit ? Number(options.position) : file.position;
      const bytes = bytesOf(file.path);
      const count = Math.max(0, Math.min(length, bytes.length - from));
      new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength).set(bytes.subarray(from, from + count), offset);
      if (!explicit) file.position += count;
      return count;
    },
    writeSync: (fd: number, data: unknown, offsetOrPosition?: unknown, lengthOrEncoding?: unknown, positionArg?: number | null) => {
      const file = described(fd, 'write');
      if (!file.writable) throw Object.assign(new Error('EBADF: bad file descriptor, write'), { code: 'EBADF', errno: -9, syscall: 'write' });
      // writeSync(fd, string[, position[, encoding]]) or writeSync(fd, buffer[, offset[, length[, position]]]).
      let chunk: Buffer;
      let position: number | null | undefined;
      if (typeof data === 'string') {
        chunk = Buffer.from(data, typeof lengthOrEncoding === 'string' ? (lengthOrEncoding as BufferEncoding) : 'utf8');
        position = typeof offsetOrPosition === 'number' ? offsetOrPosition : null;
      } else if (data instanceof Uint8Array) {
        const offset = typeof offsetOrPosition === 'number' ? offsetOrPosition : 0;
        const length = typeof lengthOrEncoding === 'number' ? lengthOrEncoding : data.byteLength - offset;
        chunk = Buffer.from(data.buffer, data.byteOffset + offset, length);
        position = positionArg ?? null;
      } else throw new TypeError(`gatesim: writeSync takes a string or bytes, not ${typeof data}`);
      const current = bytesOf(file.path);
      const at = file.append ? current.length : (position ?? file.position);
      if (at === current.length) disk.appendNow(owner, file.path, chunk.toString('utf8'));
      else {
        const end = Math.max(current.length, at + chunk.length);
        const merged = Buffer.alloc(end);
        current.copy(merged, 0);
        chunk.copy(merged, at);
        disk.writeNow(owner, file.path, merged.toString('utf8'));
      }
      if (position === null || position === undefined || file.append) file.position = at + chunk.length;
      return chunk.length;
    },
    fstatSync: (fd: number) => stat(described(fd, 'fstat').path),
    closeSync: (fd: number) => {
      described(fd, 'close');
      open.delete(fd);
    },
  };
}

/**
 * node:fs over the simulated disk, as one incarnation sees it: existence, contents, listings, stats, and the
 * synchronous writes the components loaded so far make (whole-file writes and appends through the disk's *Now calls,
 * under its durability rules; directories in `directories`). Anything else a component calls fails loudly (the hooks).
 */
export function simulatedDiskFs(disk: SimDisk, owner: Incarnation, directories = new SimulatedDirectories(), processes?: SimulatedProcesses): Record<string, (...args: never[]) => unknown> {
  const read = (path: string): string | undefined => (path.startsWith('/proc/') ? (owner.alive ? procFile(processes, path) : undefined) : (disk.readNow(owner, path) ?? (owner.alive ? directories.installed.get(path) : undefined)));
  // A live incarnation's binary file, as its bytes (a copy), without the string of one character per byte read() makes.
  const binary = (path: string): Uint8Array | undefined => (owner.alive && disk.isBinary(path) ? disk.peekBytes(path) : undefined);
  // A binary file's size without a copy of its bytes (statOf reads only the length of what it is given).
  const binaryFiles = disk.binaryFilesOf(owner);
  const binaryLength = (path: string): { length: number } | undefined => {
    if (loaderBeforeRound2()) return binary(path);
    const size = binaryFiles.size(path);
    return size === undefined ? undefined : { length: size };
  };
  const stat = (path: string, options?: { throwIfNoEntry?: boolean }) => statOf(disk, directories, path, binaryLength(path) ?? read(path), options);
  // Whether read(path) would answer a file, without making its text: a live incarnation's binary file is one (read()
  // answers its bytes as one character per byte, a copy of the whole database that chmodSync and openSync dropped:
  // 2026.9.6 chmods its state and agent databases at every open, about a sixth of its CPU in a chaos run).
  const present = (path: string): boolean => (!loaderBeforeRound2() && owner.alive && !path.startsWith('/proc/') && disk.isBinary(path)) || read(path) !== undefined;
  const exists = (path: string) => stat(path, { throwIfNoEntry: false }) !== undefined;
  return {
    existsSync: exists,
    readFileSync: (path: string, options?: unknown) => {
      const encoding = typeof options === 'string' ? options : (options as { encoding?: string } | undefined)?.encoding;
      // A binary file (the simulated node:sqlite's database and WAL) is its bytes, not text.
      const bytes = binary(path);
      if (bytes !== undefined) return encoding === undefined ? Buffer.from(bytes) : Buffer.from(bytes).toString(encoding as BufferEncoding);
      const content = read(path);
      if (content === undefined) throw enoent('open', path);
      return encoding === undefined ? Buffer.from(content, 'utf8') : content;
    },
    readdirSync: (path: string, options?: { withFileTypes?: boolean }) => {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const children = new Map<string, 'file' | 'directory'>();
      for (const file of [...disk.paths(), ...directories.installed.keys()]) {
        if (!file.startsWith(prefix)) continue;
        const rest = file.slice(prefix.length);
        const slash = rest.indexOf('/');
        children.set(slash < 0 ? rest : rest.slice(0, slash), slash < 0 ? 'file' : 'directory');
      }
      for (const name of directories.madeUnder(prefix)) children.set(name, 'directory');
      if (children.size === 0 && directories.mode(disk, path) === undefined) throw enoent('scandir', path);
      const names = [...children.keys()].sort();
      if (options?.withFileTypes !== true) return names;
      return names.map((name) => simulatedDirent(name, path, children.get(name) ?? 'file'));
    },
    statSync: stat,
    lstatSync: stat,
    realpathSync: (path: string) => {
      if (!exists(path)) throw enoent('realpath', path);
      return path;
    },
    // The filesystem of an existing path: the machine's ext4 (simulatedMountInfo); the sizes are nominal.
    statfsSync: (path: string) => {
      if (!exists(path)) throw enoent('statfs', path);
      return { type: ext4SuperMagic, bsize: 4096, blocks: 26_214_400, bfree: 13_107_200, bavail: 13_107_200, files: 6_553_600, ffree: 6_000_000 };
    },
    accessSync: (path: string) => {
      if (!exists(path)) throw enoent('access', path);
    },
    mkdirSync: (path: string, options?: { recursive?: boolean; mode?: number } | number) => {
      const mode = typeof options === 'number' ? options : (options?.mode ?? 0o777);
      const recursive = typeof options === 'object' && options.recursive === true;
      if (exists(path)) {
        if (recursive) return undefined;
        throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${path}'`), { code: 'EEXIST', errno: -17, syscall: 'mkdir', path });
      }
      const parts = path.replace(/\/+$/, '').split('/');
      for (let depth = 2; depth < parts.length; depth++) {
        const ancestor = parts.slice(0, depth).join('/');
        if (exists(ancestor)) continue;
        if (!recursive) throw enoent('mkdir', path);
        directories.make(ancestor, 0o755);
      }
      // umask 022, as the simulated process reports.
      directories.make(path, mode & ~0o022);
      return recursive ? path : undefined;
    },
    writeFileSync: (path: string, data: unknown, options?: unknown) => {
      if (directories.mode(disk, parentOf(path)) === undefined) throw enoent('open', path);
      const flag = typeof options === 'object' && options !== null ? (options as { flag?: string }).flag : undefined;
      if (flag !== undefined && flag !== 'w') throw new Error(`gatesim: writeFileSync with flag ${flag} is not simulated (${path})`);
      disk.writeNow(owner, path, textOf(data));
    },
    appendFileSync: (path: string, data: unknown) => {
      if (directories.mode(disk, parentOf(path)) === undefined) throw enoent('open', path);
      disk.appendNow(owner, path, textOf(data));
    },
    chmodSync: (path: string, mode: number) => {
      if (present(path)) return;
      if (directories.mode(disk, path) === undefined) throw enoent('chmod', path);
      directories.make(path, mode);
    },
    ...diskDescriptors(disk, owner, directories, read, stat, present),
    // A read stream of the file's contents as they are now, for the simulated node:readline (the hooks); a stream's
    // own events and reads are not simulated (loud).
    createReadStream: (path: string, options?: unknown) => {
      const content = read(path);
      if (content === undefined) throw enoent('open', path);
      const encoding = typeof options === 'string' ? options : (options as { encoding?: string } | undefined)?.encoding;
      if (encoding !== 'utf-8' && encoding !== 'utf8') throw new Error(`gatesim: createReadStream without a utf-8 encoding is not simulated (${path})`);
      return simulatedReadStream(path, content);
    },
  };
}

/** A read stream for node:readline only: it carries the contents; `destroy` and `close` end it, any other use throws. */
function simulatedReadStream(path: string, content: string): object {
  const stream: Record<string | symbol, unknown> = { [readStreamContents]: content, path, destroy: () => stream, close: () => undefined };
  return new Proxy(stream, {
    get(target, key) {
      if (typeof key === 'symbol' || key in target) return target[key];
      if (key === 'then' || key === 'toJSON') return undefined;
      throw new Error(`gatesim: ReadStream.${key} is not simulated (${path})`);
    },
  });
}

function errorOf(code: string, errno: number, syscall: string, path: string, text: string): Error {
  return Object.assign(new Error(`${code}: ${text}, ${syscall} '${path}'`), { code, errno, syscall, path });
}

/** Whether fs `rm`'s options say `force` (a missing path is no error). */
function forced(options: unknown): boolean {
  return typeof options === 'object' && options !== null && (options as { force?: boolean }).force === true;
}

/**
 * node:fs/promises over the simulated disk, as one incarnation sees it: what the session write lock calls (`mkdir`,
 * `realpath`, `open` with `wx` and its file handle's `writeFile`, `stat` and `close`, `readFile`, `stat`, `lstat`,
 * `rm`, and its startup sweep's `readdir`). Reads, writes and removes are the disk's own calls (a latency each, under its durability rules: a lock file is
 * created empty, exclusively, and its payload written through the handle, so a power loss between the two, or before
 * the payload is written back, leaves an empty file); metadata calls answer in an event of the incarnation at the same
 * millisecond. A dead incarnation's call never settles (the kernel's fence). Files created here get an inode and a
 * write time (SimulatedDirectories). A handle's other properties, and any other function, fail loudly.
 */
export function simulatedDiskFsPromises(
  disk: SimDisk,
  owner: Incarnation,
  directories: SimulatedDirectories,
  epochNowMs: () => number,
  escaped: (what: string) => void,
  processes?: SimulatedProcesses,
): Record<string, (...args: never[]) => Promise<unknown>> {
  const sync = simulatedDiskFs(disk, owner, directories, processes);
  /** Answered in an event of the incarnation now (fenced: never, once it is dead). */
  const now = <T>(work: () => T): Promise<T> => owner.later(() => 0, work);
  const call = <T>(name: string, ...args: unknown[]): T => (sync[name] as (...args: unknown[]) => T)(...args);
  const encodingOf = (options: unknown): string | undefined => (typeof options === 'string' ? options : ((options as { encoding?: string } | null | undefined)?.encoding ?? undefined));
  const loud = (what: string): Error => {
    escaped(what);
    return new Error(`gatesim: ${what} is not simulated (a real OpenClaw component reached for the host)`);
  };
  let nextFd = 200;
  const fileHandle = (path: string, ino: number): object => {
    const fd = nextFd++;
    let closed = false;
    const linked = () => directories.metaOf(disk, path)?.ino === ino;
    const handle: Record<string, unknown> = {
      fd,
      writeFile: async (data: unknown, options?: unknown): Promise<void> => {
        if (closed) throw errorOf('EBADF', -9, 'write', path, 'bad file descriptor');
        const encoding = encodingOf(options);
        if (encoding !== undefined && encoding !== 'utf8' && encoding !== 'utf-8') throw loud(`FileHandle.writeFile with encoding ${encoding}`);
        const text = textOf(data);
        // Written to the file's inode: the path's, unless the file was removed (or replaced) since it was opened.
        if (!linked()) return now(() => undefined);
        // The disk's write takes effect when called (then a latency), and so does its time.
        if (owner.alive) directories.written(path, ino, epochNowMs());
        await disk.write(owner, path, text);
      },
      stat: (): Promise<object> =>
        now(() => {
          if (closed) throw errorOf('EBADF', -9, 'fstat', path, 'bad file descriptor');
          const stats = statOf(disk, directories, path, linked() ? disk.readNow(owner, path) : '', {}) as { ino: number };
          stats.ino = ino;
          return stats;
        }),
      close: (): Promise<void> =>
        now(() => {
          closed = true;
        }),
    };
    return new Proxy(handle, {
      get(target, key) {
        if (typeof key === 'symbol' || key in target) return target[key as string];
        if (key === 'then' || key === 'toJSON') return undefined;
        throw loud(`FileHandle.${key}`);
      },
    });
  };
  /**
   * `open(path, 'r')` (a file that must exist, or a directory: its handle syncs, a no-op, since the disk's metadata is
   * durable at once), `open(path, 'a+')` (created empty when missing) and `open(path, 'w')` (created or truncated): a
   * handle whose `stat` and `read` see the file's bytes as they are at each call, whose `appendFile` (a+) is the disk's
   * append, `writeFile` (w) the disk's write, and `sync` the disk's fsync.
   */
  const openWithFlags = async (path: string, flags: 'r' | 'a+' | 'w'): Promise<object> => {
    const isDirectory = flags === 'r' && !onDisk(disk, path) && directories.mode(disk, path) !== undefined;
    if (isDirectory) await now(() => undefined);
    else if (flags === 'r' || directories.mode(disk, parentOf(path)) === undefined) {
      if ((await disk.read(owner, path)) === undefined) throw enoent('open', path);
    } else if (flags === 'w') await disk.write(owner, path, '');
    else if (!onDisk(disk, path)) await disk.createExclusive(owner, path, '');
    let closed = false;
    const bytes = (): Buffer => Buffer.from(disk.readNow(owner, path) ?? '', 'utf8');
    const open = (syscall: string) => {
      if (closed) throw errorOf('EBADF', -9, syscall, path, 'bad file descriptor');
    };
    const writable = (syscall: string, flag: 'a+' | 'w', data: unknown, options: unknown): string => {
      open(syscall);
      if (flags !== flag) throw errorOf('EBADF', -9, syscall, path, 'bad file descriptor');
      const encoding = encodingOf(options);
      if (encoding !== undefined && encoding !== 'utf8' && encoding !== 'utf-8') throw loud(`FileHandle.${syscall} with encoding ${encoding}`);
      return textOf(data);
    };
    const handle: Record<string, unknown> = {
      fd: nextFd++,
      sync: async (): Promise<void> => {
        open('fsync');
        if (isDirectory) return now(() => undefined);
        await disk.fsync(owner, path);
      },
      close: (): Promise<void> =>
        now(() => {
          closed = true;
        }),
    };
    if (!isDirectory) {
      handle.stat = (): Promise<object> =>
        now(() => {
          open('fstat');
          return { ...(statOf(disk, directories, path, disk.readNow(owner, path) ?? '', {}) as object), size: bytes().length, isFile: () => true, isDirectory: () => false };
        });
      handle.read = (buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number; buffer: Buffer }> =>
        now(() => {
          open('read');
          const source = bytes();
          const bytesRead = Math.max(0, Math.min(length, source.length - position));
          source.copy(buffer, offset, position, position + bytesRead);
          return { bytesRead, buffer };
        });
      handle.appendFile = async (data: unknown, options?: unknown): Promise<void> => disk.append(owner, path, writable('appendFile', 'a+', data, options));
      handle.writeFile = async (data: unknown, options?: unknown): Promise<void> => disk.write(owner, path, writable('writeFile', 'w', data, options));
    }
    return new Proxy(handle, {
      get(target, key) {
        if (typeof key === 'symbol' || key in target) return target[key as string];
        if (key === 'then' || key === 'toJSON') return undefined;
        throw loud(`FileHandle.${key}`);
      },
    });
  };
  return {
    readFile: async (path: string, options?: unknown): Promise<unknown> => {
      if (path.startsWith('/proc/')) return now(() => call('readFileSync', path, options));
      const content = (await disk.read(owner, path)) ?? (owner.alive ? directories.installed.get(path) : undefined);
      if (content === undefined) throw directories.mode(disk, path) === undefined ? enoent('open', path) : errorOf('EISDIR', -21, 'read', path, 'illegal operation on a directory');
      return encodingOf(options) === undefined ? Buffer.from(content, 'utf8') : content;
    },
    readdir: (path: string, options?: unknown) => now(() => call('readdirSync', path, options)),
    stat: (path: string, options?: unknown) => now(() => call('statSync', path, options)),
    lstat: (path: string, options?: unknown) => now(() => call('lstatSync', path, options)),
    realpath: (path: string) => now(() => call('realpathSync', path)),
    mkdir: (path: string, options?: unknown) => now(() => call('mkdirSync', path, options)),
    writeFile: async (path: string, data: unknown, options?: unknown): Promise<void> => {
      const flag = typeof options === 'object' && options !== null ? ((options as { flag?: string }).flag ?? 'w') : 'w';
      const encoding = encodingOf(options);
      if (encoding !== undefined && encoding !== 'utf8' && encoding !== 'utf-8') throw loud(`fs/promises.writeFile with encoding ${encoding}`);
      if (directories.mode(disk, parentOf(path)) === undefined) return now(() => {
        throw enoent('open', path);
      });
      if (flag === 'wx') {
        if (!(await disk.createExclusive(owner, path, textOf(data)))) throw errorOf('EEXIST', -17, 'open', path, 'file already exists');
        return;
      }
      if (flag !== 'w') throw loud(`fs/promises.writeFile(${path}) with flag ${flag}`);
      await disk.write(owner, path, textOf(data));
    },
    open: async (path: string, flags?: unknown): Promise<object> => {
      if (flags === 'r' || flags === 'a+' || flags === 'w') return openWithFlags(path, flags);
      if (flags !== 'wx') throw loud(`fs/promises.open(${path}, ${String(flags)})`);
      if (directories.mode(disk, parentOf(path)) === undefined) return now(() => {
        throw enoent('open', path);
      });
      // O_CREAT | O_EXCL: created empty; the payload comes through the handle.
      // The create takes effect when called (then a latency): its inode is given then, before another process can act.
      const ino = owner.alive && !onDisk(disk, path) ? directories.created(path, epochNowMs()) : undefined;
      const created = await disk.createExclusive(owner, path, '');
      assert(created === (ino !== undefined), `the exclusive create of ${path} and its inode disagree`);
      if (ino === undefined) throw errorOf('EEXIST', -17, 'open', path, 'file already exists');
      return fileHandle(path, ino);
    },
    chmod: (path: string, mode: number) => now(() => call('chmodSync', path, mode)),
    rename: async (from: string, to: string): Promise<void> => {
      if (!onDisk(disk, from)) return now(() => {
        throw enoent('rename', from);
      });
      await disk.rename(owner, from, to);
    },
    rm: async (path: string, options?: unknown): Promise<void> => {
      if (directories.mode(disk, path) !== undefined && !onDisk(disk, path)) throw loud(`fs/promises.rm of the directory ${path}`);
      if (!onDisk(disk, path) && !forced(options)) return now(() => {
        throw enoent('rm', path);
      });
      if (owner.alive) directories.removed(path);
      await disk.remove(owner, path);
    },
  };
}

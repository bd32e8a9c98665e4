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
import { enoent, type HooksBinding, releasePackageDir, simulatedDirent, simulatedStats, virtualPackageRoot } from '../openclaw-hooks.mjs';
import { type OpenclawRelease, requireRelease, workspaceMissing } from './releases.ts';

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
  };
  if (options.fs !== undefined) binding.fs = options.fs;
  if (options.fsPromises !== undefined) binding.fsPromises = options.fsPromises;
  return binding;
}

/** The binding of one simulated incarnation: its clock, timers and liveness; the pid derived from its id. */
export function openclawIncarnationBinding(
  release: OpenclawRelease,
  owner: Incarnation,
  ports: { clock: Clock; timers: Timers; random: Random },
  options: Omit<OpenclawBindingOptions, 'clock' | 'timers' | 'random' | 'alive'> = {},
): OpenclawBinding {
  return openclawBinding(release, { pid: 1000 + owner.id, ...options, ...ports, alive: () => owner.alive });
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

  /** Children made with mkdirSync directly under `prefix` (which ends with a slash). */
  madeUnder(prefix: string): string[] {
    return [...this.made.keys()].filter((dir) => dir.startsWith(prefix) && !dir.slice(prefix.length).includes('/')).map((dir) => dir.slice(prefix.length));
  }
}

function parentOf(path: string): string {
  return path.split('/').slice(0, -1).join('/') || '/';
}

function textOf(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  throw new TypeError(`gatesim: the simulated disk takes text or bytes, not ${typeof data}`);
}

/**
 * node:fs over the simulated disk, as one incarnation sees it: existence, contents, listings, stats, and the
 * synchronous writes the components loaded so far make (whole-file writes and appends through the disk's *Now calls,
 * under its durability rules; directories in `directories`). Anything else a component calls fails loudly (the hooks).
 */
export function simulatedDiskFs(disk: SimDisk, owner: Incarnation, directories = new SimulatedDirectories()): Record<string, (...args: never[]) => unknown> {
  const read = (path: string): string | undefined => disk.readNow(owner, path) ?? (owner.alive ? directories.installed.get(path) : undefined);
  const stat = (path: string, options?: { throwIfNoEntry?: boolean }) => {
    const content = read(path);
    const directoryMode = content === undefined ? directories.mode(disk, path) : undefined;
    if (content === undefined && directoryMode === undefined) {
      if (options?.throwIfNoEntry === false) return undefined;
      throw enoent('stat', path);
    }
    return content !== undefined ? simulatedStats('file', content.length) : simulatedStats('directory', 4096, directoryMode);
  };
  const exists = (path: string) => stat(path, { throwIfNoEntry: false }) !== undefined;
  return {
    existsSync: exists,
    readFileSync: (path: string, options?: unknown) => {
      const content = read(path);
      if (content === undefined) throw enoent('open', path);
      const encoding = typeof options === 'string' ? options : (options as { encoding?: string } | undefined)?.encoding;
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
      if (read(path) !== undefined) return;
      if (directories.mode(disk, path) === undefined) throw enoent('chmod', path);
      directories.make(path, mode);
    },
  };
}

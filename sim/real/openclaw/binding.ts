// What an instance of a release's chunks is bound to: one simulated process incarnation. Its clock (Date from
// simEpochMs, as the model's and pi's timestamps are), its timers (fenced by the incarnation: a kill cancels them), a
// PRNG stream, a pid, an environment, a home and a cwd, and the simulated disk as node:fs sees it. Every use of
// something the hooks do not simulate is recorded in `escapes` (and thrown), so a run can fail on it even when the
// real code caught the error.
import { simEpochMs } from '../../../src/pi-format.ts';
import type { Clock, Random, Timers } from '../../../src/ports.ts';
import type { SimDisk } from '../../kernel/disk.ts';
import type { Incarnation } from '../../kernel/process.ts';
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

function isDirectory(disk: SimDisk, path: string): boolean {
  const prefix = path.endsWith('/') ? path : `${path}/`;
  return disk.paths().some((file) => file.startsWith(prefix));
}

/**
 * The read side of node:fs over the simulated disk, as one incarnation sees it (files only: a directory is a path
 * some file lies under). What the components loaded so far read at import time: existence, contents, listings and
 * stats. Writes are the next components' (the session write lock, the repair, the mirror append).
 */
export function simulatedDiskFs(disk: SimDisk, owner: Incarnation): Record<string, (...args: never[]) => unknown> {
  const stat = (path: string, options?: { throwIfNoEntry?: boolean }) => {
    const content = disk.readNow(owner, path);
    const kind = content !== undefined ? 'file' : isDirectory(disk, path) ? 'directory' : undefined;
    if (kind === undefined) {
      if (options?.throwIfNoEntry === false) return undefined;
      throw enoent('stat', path);
    }
    return simulatedStats(kind, content?.length ?? 4096);
  };
  return {
    existsSync: (path: string) => disk.readNow(owner, path) !== undefined || isDirectory(disk, path),
    readFileSync: (path: string, options?: unknown) => {
      const content = disk.readNow(owner, path);
      if (content === undefined) throw enoent('open', path);
      const encoding = typeof options === 'string' ? options : (options as { encoding?: string } | undefined)?.encoding;
      return encoding === undefined ? Buffer.from(content, 'utf8') : content;
    },
    readdirSync: (path: string, options?: { withFileTypes?: boolean }) => {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const children = new Map<string, 'file' | 'directory'>();
      for (const file of disk.paths()) {
        if (!file.startsWith(prefix)) continue;
        const rest = file.slice(prefix.length);
        const slash = rest.indexOf('/');
        children.set(slash < 0 ? rest : rest.slice(0, slash), slash < 0 ? 'file' : 'directory');
      }
      if (children.size === 0) throw enoent('scandir', path);
      const names = [...children.keys()].sort();
      if (options?.withFileTypes !== true) return names;
      return names.map((name) => simulatedDirent(name, path, children.get(name) ?? 'file'));
    },
    statSync: stat,
    lstatSync: stat,
    realpathSync: (path: string) => {
      if (stat(path, { throwIfNoEntry: false }) === undefined) throw enoent('realpath', path);
      return path;
    },
    accessSync: (path: string) => {
      if (stat(path, { throwIfNoEntry: false }) === undefined) throw enoent('access', path);
    },
  };
}

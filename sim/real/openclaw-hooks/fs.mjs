// The disk as a chunk's node:fs and node:fs/promises see it: a path under the release's package root (or the
// workspace's, /gatesim/workspace/) reads a read-only view of the pinned release's own files, any other path goes to
// the binding's simulated disk (binding.fs, binding.fsPromises), and what neither has throws. Also the Stats, Dirent
// and ENOENT shapes that sim/real/openclaw/binding.ts's simulated disk answers with. Exempt from the determinism ban
// (eslint.config.js, test/determinism-ban.test.ts): the view reads the release's files with node:fs, and node:fs's
// real exports are the list of what is not simulated.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import * as realFs from 'node:fs';
import * as realFsPromises from 'node:fs/promises';
import * as realPath from 'node:path';
import { fileURLToPath } from 'node:url';
import { partialModule } from './loud.mjs';
import { workspaceRootDir, workspaceVirtualRoot } from './package-loader.mjs';

// The read-only view of a release's package files (its channel catalog, bundled plugin manifests, package.json):
// files of the pinned release, the same on every machine, read from the workspace once per process.

const viewCache = new Map();

function viewEntry(hostPath) {
  let entry = viewCache.get(hostPath);
  if (entry === undefined) {
    let stat;
    try {
      stat = lstatSync(hostPath);
    } catch {
      stat = undefined;
    }
    if (stat === undefined) entry = { kind: 'missing' };
    else if (stat.isDirectory()) entry = { kind: 'directory', names: undefined };
    else if (stat.isFile()) entry = { kind: 'file', size: stat.size, text: undefined };
    else entry = { kind: 'other' };
    viewCache.set(hostPath, entry);
  }
  return entry;
}

/** The error node:fs throws for a missing path (shared with sim/real/openclaw/binding.ts's view of the simulated disk). */
export function enoent(syscall, path) {
  return Object.assign(new Error(`ENOENT: no such file or directory, ${syscall} '${path}'`), { code: 'ENOENT', errno: -2, syscall, path });
}

/** The type predicates of a Stats or Dirent, on a prototype (a release stats thousands of package files as it loads). */
const kindMethods = {
  isFile() {
    return this.kind === 'file';
  },
  isDirectory() {
    return this.kind === 'directory';
  },
  isSymbolicLink: () => false,
  isFIFO: () => false,
  isSocket: () => false,
  isBlockDevice: () => false,
  isCharacterDevice: () => false,
};

/** A Stats: no times (the epoch, built when read), a fixed owner. */
const statsPrototype = Object.create(kindMethods, {
  mtime: { get: () => new Date(0) },
  ctime: { get: () => new Date(0) },
  atime: { get: () => new Date(0) },
  birthtime: { get: () => new Date(0) },
});

function withKind(prototype, kind, fields) {
  const object = Object.create(prototype);
  Object.defineProperty(object, 'kind', { value: kind });
  return Object.assign(object, fields);
}

/** A Stats of a simulated file or directory (no times, no owner but a fixed one; permissions 0755 or 0644 unless given). */
export function simulatedStats(kind, size, permissions) {
  return withKind(statsPrototype, kind, {
    size,
    mode: (kind === 'directory' ? 0o40000 : 0o100000) | (permissions ?? (kind === 'directory' ? 0o755 : 0o644)),
    uid: 1000,
    gid: 1000,
    nlink: 1,
    dev: 1,
    ino: 0,
    mtimeMs: 0,
    ctimeMs: 0,
    atimeMs: 0,
    birthtimeMs: 0,
  });
}

/**
 * The BigIntStats of a Stats (`statSync(path, { bigint: true })`): every number a BigInt, with the nanosecond times
 * (2026.9.6 records its agent database's `dev:ino` and birth time this way at open: dist/openclaw-agent-db-identity-*.mjs).
 */
export function bigintStats(stats) {
  if (stats === undefined || stats === null) return stats;
  const big = Object.create(Object.getPrototypeOf(stats));
  if (Object.hasOwn(stats, 'kind')) Object.defineProperty(big, 'kind', { value: stats.kind });
  for (const [key, value] of Object.entries(stats)) big[key] = typeof value === 'number' ? BigInt(Math.trunc(value)) : value;
  for (const time of ['atime', 'mtime', 'ctime', 'birthtime']) {
    const ms = typeof stats[`${time}Ms`] === 'number' ? stats[`${time}Ms`] : 0;
    big[`${time}Ns`] = BigInt(Math.trunc(ms)) * 1_000_000n;
  }
  return big;
}

/** A Dirent of a simulated file or directory. */
export function simulatedDirent(name, parentPath, kind) {
  return withKind(kindMethods, kind, { name, parentPath, path: parentPath });
}

/** The synchronous read-only functions of the package view, on virtual paths under `root`. */
function packageView(root, hostRoot, loud) {
  const host = (path) => `${hostRoot}${path.slice(root.length)}`;
  const view = {
    existsSync: (path) => viewEntry(host(path)).kind !== 'missing',
    readFileSync: (path, options) => {
      const entry = viewEntry(host(path));
      if (entry.kind !== 'file') throw enoent('open', path);
      entry.text ??= readFileSync(host(path), 'utf8');
      const encoding = typeof options === 'string' ? options : options?.encoding;
      return encoding === undefined || encoding === null ? Buffer.from(entry.text, 'utf8') : entry.text;
    },
    /** The file's bytes as they are (a descriptor's reads). */
    bytesOf: (path) => {
      const entry = viewEntry(host(path));
      if (entry.kind !== 'file') throw enoent('read', path);
      entry.bytes ??= readFileSync(host(path));
      return entry.bytes;
    },
    readdirSync: (path, options) => {
      const entry = viewEntry(host(path));
      if (entry.kind !== 'directory') throw enoent('scandir', path);
      entry.names ??= readdirSync(host(path)).sort();
      if (options?.withFileTypes !== true) return [...entry.names];
      return entry.names.map((name) => simulatedDirent(name, path, viewEntry(`${host(path)}/${name}`).kind));
    },
    statSync: (path, options) => {
      const entry = viewEntry(host(path));
      if (entry.kind === 'missing') {
        if (options?.throwIfNoEntry === false) return undefined;
        throw enoent('stat', path);
      }
      return simulatedStats(entry.kind, entry.kind === 'file' ? entry.size : 4096);
    },
    realpathSync: (path) => {
      if (viewEntry(host(path)).kind === 'missing') throw enoent('realpath', path);
      return path;
    },
    accessSync: (path) => {
      if (viewEntry(host(path)).kind === 'missing') throw enoent('access', path);
    },
  };
  view.lstatSync = view.statSync;
  view.realpathSync.native = view.realpathSync;
  return new Proxy(view, {
    get(target, key) {
      if (key in target) return target[key];
      return () => {
        throw loud(`fs.${String(key)} on the release's package files (${root}, read-only)`);
      };
    },
  });
}

/** A path as the fs functions take it (string, Buffer or file URL), made absolute from the simulated cwd. */
function pathOf(binding, value) {
  const text = value instanceof URL ? fileURLToPath(value) : typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
  if (text === undefined) throw new TypeError(`gatesim: a path must be a string, Buffer or URL, not ${typeof value}`);
  return realPath.posix.resolve(binding.cwd, text);
}

const syncFsNames = ['existsSync', 'chmodSync', 'readFileSync', 'readdirSync', 'statSync', 'lstatSync', 'realpathSync', 'statfsSync', 'accessSync', 'writeFileSync', 'appendFileSync', 'mkdirSync', 'renameSync', 'unlinkSync', 'rmSync', 'openSync', 'closeSync', 'fsyncSync', 'copyFileSync', 'createReadStream'];
const promiseFsNames = ['readFile', 'readdir', 'stat', 'lstat', 'realpath', 'access', 'writeFile', 'appendFile', 'mkdir', 'rename', 'unlink', 'rm', 'open', 'copyFile', 'chmod'];

/**
 * fs and fs/promises: a path under the release's package root goes to the read-only package view, any other path to
 * the binding's simulated disk (binding.fs, binding.fsPromises); what neither has throws.
 */
export function simulatedFs(binding, loud) {
  const view = packageView(binding.packageRoot, binding.packageHostDir, loud);
  const inView = (path) => path === binding.packageRoot || path.startsWith(`${binding.packageRoot}/`);
  // The workspace's package files (a dependency reading its own package.json by its __dirname), read-only as well.
  const workspace = packageView(workspaceVirtualRoot, workspaceRootDir, loud);
  const inWorkspace = (path) => path === workspaceVirtualRoot || path.startsWith(`${workspaceVirtualRoot}/`);
  const route = (name, disk, viewFn, workspaceFn) => (first, ...rest) => {
    const path = pathOf(binding, first);
    if (inWorkspace(path)) {
      if (workspaceFn === undefined) throw loud(`fs.${name} on the workspace's package files (${workspaceVirtualRoot}, read-only)`);
      return workspaceFn(path, ...rest);
    }
    if (inView(path)) {
      if (viewFn === undefined) throw loud(`fs.${name} on the release's package files (${binding.packageRoot}, read-only)`);
      return viewFn(path, ...rest);
    }
    const fn = disk?.[name];
    if (typeof fn !== 'function') throw loud(`fs.${name} on the simulated disk (${path})`);
    return fn(path, ...rest);
  };
  const sync = {};
  for (const name of syncFsNames) sync[name] = route(name, binding.fs, name in view ? view[name] : undefined, name in view ? workspace[name] : undefined);
  // Read-only descriptors of the package views, the release's and the workspace's (a verified open: open, fstat, read
  // the whole file or a window of it, close; 2026.9.6's version chunk reads its dist/build-info.json through
  // fs-safe's positional readSync at module level), numbered per instance from 100, each with its own position; a
  // descriptor of anything else is the simulated disk's business (binding.fs's openSync, if any: else loud).
  const descriptors = new Map();
  let nextFd = 100;
  const described = (name, fd) => {
    const open = descriptors.get(fd);
    if (open === undefined) {
      const diskFn = binding.fs?.[name];
      if (typeof diskFn === 'function' && typeof fd === 'number') return { disk: diskFn };
      throw loud(`fs.${name} of descriptor ${fd}`);
    }
    return open;
  };
  // `{ bigint: true }`: the same Stats with BigInt numbers.
  for (const name of ['statSync', 'lstatSync']) {
    const plain = sync[name];
    sync[name] = (first, options, ...rest) => {
      const stats = plain(first, options, ...rest);
      return options?.bigint === true ? bigintStats(stats) : stats;
    };
  }
  const byPath = sync.readFileSync;
  sync.openSync = (first, flags = 'r', ...rest) => {
    const path = pathOf(binding, first);
    const files = inWorkspace(path) ? workspace : inView(path) ? view : undefined;
    if (files === undefined) return route('openSync', binding.fs, undefined)(first, flags, ...rest);
    const readOnly = flags === 'r' || (typeof flags === 'number' && (flags & 3) === 0);
    if (!readOnly) throw loud(`fs.openSync(${path}, ${String(flags)}) on the package files (read-only)`);
    files.statSync(path);
    const fd = nextFd++;
    descriptors.set(fd, { path, files, position: 0 });
    return fd;
  };
  // A call on a descriptor: the disk's for its own, else `onView` for a package file (a sync of a read-only file is
  // nothing; a write is loud).
  const onDisk = (name, onView) => (fd, ...args) => {
    const open = described(name, fd);
    if (open.disk !== undefined) return open.disk(fd, ...args);
    if (onView === undefined) throw loud(`fs.${name} of the package file ${open.path} (read-only)`);
    return onView(open);
  };
  sync.fstatSync = (fd, ...args) => {
    const open = described('fstatSync', fd);
    return open.disk !== undefined ? open.disk(fd, ...args) : open.files.statSync(open.path);
  };
  sync.closeSync = (fd) => {
    const open = described('closeSync', fd);
    if (open.disk !== undefined) return open.disk(fd);
    descriptors.delete(fd);
    return undefined;
  };
  // readSync(fd, buffer, offset, length, position) or readSync(fd, buffer, { offset, length, position }): a null
  // position reads from the descriptor's own and moves it, a number reads there and leaves it.
  sync.readSync = (fd, buffer, offsetOrOptions, lengthArg, positionArg) => {
    const open = described('readSync', fd);
    if (open.disk !== undefined) return open.disk(fd, buffer, offsetOrOptions, lengthArg, positionArg);
    const options = typeof offsetOrOptions === 'object' && offsetOrOptions !== null ? offsetOrOptions : { offset: offsetOrOptions, length: lengthArg, position: positionArg };
    const offset = options.offset ?? 0;
    const length = options.length ?? buffer.byteLength - offset;
    const explicit = typeof options.position === 'number' || typeof options.position === 'bigint';
    const from = explicit ? Number(options.position) : open.position;
    const bytes = open.files.bytesOf(open.path);
    const target = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    const count = Math.max(0, Math.min(length, bytes.length - from));
    target.set(bytes.subarray(from, from + count), offset);
    if (!explicit) open.position += count;
    return count;
  };
  sync.fsyncSync = onDisk('fsyncSync', () => undefined);
  sync.fdatasyncSync = onDisk('fdatasyncSync', () => undefined);
  sync.writeSync = onDisk('writeSync');
  sync.ftruncateSync = onDisk('ftruncateSync');
  sync.readFileSync = (first, ...rest) => {
    if (typeof first !== 'number') return byPath(first, ...rest);
    const open = descriptors.get(first);
    // The simulated disk's descriptors read by readSync only.
    if (open === undefined) throw loud(`fs.readFileSync of descriptor ${first}`);
    return open.files.readFileSync(open.path, ...rest);
  };
  sync.realpathSync.native = sync.realpathSync;
  const promised = {};
  for (const name of promiseFsNames) {
    const viewSync = view[`${name}Sync`];
    const viewFn = name in { readFile: 1, readdir: 1, stat: 1, lstat: 1, realpath: 1, access: 1 } ? (...args) => Promise.resolve().then(() => viewSync(...args)) : undefined;
    const workspaceSync = workspace[`${name}Sync`];
    promised[name] = route(name, binding.fsPromises, viewFn, viewFn === undefined ? undefined : (...args) => Promise.resolve().then(() => workspaceSync(...args)));
  }
  const promises = partialModule(loud, 'fs/promises', realFsPromises, promised, ['constants']);
  const fs = partialModule(loud, 'fs', realFs, { ...sync, promises: promises.default }, ['constants']);
  return { fs, promises };
}

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

const syncFsNames = ['existsSync', 'chmodSync', 'readFileSync', 'readdirSync', 'statSync', 'lstatSync', 'realpathSync', 'accessSync', 'writeFileSync', 'appendFileSync', 'mkdirSync', 'renameSync', 'unlinkSync', 'rmSync', 'openSync', 'closeSync', 'fsyncSync', 'copyFileSync', 'createReadStream'];
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
  // Read-only descriptors of the package view (a verified open: open, fstat, read the whole file, close), numbered per
  // instance from 100; a descriptor of anything else is the simulated disk's business (which has none yet: loud).
  const descriptors = new Map();
  let nextFd = 100;
  const described = (name, fd) => {
    const path = descriptors.get(fd);
    if (path === undefined) throw loud(`fs.${name} of descriptor ${fd}`);
    return path;
  };
  const byPath = sync.readFileSync;
  sync.openSync = (first, flags = 'r') => {
    const path = pathOf(binding, first);
    if (!inView(path)) return route('openSync', binding.fs, undefined)(first, flags);
    const readOnly = flags === 'r' || (typeof flags === 'number' && (flags & 3) === 0);
    if (!readOnly) throw loud(`fs.openSync(${path}, ${String(flags)}) on the release's package files (read-only)`);
    view.statSync(path);
    const fd = nextFd++;
    descriptors.set(fd, path);
    return fd;
  };
  sync.fstatSync = (fd) => view.statSync(described('fstatSync', fd));
  sync.closeSync = (fd) => {
    described('closeSync', fd);
    descriptors.delete(fd);
  };
  sync.readFileSync = (first, ...rest) => (typeof first === 'number' ? view.readFileSync(described('readFileSync', first), ...rest) : byPath(first, ...rest));
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

// The host side of the OpenClaw loader (sim/real/openclaw/): the one place where a pinned OpenClaw release meets the
// real world and the globals it was written against. It reads the release's dist/ chunks from the openclaw/ workspace
// (a real directory listing and real file reads), compiles a chunk once (node:vm compileFunction) and makes the
// simulated world a chunk instance sees. Exempt from the determinism ban (eslint.config.js,
// test/determinism-ban.test.ts), as sim/real/hooks.mjs is, because it must name what it replaces:
//
// - globals: `Date` (Date.now, `new Date()`, `Date()`; local-time methods answer in UTC), `performance.now`,
//   `setTimeout`/`setInterval`/`setImmediate` and their clear functions, `queueMicrotask`, `Math.random`,
//   `crypto.randomUUID`/`crypto.getRandomValues`, `process` (pid, env, cwd, argv, hrtime, uptime, nextTick, signal
//   handlers, stdout/stderr, `kill(pid, 0)` answered by the simulated process table), `console`, `globalThis`/`global` (a store of the instance's own, so globalThis
//   singletons are per instance), `AbortSignal.timeout`, `Intl` (UTC and en-US unless the code names others);
// - built-in modules: `node:fs` and `node:fs/promises` (the binding's simulated disk, plus a read-only view of the
//   release's own package files at /gatesim/openclaw-<release>/, where its chunks' import.meta.url points), `node:os`
//   (a simulated home), `node:crypto` (hashes as they are, randomness from the PRNG), `node:timers`,
//   `node:timers/promises`, `node:perf_hooks`, `node:process` (the simulated process), `node:tty` (no terminal),
//   `node:diagnostics_channel` (channels of the instance's own),
//   `node:module` (createRequire through the instance's loader; `process.getBuiltinModule` answers the simulated
//   modules), AsyncLocalStorage of `node:async_hooks`; the pure ones (`node:path` as posix, `node:url`, `node:util`,
//   `node:events`, `node:stream`, `node:buffer`, ...) as they are; of any other built-in module only its constants;
// - the release's npm packages (resolvePackage, compilePackageFile below; sim/real/openclaw/packages.ts runs them);
// - what the simulated machine answers where a host would: `new Function` throws EvalError (code generation from
//   strings disallowed, as under Node's --disallow-code-generation-from-strings; not an escape), a FinalizationRegistry
//   never calls back (nothing is collected in the simulated world).
//
// Everything else through which a chunk could reach the host throws `gatesim: ... is not simulated` when touched, and
// is reported to the binding (`escaped`) even if the chunk catches the error: a built-in module not listed above
// (child_process, net, http, worker_threads, sqlite, ...), an unsimulated function of a listed one, a global that is
// neither a plain ECMAScript built-in nor listed here (fetch, eval, WebAssembly, WeakRef, whose answer depends on the
// host's garbage collector, ...), an unknown `process` or `console` property, a write to the release's package files,
// a module.createRequire outside the release's and the workspace's files. Globals that only some Node versions have
// (navigator, WebSocket, ...) are absent in every version, so a release behaves alike on Node 20 and 24.
//
// A chunk is compiled as `with (scope) { return function* () { "use strict"; <chunk body> } }`: the chunk's own code
// stays strict, its free identifiers resolve through the scope (a Proxy: the chunk's imports as live bindings, then
// the simulated globals), and the generator's first step registers the chunk's exports (getters, so a not yet
// initialised `const` throws as in a module), which lets the loader link a closure, cycles included, before it
// evaluates it. Compiled once per process; each instance (one per process incarnation) calls the compiled function
// with a scope of its own, so module state is per instance and is freed with it.
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import * as realFs from 'node:fs';
import * as realFsPromises from 'node:fs/promises';
import * as realOs from 'node:os';
import * as realCrypto from 'node:crypto';
import * as realPath from 'node:path';
import * as realUrl from 'node:url';
import * as realUtil from 'node:util';
import * as realEvents from 'node:events';
import * as realStream from 'node:stream';
import * as realStreamPromises from 'node:stream/promises';
import * as realStringDecoder from 'node:string_decoder';
import * as realBuffer from 'node:buffer';
import * as realAssert from 'node:assert';
import * as realQuerystring from 'node:querystring';
import * as realModule from 'node:module';
import * as realTty from 'node:tty';
import * as realPerfHooks from 'node:perf_hooks';
import * as realAsyncHooks from 'node:async_hooks';
import * as realDiagnosticsChannel from 'node:diagnostics_channel';
import * as realReadline from 'node:readline';
import { builtinModules, createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { compileFunction } from 'node:vm';

// ---------------------------------------------------------------------------------------------------------------
// The workspace on the real disk.

export const openclawWorkspaceDir = fileURLToPath(new URL('../../openclaw/', import.meta.url));

/** The package directory of an installed release (with a trailing slash), or undefined when it is not installed. */
export function releasePackageDir(release) {
  const dir = `${openclawWorkspaceDir}node_modules/openclaw-${release}/`;
  return existsSync(`${dir}dist/index.js`) ? dir : undefined;
}

/** The release's top-level dist/*.js files, sorted; undefined when the release is not installed. */
export function listReleaseChunks(release) {
  const dir = releasePackageDir(release);
  if (dir === undefined) return undefined;
  return readdirSync(`${dir}dist/`, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => entry.name)
    .sort();
}

/** One file of a release's dist/ (a path relative to dist/). */
export function readReleaseChunk(release, file) {
  const dir = releasePackageDir(release);
  if (dir === undefined) throw new Error(`gatesim: openclaw ${release} is not installed (npm ci --prefix openclaw)`);
  return readFileSync(`${dir}dist/${file}`, 'utf8');
}

/** Where a release's package appears inside the simulated world (read-only). */
export function virtualPackageRoot(release) {
  return `/gatesim/openclaw-${release}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Compiling a chunk once.

/**
 * Compile a chunk's body (its import and export lines blanked by the caller, so line numbers stay) as the outer
 * function of a chunk instance: called with a scope, it returns the generator that first runs `registration` (one
 * line, put before the body's first line) and yields, then runs the body.
 */
export function compileChunk(body, registration, filename) {
  const code = `with (__gatesimScope) { return function* () { "use strict"; ${registration} yield; ${body}\n}; }`;
  return compileFunction(code, ['__gatesimScope'], { filename });
}

// ---------------------------------------------------------------------------------------------------------------
// The release's npm dependencies (bare packages), found in the workspace's node_modules by Node's rules (nearest
// node_modules first, then up to the workspace root and never above it, so gatesim's own dependencies are never
// used; package.json `exports` with the conditions node, import or require, default; else `main` and index.js) and
// compiled once per process. A CommonJS file is compiled as the body of
// `with (scope) { return function (exports, require, module, __filename, __dirname, __gatesimImportMeta) {...} }`;
// an ES module file is first rewritten to CommonJS by esbuild (a pure source transform, deterministic for one esbuild
// version: `import()` becomes require, `import.meta` the loader's object; top-level await cannot be, and fails
// loudly). Inside the simulated world package files appear under /gatesim/workspace/.

export const workspaceVirtualRoot = '/gatesim/workspace';

const workspaceRootDir = openclawWorkspaceDir.replace(/\/$/, '');

/** The virtual path of a workspace file (a package file as a loaded package's __filename says it). */
export function workspaceVirtualPath(hostPath) {
  if (hostPath !== workspaceRootDir && !hostPath.startsWith(`${workspaceRootDir}/`)) throw new Error(`gatesim: ${hostPath} is outside the openclaw/ workspace`);
  return `${workspaceVirtualRoot}${hostPath.slice(workspaceRootDir.length)}`;
}

/** The host path of a virtual workspace path, or undefined when the path is not under /gatesim/workspace/. */
export function workspaceHostPath(virtualPath) {
  if (virtualPath !== workspaceVirtualRoot && !virtualPath.startsWith(`${workspaceVirtualRoot}/`)) return undefined;
  return `${workspaceRootDir}${virtualPath.slice(workspaceVirtualRoot.length)}`;
}

const kindCache = new Map();
function hostKind(path) {
  let kind = kindCache.get(path);
  if (kind === undefined) {
    let stat;
    try {
      stat = lstatSync(path);
      if (stat.isSymbolicLink()) stat = realFs.statSync(path);
    } catch {
      stat = undefined;
    }
    kind = stat === undefined ? 'missing' : stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : 'other';
    kindCache.set(path, kind);
  }
  return kind;
}

const jsonCache = new Map();
function readJson(path) {
  let value = jsonCache.get(path);
  if (value === undefined) {
    value = JSON.parse(readFileSync(path, 'utf8'));
    jsonCache.set(path, value);
  }
  return value;
}

function notFound(specifier, from) {
  return Object.assign(new Error(`Cannot find module '${specifier}' (from ${from})`), { code: 'MODULE_NOT_FOUND' });
}

/** A file as CommonJS probes it: exact, then .js, .json, .cjs, .mjs, then a directory's main or index. */
function probeFile(path) {
  if (hostKind(path) === 'file') return path;
  for (const extension of ['.js', '.json', '.cjs', '.mjs']) if (hostKind(`${path}${extension}`) === 'file') return `${path}${extension}`;
  if (hostKind(path) !== 'directory') return undefined;
  if (hostKind(`${path}/package.json`) === 'file') {
    const main = readJson(`${path}/package.json`).main;
    if (typeof main === 'string') {
      const found = probeFile(realPath.join(path, main));
      if (found !== undefined) return found;
    }
  }
  for (const index of ['index.js', 'index.json', 'index.cjs']) if (hostKind(`${path}/${index}`) === 'file') return `${path}/${index}`;
  return undefined;
}

/** A conditional `exports` target (string, array or conditions object) for the given conditions. */
function exportsTarget(target, conditions) {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const candidate of target) {
      const found = exportsTarget(candidate, conditions);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (target === null || typeof target !== 'object') return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (!conditions.includes(condition)) continue;
    const found = exportsTarget(value, conditions);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The subpath (`.` or `./x`) of a package's `exports` map, with `*` patterns. */
function exportsSubpath(exports, subpath, conditions) {
  const isMap = exports !== null && typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((key) => key.startsWith('.') || key.startsWith('#'));
  if (!isMap) return subpath === '.' ? exportsTarget(exports, conditions) : undefined;
  if (subpath in exports) return exportsTarget(exports[subpath], conditions);
  let best;
  for (const key of Object.keys(exports)) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (!subpath.startsWith(prefix) || !subpath.endsWith(suffix) || subpath.length < key.length - 1) continue;
    if (best === undefined || prefix.length > best.prefix.length) best = { key, prefix, match: subpath.slice(prefix.length, subpath.length - suffix.length) };
  }
  if (best === undefined) return undefined;
  const target = exportsTarget(exports[best.key], conditions);
  return target?.replaceAll('*', best.match);
}

/**
 * The host file a bare specifier names from a file in `fromHostDir`, for an `import` or a `require`; throws a
 * MODULE_NOT_FOUND error when the workspace has no such package or the package does not export the subpath.
 */
export function resolvePackage(fromHostDir, specifier, kind) {
  if (specifier.startsWith('#')) return resolvePackageImports(fromHostDir, specifier, kind);
  const parts = specifier.split('/');
  const nameLength = specifier.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, nameLength).join('/');
  const subpath = parts.length > nameLength ? `./${parts.slice(nameLength).join('/')}` : '.';
  const conditions = ['node', kind, 'default'];
  assertInWorkspace(fromHostDir);
  for (let dir = fromHostDir; ; dir = realPath.dirname(dir)) {
    const candidate = `${dir}/node_modules/${name}`;
    if (hostKind(`${candidate}/package.json`) === 'file') {
      const manifest = readJson(`${candidate}/package.json`);
      if (manifest.exports !== undefined) {
        const target = exportsSubpath(manifest.exports, subpath, conditions);
        if (target === undefined) throw Object.assign(new Error(`Package subpath '${subpath}' of ${name} is not exported for ${kind}`), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
        const file = realPath.join(candidate, target);
        if (hostKind(file) !== 'file') throw notFound(specifier, fromHostDir);
        return file;
      }
      const file = probeFile(subpath === '.' ? realPath.join(candidate, typeof manifest.main === 'string' ? manifest.main : 'index.js') : realPath.join(candidate, subpath));
      if (file === undefined && subpath === '.') {
        const index = probeFile(`${candidate}/index`);
        if (index !== undefined) return index;
      }
      if (file === undefined) throw notFound(specifier, fromHostDir);
      return file;
    }
    if (dir === workspaceRootDir || dir === '/') break;
  }
  throw notFound(specifier, fromHostDir);
}

/** A subpath import (`#name`) through the `imports` map of the nearest package.json. */
function resolvePackageImports(fromHostDir, specifier, kind) {
  for (let dir = fromHostDir; dir.startsWith(workspaceRootDir); dir = realPath.dirname(dir)) {
    if (hostKind(`${dir}/package.json`) !== 'file') continue;
    const imports = readJson(`${dir}/package.json`).imports;
    const target = imports === undefined ? undefined : exportsSubpath(imports, specifier, ['node', kind, 'default']);
    if (target === undefined) break;
    if (!target.startsWith('./')) return resolvePackage(dir, target, kind);
    const file = realPath.join(dir, target);
    if (hostKind(file) !== 'file') break;
    return file;
  }
  throw notFound(specifier, fromHostDir);
}

/** The host file a relative or absolute require names from `fromHostFile` (CommonJS probing), or throws. */
export function resolvePackageFile(fromHostFile, specifier) {
  const path = specifier.startsWith('/') ? specifier : realPath.join(realPath.dirname(fromHostFile), specifier);
  const file = probeFile(path);
  if (file === undefined) throw notFound(specifier, fromHostFile);
  assertInWorkspace(file);
  return file;
}

function assertInWorkspace(path) {
  if (path !== workspaceRootDir && !path.startsWith(`${workspaceRootDir}/`)) throw new Error(`gatesim: ${path} is outside the openclaw/ workspace`);
}

/** Whether a package file is an ES module: .mjs, or .js under a package.json of type module. */
function isModuleFile(hostPath) {
  if (hostPath.endsWith('.mjs')) return true;
  if (hostPath.endsWith('.cjs') || !hostPath.endsWith('.js')) return false;
  for (let dir = realPath.dirname(hostPath); dir.startsWith(workspaceRootDir); dir = realPath.dirname(dir)) {
    if (hostKind(`${dir}/package.json`) === 'file') return readJson(`${dir}/package.json`).type === 'module';
  }
  return false;
}

/**
 * Packages shared by every instance, run by the host's own loader once per process: pure and stateless ones only,
 * whose every export is a function of its arguments and never reaches the host. json5: a synchronous parser and
 * stringifier (its module-level cursor is reset at each call and a call never yields, so instances cannot see one
 * another), which the releases run over every bundled plugin manifest (107 files, 750 KB in 2026.4.24) when a config
 * loads; under the hooks' scope it cost about 2 s per process incarnation.
 */
const sharedPackages = ['json5'];

const sharedExports = new Map();

/** The host's exports of a shared pure package's file, or undefined when the file is not one of theirs. */
export function sharedPackageExports(hostPath) {
  const shared = sharedPackages.some((name) => hostPath.startsWith(`${workspaceRootDir}/node_modules/${name}/`));
  if (!shared || isModuleFile(hostPath)) return undefined;
  let exports = sharedExports.get(hostPath);
  if (exports === undefined) {
    exports = createRequire(hostPath)(hostPath);
    if (hostPath === `${workspaceRootDir}/node_modules/json5/lib/index.js`) exports = memoizedJson5(exports);
    sharedExports.set(hostPath, exports);
  }
  return exports;
}

const json5TextCharsMax = 65_536;
const json5TextsMax = 1_000;

/**
 * json5 with its parse remembered by text: a parse without a reviver is a function of the text, so the same text gets
 * a structured clone of the first result (a fresh object graph, as a parse makes; JSON5 values are plain data). Every
 * incarnation of a release parses the same 107 plugin manifests; a clone costs a fraction of the character-by-character
 * parse. At most 1,000 texts of up to 64 KiB are kept (the oldest go first): bounded by the release's own files.
 */
function memoizedJson5(json5) {
  const remembered = new Map();
  const parse = (text, reviver) => {
    if (reviver !== undefined || typeof text !== 'string' || text.length > json5TextCharsMax) return json5.parse(text, reviver);
    if (!remembered.has(text)) {
      remembered.set(text, json5.parse(text));
      if (remembered.size > json5TextsMax) remembered.delete(remembered.keys().next().value);
    }
    return structuredClone(remembered.get(text));
  };
  return { ...json5, parse };
}

const hostRequire = createRequire(import.meta.url);

let esbuild;
/** esbuild, the ES module to CommonJS rewriter (pinned in gatesim's devDependencies, the version tsx also brings: the rewrite is deterministic for one version). */
function esbuildOf() {
  esbuild ??= hostRequire('esbuild');
  return esbuild;
}

const packageFiles = new Map();

/**
 * A package file compiled once per process: `{ format: 'json', json }` or `{ format: 'commonjs' | 'module', outer }`
 * where outer(scope) returns the module function (exports, require, module, __filename, __dirname, importMeta).
 * A file that cannot be compiled (top-level await, a syntax error) throws each time it is asked for.
 */
export function compilePackageFile(hostPath) {
  let compiled = packageFiles.get(hostPath);
  if (compiled === undefined) {
    try {
      assertInWorkspace(hostPath);
      const source = readFileSync(hostPath, 'utf8');
      if (hostPath.endsWith('.json')) compiled = { format: 'json', json: source };
      else {
        const format = isModuleFile(hostPath) ? 'module' : 'commonjs';
        let body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
        if (format === 'module') {
          body = `"use strict";${
            esbuildOf().transformSync(body, {
              format: 'cjs',
              platform: 'node',
              target: 'node20',
              sourcefile: workspaceVirtualPath(hostPath),
              supported: { 'dynamic-import': false },
              define: { 'import.meta': '__gatesimImportMeta' },
              logLevel: 'silent',
            }).code
          }`;
        }
        // An ES module has no __filename or __dirname of its own (pi-coding-agent's dist/config.js declares them as
        // constants): its wrapper's parameters take names it cannot clash with.
        const names = format === 'module' ? '__gatesimFilename, __gatesimDirname' : '__filename, __dirname';
        const code = `with (__gatesimScope) { return function (exports, require, module, ${names}, __gatesimImportMeta) { ${body}\n}; }`;
        compiled = { format, outer: compileFunction(code, ['__gatesimScope'], { filename: workspaceVirtualPath(hostPath) }) };
      }
    } catch (error) {
      compiled = { format: 'error', error };
    }
    packageFiles.set(hostPath, compiled);
  }
  if (compiled.format === 'error') throw compiled.error;
  return compiled;
}

// ---------------------------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------------------------
// The simulated globals of one instance (one process incarnation).

const unscopables = Symbol.unscopables;

/** ECMAScript built-ins and deterministic host built-ins a chunk may use as they are. */
const plainGlobals = new Set([
  'Object', 'Array', 'Number', 'parseFloat', 'parseInt', 'Infinity', 'NaN', 'undefined', 'Boolean',
  'String', 'Symbol', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError',
  'TypeError', 'URIError', 'BigInt', 'JSON', 'Reflect', 'Proxy', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet',
  'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray',
  'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array',
  'BigUint64Array', 'Atomics', 'RegExp', 'isNaN', 'isFinite', 'decodeURI', 'decodeURIComponent', 'encodeURI',
  'encodeURIComponent', 'escape', 'unescape', 'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams',
  'Buffer', 'AbortController', 'Event', 'EventTarget', 'DOMException', 'structuredClone', 'atob', 'btoa', 'Blob',
  'Headers', 'Request', 'Response', 'FormData', 'TextEncoderStream', 'TextDecoderStream', 'ReadableStream',
  'WritableStream', 'TransformStream', 'Iterator',
]);

/** Globals that only some Node versions have: absent in every version, so a release runs alike on Node 20 and 24. */
const absentGlobals = new Set(['navigator', 'Navigator', 'WebSocket', 'EventSource', 'CustomEvent', 'localStorage', 'sessionStorage', 'CloseEvent']);

const realGlobal = globalThis;
const RealDate = Date;
const realMath = Math;
const realNextTick = process.nextTick;
const realQueueMicrotask = queueMicrotask;
const RealAbortSignal = AbortSignal;

/** Date on the simulated clock, in UTC whatever the host's time zone. */
function simulatedDate(binding) {
  class SimulatedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(binding.epochNowMs());
      else super(...args);
    }
    static now() {
      return binding.epochNowMs();
    }
    getTimezoneOffset() {
      return 0;
    }
    toString() {
      return Number.isNaN(this.getTime()) ? 'Invalid Date' : `${this.toUTCString()} (Coordinated Universal Time)`;
    }
    toLocaleString(locales, options) {
      return super.toLocaleString(locales ?? 'en-US', { timeZone: 'UTC', ...options });
    }
    toLocaleDateString(locales, options) {
      return super.toLocaleDateString(locales ?? 'en-US', { timeZone: 'UTC', ...options });
    }
    toLocaleTimeString(locales, options) {
      return super.toLocaleTimeString(locales ?? 'en-US', { timeZone: 'UTC', ...options });
    }
  }
  for (const part of ['Date', 'Day', 'FullYear', 'Hours', 'Milliseconds', 'Minutes', 'Month', 'Seconds']) {
    SimulatedDate.prototype[`get${part}`] = RealDate.prototype[`getUTC${part}`];
    if (part !== 'Day') SimulatedDate.prototype[`set${part}`] = RealDate.prototype[`setUTC${part}`];
  }
  // `Date()` called as a function answers the current time as a string, as the real one does.
  return new Proxy(SimulatedDate, { apply: () => new SimulatedDate().toString() });
}

/** Math with Math.random drawn from the instance's PRNG (53 bits from two draws). */
function simulatedMath(binding) {
  const math = Object.create(Object.prototype);
  for (const key of Object.getOwnPropertyNames(realMath)) math[key] = realMath[key];
  Object.defineProperty(math, Symbol.toStringTag, { value: 'Math' });
  math.random = () => (binding.randomInt(0, 2 ** 26 - 1) * 2 ** 27 + binding.randomInt(0, 2 ** 27 - 1)) / 2 ** 53;
  return Object.freeze(math);
}

function fillRandom(binding, view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let i = 0; i < bytes.length; i++) bytes[i] = binding.randomInt(0, 255);
  return view;
}

/** Node's Timeout as far as callers use it: ref/unref/hasRef/refresh/close, and its id when coerced to a number. */
class SimulatedTimeout {
  constructor(timers, id) {
    this.timers = timers;
    this.id = id;
    this.arm = () => undefined;
    this.handle = undefined;
    this.referenced = true;
  }
  ref() {
    this.referenced = true;
    return this;
  }
  unref() {
    this.referenced = false;
    return this;
  }
  hasRef() {
    return this.referenced;
  }
  refresh() {
    if (this.handle !== undefined) {
      this.handle.cancel();
      this.handle = this.arm();
    }
    return this;
  }
  close() {
    this.timers.clear(this);
    return this;
  }
  [Symbol.toPrimitive]() {
    return this.id;
  }
}

/** Node's delay rule: anything but a number in [1, 2^31 - 1] means 1 ms; a fraction waits for the next whole ms. */
function delayOf(value) {
  const after = Number(value);
  return after >= 1 && after <= 2 ** 31 - 1 ? Math.ceil(after) : 1;
}

function simulatedTimers(binding, loud) {
  const live = new Map();
  let nextId = 1;
  const timers = {
    start(fn, delayMs, args, repeat, what) {
      if (typeof fn !== 'function') throw new TypeError(`gatesim: ${what} needs a function callback`);
      const id = nextId++;
      const timeout = new SimulatedTimeout(timers, id);
      timeout.arm = () =>
        binding.setTimer(delayMs, () => {
          if (repeat) timeout.handle = timeout.arm();
          else {
            timeout.handle = undefined;
            live.delete(id);
          }
          fn(...args);
        });
      timeout.handle = timeout.arm();
      live.set(id, timeout);
      return timeout;
    },
    clear(timeout) {
      const found = timeout instanceof SimulatedTimeout ? timeout : typeof timeout === 'number' || typeof timeout === 'string' ? live.get(Number(timeout)) : undefined;
      if (found === undefined) return;
      found.handle?.cancel();
      found.handle = undefined;
      live.delete(found.id);
    },
  };
  // A continuation queued by an incarnation that was killed since never runs (the kernel's fence).
  const fenced = (fn) => (...args) => {
    if (binding.alive()) fn(...args);
  };
  return {
    setTimeout: (fn, delay, ...args) => timers.start(fn, delayOf(delay), args, false, 'setTimeout'),
    setInterval: (fn, delay, ...args) => timers.start(fn, delayOf(delay), args, true, 'setInterval'),
    setImmediate: (fn, ...args) => timers.start(fn, 0, args, false, 'setImmediate'),
    clearTimeout: (timeout) => timers.clear(timeout),
    clearInterval: (timeout) => timers.clear(timeout),
    clearImmediate: (timeout) => timers.clear(timeout),
    queueMicrotask: (fn) => realQueueMicrotask(fenced(fn)),
    nextTick: (fn, ...args) => realNextTick(fenced(fn), ...args),
    /** node:timers/promises */
    promises: {
      setTimeout: (delay, value) => new Promise((resolve) => timers.start(resolve, delayOf(delay), [value], false, 'timers/promises.setTimeout')),
      setImmediate: (value) => new Promise((resolve) => timers.start(resolve, 0, [value], false, 'timers/promises.setImmediate')),
      setInterval: loud.fn('timers/promises.setInterval'),
    },
  };
}

function simulatedProcess(binding, timers, loud, getBuiltinModule) {
  const emitter = new realEvents.EventEmitter();
  const hrtimeNs = () => BigInt(binding.monotonicMs()) * 1_000_000n;
  const hrtime = (previous) => {
    let ns = hrtimeNs();
    if (Array.isArray(previous)) ns -= BigInt(previous[0]) * 1_000_000_000n + BigInt(previous[1]);
    return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
  };
  hrtime.bigint = hrtimeNs;
  const stream = (name) =>
    loud.strict(`process.${name}`, {
      write: (chunk) => {
        binding.log(name, String(chunk));
        return true;
      },
      isTTY: false,
      columns: 80,
      rows: 24,
      fd: name === 'stdout' ? 1 : 2,
    });
  let proxy;
  const listen = (method) => (...args) => {
    emitter[method](...args);
    return proxy;
  };
  proxy = loud.strict('process', {
    env: binding.env,
    platform: 'linux',
    arch: 'x64',
    pid: binding.pid,
    ppid: binding.ppid,
    argv: ['/usr/bin/node', `${binding.packageRoot}/openclaw.mjs`],
    argv0: 'node',
    execArgv: [],
    execPath: '/usr/bin/node',
    title: 'openclaw',
    // Electron's and browser bundles' properties: absent in Node.
    type: undefined,
    browser: undefined,
    __nwjs: undefined,
    version: process.version,
    versions: process.versions,
    release: process.release,
    exitCode: undefined,
    cwd: () => binding.cwd,
    getBuiltinModule,
    chdir: loud.fn('process.chdir'),
    umask: () => 0o022,
    getuid: () => 1000,
    geteuid: () => 1000,
    getgid: () => 1000,
    getegid: () => 1000,
    hrtime,
    uptime: () => binding.monotonicMs() / 1000,
    nextTick: timers.nextTick,
    emitWarning: (warning) => binding.log('warning', String(warning?.message ?? warning)),
    on: listen('on'),
    once: listen('once'),
    off: listen('off'),
    addListener: listen('addListener'),
    prependListener: listen('prependListener'),
    removeListener: listen('removeListener'),
    removeAllListeners: listen('removeAllListeners'),
    listeners: (name) => emitter.listeners(name),
    listenerCount: (name) => emitter.listenerCount(name),
    emit: (...args) => emitter.emit(...args),
    stdout: stream('stdout'),
    stderr: stream('stderr'),
    // Signal 0 asks whether a process exists: the simulated process table answers (binding.processExists); any other
    // signal, or a binding without a process table, is not simulated.
    kill: (pid, signal) => {
      if (signal !== 0 || binding.processExists === undefined) throw loud('process.kill');
      if (typeof pid !== 'number' || !Number.isInteger(pid)) throw Object.assign(new TypeError(`The "pid" argument must be of type number. Received ${typeof pid}`), { code: 'ERR_INVALID_ARG_TYPE' });
      if (!binding.processExists(pid)) throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH', errno: -3, syscall: 'kill' });
      return true;
    },
    exit: loud.fn('process.exit'),
    // Node's internal exit (signal-exit checks that it is a function, and wraps it when asked to watch for an exit).
    reallyExit: loud.fn('process.reallyExit'),
    // signal-exit 3 keeps its emitter here (read first, set by the first copy that loads): the instance's own.
    __signal_exit_emitter__: undefined,
    abort: loud.fn('process.abort'),
    memoryUsage: loud.fn('process.memoryUsage'),
    cpuUsage: loud.fn('process.cpuUsage'),
    resourceUsage: loud.fn('process.resourceUsage'),
  });
  return proxy;
}

/**
 * Intl with the simulated world's defaults: a date format with no time zone formats in UTC and one with no locale
 * in en-US, whatever the host's TZ and LANG (other Intl services get en-US when no locale is given).
 */
function simulatedIntl() {
  const withDefaults = (Service, zoned) =>
    new Proxy(Service, {
      construct: (target, [locales, options]) => new target(locales ?? 'en-US', zoned ? { timeZone: 'UTC', ...options } : options),
      apply: (target, _this, [locales, options]) => new target(locales ?? 'en-US', zoned ? { timeZone: 'UTC', ...options } : options),
    });
  const intl = Object.create(null);
  for (const key of Reflect.ownKeys(Intl)) intl[key] = Intl[key];
  for (const key of ['Collator', 'NumberFormat', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'Segmenter', 'DisplayNames']) {
    if (typeof Intl[key] === 'function') intl[key] = withDefaults(Intl[key], false);
  }
  intl.DateTimeFormat = withDefaults(Intl.DateTimeFormat, true);
  return Object.freeze(intl);
}

/**
 * Function as a value (instanceof, Function.prototype) but never as a compiler: code made by `new Function` would run
 * in the host's global scope, outside these hooks. The simulated world disallows code generation from strings, as
 * Node does under --disallow-code-generation-from-strings (and a browser under a strict CSP): the call throws Node's
 * own EvalError, which is not an escape, because it is the world's documented answer and code written for such hosts
 * probes for it and takes its other path (zod's `allowsEval`, which every OpenClaw config schema reaches, then
 * validates without compiled fast paths, to the same results).
 */
function simulatedFunction() {
  const refuse = () => {
    throw new EvalError('Code generation from strings disallowed for this context');
  };
  return new Proxy(Function, { apply: refuse, construct: refuse });
}

/** Generated functions compiled once per process by their text (ajv's validators: one per schema of the release). */
const generatedCode = new Map();
const generatedCodeMax = 20_000;

/**
 * Function as a compiler, for an instance whose binding asks for it (`codeGeneration`, sim/real/openclaw/binding.ts):
 * needed where the release has no path without it (ajv compiles every schema it is given, as 2026.4.24's gateway
 * protocol does at module level: dist/client-*.js, region src/gateway/protocol/index.ts). The generated function is
 * compiled as a chunk is, `with (scope) { return function anonymous(<params>) { "use strict"; <body> } }`, so its free
 * identifiers resolve through the instance's scope (the simulated globals) and never the host's. It is strict, so
 * `this` in a plain call is undefined rather than the host's global (`Function('return this')()` finds no global, as
 * under a strict host); parameters that are not plain names (a strict body forbids them) are loud. The compiled text is
 * kept once per process (at most 20,000 texts; ajv's are the release's own schemas), the function made per call.
 */
function compilingFunction(world) {
  const make = (args) => {
    const texts = args.map(String);
    const body = texts.length > 0 ? texts[texts.length - 1] : '';
    const params = texts.slice(0, -1).join(',');
    if (!/^[\w$,\s]*$/.test(params)) throw world.loud(`new Function with the parameters (${params.slice(0, 60)})`);
    const key = `${params}\u0000${body}`;
    let outer = generatedCode.get(key);
    if (outer === undefined) {
      outer = compileFunction(`with (__gatesimScope) { return function anonymous(${params}\n) {\n"use strict";${body}\n}; }`, ['__gatesimScope'], { filename: 'gatesim:generated-code' });
      if (generatedCode.size >= generatedCodeMax) generatedCode.delete(generatedCode.keys().next().value);
      generatedCode.set(key, outer);
    }
    return outer(chunkScope(world, Object.create(null)));
  };
  return new Proxy(Function, { apply: (_target, _this, args) => make(args), construct: (_target, args) => make(args) });
}

/**
 * A FinalizationRegistry whose callbacks never run: when the host's garbage collector runs is not part of the simulated
 * world, so nothing is ever collected there (a cleanup the code also does explicitly still happens; one it leaves to
 * the collector does not). It holds no reference to what is registered.
 */
class SimulatedFinalizationRegistry {
  constructor(callback) {
    if (typeof callback !== 'function') throw new TypeError('FinalizationRegistry: cleanup must be callable');
  }
  register() {}
  unregister() {
    return false;
  }
}

function simulatedAbortSignal(timers) {
  return new Proxy(RealAbortSignal, {
    get(target, key, receiver) {
      if (key !== 'timeout') return Reflect.get(target, key, receiver);
      return (delay) => {
        const controller = new AbortController();
        timers.setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), delay);
        return controller.signal;
      };
    },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Built-in modules.

/** A module namespace from a real module: every export as it is (pure modules). */
function passThrough(module) {
  return { ...module, default: module.default ?? module };
}

/**
 * A module namespace where `simulated` names are the simulation's, `pure` names and primitive constants are the real
 * ones, and every other export throws when used.
 */
function partialModule(loud, name, real, simulated, pure = []) {
  const namespace = {};
  for (const key of Object.keys(real)) {
    if (key === 'default') continue;
    const value = real[key];
    if (typeof value === 'function') namespace[key] = loud.fn(`${name}.${key}`);
    else if (value === null || typeof value !== 'object') namespace[key] = value;
    else namespace[key] = loud.object(`${name}.${key}`);
  }
  for (const key of pure) namespace[key] = real[key];
  Object.assign(namespace, simulated);
  return { ...namespace, default: loud.strict(name, namespace) };
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
function simulatedFs(binding, loud) {
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

function simulatedOs(binding, loud) {
  return partialModule(
    loud,
    'os',
    realOs,
    {
      homedir: () => binding.home,
      tmpdir: () => binding.tmpdir,
      hostname: () => binding.hostname,
      platform: () => 'linux',
      type: () => 'Linux',
      arch: () => 'x64',
      release: () => '6.0.0-gatesim',
      endianness: () => 'LE',
      EOL: '\n',
      devNull: '/dev/null',
      userInfo: () => ({ username: 'gatesim', uid: 1000, gid: 1000, shell: '/bin/sh', homedir: binding.home }),
    },
    ['constants'],
  );
}

function simulatedWebCrypto(binding, loud) {
  return loud.strict('crypto', {
    randomUUID: () => binding.uuidV4(),
    getRandomValues: (view) => fillRandom(binding, view),
  });
}

function simulatedNodeCrypto(binding, loud) {
  return partialModule(
    loud,
    'crypto',
    realCrypto,
    {
      randomUUID: () => binding.uuidV4(),
      getRandomValues: (view) => fillRandom(binding, view),
      getFips: () => 0,
      randomBytes: (size) => fillRandom(binding, Buffer.alloc(size)),
      randomInt: (min, max) => (max === undefined ? binding.randomInt(0, min - 1) : binding.randomInt(min, max - 1)),
      webcrypto: simulatedWebCrypto(binding, loud),
    },
    ['createHash', 'createHmac', 'timingSafeEqual', 'getHashes', 'constants', 'hash'],
  );
}

const pureModules = {
  url: realUrl,
  events: realEvents,
  stream: realStream,
  'stream/promises': realStreamPromises,
  string_decoder: realStringDecoder,
  buffer: realBuffer,
  assert: realAssert,
  querystring: realQuerystring,
};

const builtins = new Set(builtinModules);

/**
 * The namespace an import of a built-in module gets in this instance, or undefined when the specifier is not a
 * built-in module. A built-in module nothing simulates gets functions that throw for the names imported from it.
 */
export function builtinModule(world, specifier, importedNames) {
  const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  if (!builtins.has(name)) return undefined;
  const cached = world.modules.get(name);
  if (cached !== undefined) return cached;
  const { binding, loud } = world;
  let namespace;
  if (name === 'path' || name === 'path/posix') namespace = { ...realPath.posix, default: realPath.posix };
  else if (name === 'util') {
    const util = { ...realUtil, debuglog: () => () => {}, debug: () => () => {} };
    namespace = { ...util, default: util };
  } else if (name === 'module') {
    namespace = partialModule(loud, 'module', realModule, {
      createRequire: (url) => world.createRequire(url),
      builtinModules: [...builtinModules],
      isBuiltin: (id) => builtins.has(String(id).replace(/^node:/, '')),
    });
  }
  else if (name in pureModules) namespace = passThrough(pureModules[name]);
  else if (name === 'fs') namespace = world.fs.fs;
  else if (name === 'fs/promises') namespace = world.fs.promises;
  else if (name === 'os') namespace = simulatedOs(binding, loud);
  else if (name === 'crypto') namespace = simulatedNodeCrypto(binding, loud);
  else if (name === 'timers') {
    const timers = Object.fromEntries(Object.entries(world.timers).filter(([key]) => key !== 'promises' && key !== 'nextTick'));
    namespace = { ...timers, default: timers };
  } else if (name === 'timers/promises') namespace = { ...world.timers.promises, default: world.timers.promises };
  else if (name === 'process') {
    const proc = world.globals.process;
    namespace = new Proxy(Object.create(null), {
      get: (_target, key) => (key === 'default' ? proc : proc[key]),
      has: (_target, key) => key === 'default' || key in proc,
    });
  } else if (name === 'async_hooks') {
    // AsyncLocalStorage carries a value along the instance's own promise chains: memory only. The instance's
    // storages are SimulatedAsyncLocalStorage, all carried by one real storage (below).
    namespace = partialModule(loud, 'async_hooks', realAsyncHooks, { AsyncLocalStorage: SimulatedAsyncLocalStorage }, ['AsyncResource']);
  } else if (name === 'readline') namespace = partialModule(loud, 'readline', realReadline, simulatedReadline(loud));
  else if (name === 'diagnostics_channel') namespace = partialModule(loud, 'diagnostics_channel', realDiagnosticsChannel, simulatedDiagnosticsChannel(loud));
  else if (name === 'tty') namespace = partialModule(loud, 'tty', realTty, { isatty: () => false });
  else if (name === 'perf_hooks') namespace = partialModule(loud, 'perf_hooks', realPerfHooks, { performance: world.globals.performance });
  else {
    // Not simulated: every function and object is loud; its constants (`http2.constants`, primitive values) are data.
    const real = hostRequire(name);
    namespace = partialModule(loud, name, real, {}, real.constants !== undefined && typeof real.constants === 'object' ? ['constants'] : []);
    for (const imported of importedNames) if (!(imported in namespace)) namespace[imported] = loud.fn(`${name}.${imported}`);
    return namespace;
  }
  world.modules.set(name, namespace);
  return namespace;
}

// AsyncLocalStorage. On Node 20 a real AsyncLocalStorage that has once run a callback (run, enterWith) stays in a
// process-wide list until its disable() is called, and every promise the process creates afterwards copies the store
// of every storage in that list (an async_hooks init hook). A release makes its storages at module level
// (2026.7.1: the session store's writer queue, `openclaw.activeStoreWriters`, and the transcript's owned-write
// context), so each instance, one per process incarnation, added storages that nothing ever disabled: after 25 chaos
// runs of a campaign with 2026.7.1's write lock and mirror append there were 51, and every promise of the process
// (the kernel's settle hops included) paid for each (issue 22: a run that passes alone in 10 s of CPU took minutes
// of CPU in the campaign, which looked like a stall). So every storage of every instance is a
// SimulatedAsyncLocalStorage: its value lives in a frame (a Map from storage to value) carried by one real storage,
// made once per process; a run() or enterWith() copies the frame with its own entry. The values propagate exactly as
// the real storage's do (along promise continuations; not into simulated timers, whose callbacks the kernel calls),
// and an instance dropped with its incarnation leaves nothing behind.
const frameCarrier = new realAsyncHooks.AsyncLocalStorage();
const emptyFrame = new Map();

/** The frame of storage values in the current async context. */
function currentFrame() {
  return frameCarrier.getStore() ?? emptyFrame;
}

class SimulatedAsyncLocalStorage {
  #enabled = false;

  static bind(fn) {
    return realAsyncHooks.AsyncLocalStorage.bind(fn);
  }

  static snapshot() {
    return realAsyncHooks.AsyncLocalStorage.snapshot();
  }

  getStore() {
    return this.#enabled ? currentFrame().get(this) : undefined;
  }

  run(store, callback, ...args) {
    this.#enabled = true;
    const frame = new Map(currentFrame());
    frame.set(this, store);
    return frameCarrier.run(frame, callback, ...args);
  }

  exit(callback, ...args) {
    if (!this.#enabled || !currentFrame().has(this)) return Reflect.apply(callback, null, args);
    const frame = new Map(currentFrame());
    frame.delete(this);
    return frameCarrier.run(frame, callback, ...args);
  }

  enterWith(store) {
    this.#enabled = true;
    const frame = new Map(currentFrame());
    frame.set(this, store);
    frameCarrier.enterWith(frame);
  }

  /** As Node's: getStore() answers undefined until the next run() or enterWith(). */
  disable() {
    this.#enabled = false;
  }
}

/** The contents a simulated read stream carries (binding.ts simulatedReadStream), for the simulated readline. */
export const readStreamContents = Symbol('gatesim.readStreamContents');

/**
 * node:readline's createInterface over a simulated read stream (fs.createReadStream of the simulated disk, which carries
 * the file's contents): an async iterator of its lines, split as `crlfDelay: Infinity` splits them (\r\n, \n or a lone
 * \r ends a line; no empty line after a final newline). Its iteration is promise continuations only, so it runs in the
 * simulation's microtask order. Any other input, and any other use of the interface, is loud.
 */
function simulatedReadline(loud) {
  return {
    createInterface: (options) => {
      const input = options?.input;
      const contents = input?.[readStreamContents];
      if (typeof contents !== 'string') throw loud('readline.createInterface over a stream that is not a simulated file');
      const lines = contents.split(/\r\n|\r|\n/);
      if (lines.at(-1) === '') lines.pop();
      let closed = false;
      return loud.strict('readline.Interface', {
        close: () => {
          closed = true;
        },
        [Symbol.asyncIterator]: async function* () {
          for (const line of lines) {
            if (closed) return;
            yield line;
          }
        },
      });
    },
  };
}

/**
 * node:diagnostics_channel with the instance's own channels (a host's are process-wide by name): a channel publishes to
 * what subscribed to it in the same instance, and nothing else of the simulated world subscribes (lru-cache asks
 * `hasSubscribers` before it publishes a metric). A tracing channel with a subscriber is loud.
 */
function simulatedDiagnosticsChannel(loud) {
  const channels = new Map();
  const channel = (name) => {
    let found = channels.get(name);
    if (found === undefined) {
      const subscribers = [];
      found = {
        name,
        get hasSubscribers() {
          return subscribers.length > 0;
        },
        publish: (message) => {
          for (const subscriber of [...subscribers]) subscriber(message, name);
        },
        subscribe: (subscriber) => {
          subscribers.push(subscriber);
        },
        unsubscribe: (subscriber) => {
          const index = subscribers.indexOf(subscriber);
          if (index >= 0) subscribers.splice(index, 1);
          return index >= 0;
        },
        bindStore: loud.fn('diagnostics_channel Channel.bindStore'),
        unbindStore: () => false,
        runStores: (_data, fn, thisArg, ...args) => Reflect.apply(fn, thisArg, args),
      };
      channels.set(name, found);
    }
    return found;
  };
  const events = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'];
  const tracingChannel = (nameOrChannels) => {
    const parts = Object.fromEntries(events.map((event) => [event, typeof nameOrChannels === 'string' ? channel(`tracing:${nameOrChannels}:${event}`) : nameOrChannels[event]]));
    const traced = (what) => (fn, _context, thisArg, ...args) => {
      if (events.some((event) => parts[event].hasSubscribers)) throw loud(`diagnostics_channel TracingChannel.${what} with a subscriber`);
      return Reflect.apply(fn, thisArg, args);
    };
    return {
      ...parts,
      get hasSubscribers() {
        return events.some((event) => parts[event].hasSubscribers);
      },
      subscribe: (handlers) => {
        for (const event of events) if (typeof handlers[event] === 'function') parts[event].subscribe(handlers[event]);
      },
      unsubscribe: (handlers) => events.map((event) => typeof handlers[event] === 'function' && parts[event].unsubscribe(handlers[event])).every(Boolean),
      traceSync: traced('traceSync'),
      tracePromise: traced('tracePromise'),
      traceCallback: loud.fn('diagnostics_channel TracingChannel.traceCallback'),
    };
  };
  return {
    channel,
    tracingChannel,
    hasSubscribers: (name) => channel(name).hasSubscribers,
    subscribe: (name, subscriber) => channel(name).subscribe(subscriber),
    unsubscribe: (name, subscriber) => channel(name).unsubscribe(subscriber),
  };
}

/** A built-in module as `require` and `process.getBuiltinModule` return it (its default), or undefined. */
export function requireBuiltin(world, specifier) {
  return builtinModule(world, String(specifier), [])?.default;
}

// ---------------------------------------------------------------------------------------------------------------
// One instance's world, and the scope of each chunk instance.

/** The loud failures of one instance: each throws and is reported to binding.escaped, caught or not. */
function loudness(binding) {
  const loud = (what) => {
    binding.escaped(what);
    return new Error(`gatesim: ${what} is not simulated (a real OpenClaw component reached for the host)`);
  };
  /** A function that throws when called or constructed: typeof says "function", any use is loud. */
  loud.fn = (what) => {
    const fn = function () {
      throw loud(what);
    };
    Object.defineProperty(fn, 'name', { value: what });
    return fn;
  };
  /** An object whose every property read throws. */
  loud.object = (what) =>
    new Proxy(
      {},
      {
        get(_target, key) {
          if (typeof key === 'symbol' || key === 'then' || key === '__esModule') return undefined;
          throw loud(`${what}.${key}`);
        },
        set(_target, key) {
          throw loud(`${what}.${String(key)}`);
        },
      },
    );
  /** An object of the given properties; reading any other string property throws. */
  loud.strict = (what, properties) =>
    new Proxy(properties, {
      get(target, key, receiver) {
        if (typeof key === 'symbol' || key in target) return Reflect.get(target, key, receiver);
        // Read when an object is awaited, resolved or serialised: absent, as on the real object.
        if (key === 'then' || key === 'toJSON' || key === '__esModule') return undefined;
        throw loud(`${what}.${key}`);
      },
    });
  return loud;
}

/**
 * The simulated world of one instance. `binding` supplies epochNowMs(), monotonicMs(), setTimer(delayMs, fn) ->
 * { cancel() }, randomInt(min, max), uuidV4(), alive(), escaped(what), log(level, text), pid, ppid, env, cwd, home,
 * tmpdir, hostname, packageRoot (the virtual package root), packageHostDir (where its files are on the real disk),
 * and optionally fs / fsPromises (the simulated disk's functions of node:fs and node:fs/promises, on absolute paths).
 */
export function createInstanceWorld(binding) {
  const loud = loudness(binding);
  const timers = simulatedTimers(binding, loud);
  const store = Object.create(null);
  const globals = {
    Date: simulatedDate(binding),
    Math: simulatedMath(binding),
    performance: loud.strict('performance', { now: () => binding.monotonicMs(), timeOrigin: binding.epochNowMs() - binding.monotonicMs() }),
    crypto: simulatedWebCrypto(binding, loud),
    console: loud.strict(
      'console',
      Object.fromEntries(['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir'].map((level) => [level, (...args) => binding.log(level, realUtil.format(...args))])),
    ),
    process: simulatedProcess(binding, timers, loud, (id) => requireBuiltin(world, id)),
    setTimeout: timers.setTimeout,
    setInterval: timers.setInterval,
    setImmediate: timers.setImmediate,
    clearTimeout: timers.clearTimeout,
    clearInterval: timers.clearInterval,
    clearImmediate: timers.clearImmediate,
    queueMicrotask: timers.queueMicrotask,
    AbortSignal: simulatedAbortSignal(timers),
    Intl: simulatedIntl(),
    Function: simulatedFunction(),
    FinalizationRegistry: SimulatedFinalizationRegistry,
  };
  const world = { binding, loud, timers, globals, store, modules: new Map(), fs: simulatedFs(binding, loud) };
  // Code generation from strings, for an instance that asks for it (compilingFunction); refused otherwise.
  if (binding.codeGeneration === true) globals.Function = compilingFunction(world);
  /** `module.createRequire(url)`: the instance's loader sets this (sim/real/openclaw/instance.ts). */
  world.createRequire = (url) => {
    throw loud(`module.createRequire(${String(url)}) without a loader`);
  };

  /** Whether a free identifier (or a property of globalThis) resolves in this instance. */
  world.has = (key) =>
    key in store || (typeof key === 'string' && (key in globals || key === 'globalThis' || key === 'global' || (!absentGlobals.has(key) && key in realGlobal)));
  /** Its value: the instance's own, a simulated global, a plain built-in; any other host global is loud. */
  world.get = (key) => {
    if (key in store) return store[key];
    if (typeof key === 'symbol') return undefined;
    if (key in globals) return globals[key];
    if (key === 'globalThis' || key === 'global') return world.global;
    if (plainGlobals.has(key)) return realGlobal[key];
    if (absentGlobals.has(key) || !(key in realGlobal)) return undefined;
    throw loud(`the global ${key}`);
  };
  world.global = new Proxy(store, {
    get: (_target, key) => world.get(key),
    has: (_target, key) => world.has(key),
    set: (target, key, value) => {
      target[key] = value;
      return true;
    },
    getOwnPropertyDescriptor: (target, key) => {
      if (key in target) return Reflect.getOwnPropertyDescriptor(target, key);
      if (!world.has(key)) return undefined;
      return { value: world.get(key), writable: true, enumerable: false, configurable: true };
    },
  });
  return world;
}

/**
 * The scope of one chunk instance: `own` holds its imports (a getter each, so bindings are live) and the names the
 * loader passes (exports registration, import.meta, dynamic import); then the instance's globals.
 */
export function chunkScope(world, own) {
  return new Proxy(own, {
    has: (target, key) => key !== unscopables && (key in target || world.has(key)),
    get: (target, key) => {
      if (key === unscopables) return undefined;
      if (key in target) return target[key];
      return world.get(key);
    },
    set: (target, key, value) => {
      if (key in target) throw new TypeError(`gatesim: assignment to the import ${String(key)}`);
      world.store[key] = value;
      return true;
    },
  });
}

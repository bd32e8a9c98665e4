// The package loader: the release's npm dependencies (bare packages), found in the workspace's node_modules by Node's
// rules (nearest node_modules first, then up to the workspace root and never above it, so gatesim's own dependencies
// are never used; package.json `exports` with the conditions node, import or require, default; else `main` and
// index.js) and compiled once per process (sim/real/openclaw/packages.ts runs them per instance). A CommonJS file is
// compiled as the body of
// `with (scope) { return function (exports, require, module, __filename, __dirname, __gatesimImportMeta) {...} }`;
// an ES module file is first rewritten to CommonJS by esbuild (a pure source transform, deterministic for one esbuild
// version: `import()` becomes require, `import.meta` the loader's object; top-level await cannot be, and fails
// loudly). Inside the simulated world package files appear under /gatesim/workspace/. Exempt from the determinism ban
// (eslint.config.js, test/determinism-ban.test.ts): resolving and reading package files is why it imports node:fs.
import { lstatSync, readFileSync } from 'node:fs';
import * as realFs from 'node:fs';
import * as realPath from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { threadId } from 'node:worker_threads';
import { loaderBaseline, loaderBeforeRound2 } from './compile.mjs';
import { types as realTypes } from 'node:util';
import { compileFunction } from 'node:vm';
import { openclawWorkspaceDir } from './workspace.mjs';

export const workspaceVirtualRoot = '/gatesim/workspace';

export const workspaceRootDir = openclawWorkspaceDir.replace(/\/$/, '');

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
 * Resolutions remembered once per process, by (from, specifier, kind): the workspace's files do not change while it
 * runs (hostKind and readJson remember what they read of them already), so a resolution answers the same each time;
 * a failed one throws a new error of the same message and code each time. Every incarnation resolves the same
 * specifiers from the same files (about 1,500 package files for 2026.4.24's agent runtime).
 */
const resolutions = new Map();

/**
 * The memo of (kind, from, specifier) as a map per kind and origin, then by specifier: the same entries as one map
 * keyed by the three joined, without building and hashing that long key at every require (about 2% of a chaos run's
 * CPU; issue 46's second round).
 */
function rememberedAt(kind, from, specifier, resolve) {
  if (loaderBeforeRound2()) return remembered(`${kind}\u0000${from}\u0000${specifier}`, resolve);
  let byOrigin = resolutionsByOrigin.get(kind);
  if (byOrigin === undefined) resolutionsByOrigin.set(kind, (byOrigin = new Map()));
  let bySpecifier = byOrigin.get(from);
  if (bySpecifier === undefined) byOrigin.set(from, (bySpecifier = new Map()));
  return rememberedIn(bySpecifier, specifier, resolve);
}

const resolutionsByOrigin = new Map();

function remembered(key, resolve) {
  return rememberedIn(resolutions, key, resolve);
}

function rememberedIn(resolutions, key, resolve) {
  let known = resolutions.get(key);
  if (known === undefined) {
    try {
      known = { file: resolve() };
    } catch (error) {
      if (error?.code !== 'MODULE_NOT_FOUND' && error?.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error;
      known = { message: error.message, code: error.code };
    }
    resolutions.set(key, known);
  }
  if (known.file !== undefined) return known.file;
  throw Object.assign(new Error(known.message), { code: known.code });
}

/**
 * The host file a bare specifier names from a file in `fromHostDir`, for an `import` or a `require`; throws a
 * MODULE_NOT_FOUND error when the workspace has no such package or the package does not export the subpath.
 */
export function resolvePackage(fromHostDir, specifier, kind) {
  if (loaderBaseline()) return resolvePackageAfresh(fromHostDir, specifier, kind);
  return rememberedAt(`p${kind}`, fromHostDir, specifier, () => resolvePackageAfresh(fromHostDir, specifier, kind));
}

function resolvePackageAfresh(fromHostDir, specifier, kind) {
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
  if (loaderBaseline()) return resolvePackageFileAfresh(fromHostFile, specifier);
  return rememberedAt('f', fromHostFile, specifier, () => resolvePackageFileAfresh(fromHostFile, specifier));
}

function resolvePackageFileAfresh(fromHostFile, specifier) {
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

const json5TextCharsMax = 1_048_576;
const json5TextsMax = 1_000;
const json5CharsMax = 16 * 1_048_576;

/**
 * json5 with its parse remembered by text: a parse without a reviver is a function of the text, so the same text gets
 * a structured clone of the first result (a fresh object graph, as a parse makes; JSON5 values are plain data). Every
 * incarnation of a release parses the same 107 plugin manifests; a clone costs a fraction of the character-by-character
 * parse. At most 1,000 texts of up to 1 MiB each and 16 MiB in all are kept (the oldest go first): bounded by the
 * release's own files. (The limit was 64 KiB a text until issue 46: 2026.4.24's discord, slack and telegram manifests,
 * 70 to 100 KB, were parsed afresh by every incarnation.)
 */
function memoizedJson5(json5) {
  const remembered = new Map();
  let chars = 0;
  const parse = (text, reviver) => {
    if (reviver !== undefined || typeof text !== 'string' || text.length > (loaderBaseline() ? 65_536 : json5TextCharsMax)) return json5.parse(text, reviver);
    if (!remembered.has(text)) {
      remembered.set(text, json5.parse(text));
      chars += text.length;
      while (remembered.size > json5TextsMax || chars > json5CharsMax) {
        const oldest = remembered.keys().next().value;
        remembered.delete(oldest);
        chars -= oldest.length;
      }
    }
    return structuredClone(remembered.get(text));
  };
  return { ...json5, parse };
}

/**
 * ajv's compile made lazy, in one instance's ajv (its dist/core.js, run by that instance): `compile(schema)` adds the
 * schema as before (ajv's _addSchema: the schema checked against its meta-schema, registered under its $id) and
 * answers a validator that generates and compiles its code at its first call, where ajv does both at once. 2026.4.24's
 * gateway protocol compiles 114 schemas at module level (dist/client-*.js, region src/gateway/protocol/index.ts) in
 * every gateway incarnation, about a quarter of a chaos run's CPU there, and a run calls few of those validators. The
 * validator answers as ajv's own: the same result, `errors` (read and written through to the compiled one), `schema`,
 * `schemaEnv`, `$async` when the schema is async; the same function for the same schema at every compile. Only with
 * the options that add nothing else to a validator (no `code.source`, no `unevaluated`); otherwise ajv's compile is
 * called as it is. Generating the code touches nothing of the simulated world (the code is compiled through the
 * instance's Function, compilingFunction, either way), so a run's trace is the same (the loader-speedups test).
 */
function lazyAjvCompile(ajvCore) {
  const Ajv = ajvCore?.default ?? ajvCore?.Ajv;
  const compile = Ajv?.prototype?.compile;
  if (typeof compile !== 'function' || loaderBaseline()) return;
  const lazy = new WeakMap();
  Ajv.prototype.compile = function (schema, meta) {
    if (this.opts?.code?.source === true || this.opts?.unevaluated) return compile.call(this, schema, meta);
    const sch = this._addSchema(schema, meta);
    const known = lazy.get(sch);
    if (known !== undefined) return known;
    if (sch.validate !== undefined) return sch.validate;
    const compiled = () => sch.validate ?? this._compileSchemaEnv(sch);
    const validate = function (...args) {
      return Reflect.apply(compiled(), this, args);
    };
    Object.defineProperty(validate, 'errors', {
      get: () => (sch.validate === undefined ? null : sch.validate.errors),
      set: (value) => {
        compiled().errors = value;
      },
      enumerable: true,
      configurable: true,
    });
    validate.schema = sch.schema;
    validate.schemaEnv = sch;
    if (sch.$async) validate.$async = true;
    lazy.set(sch, validate);
    return validate;
  };
}

/** ajv's class, whose compile lazyAjvCompile makes lazy (any copy of ajv 8 in the workspace). */
const ajvCoreFile = '/node_modules/ajv/dist/core.js';

/** A package file's outer function whose module function calls `then(module.exports)` once it has run. */
function afterRun(outer, then) {
  return (scope) => {
    const run = outer(scope);
    return function (exports, require, module, ...rest) {
      const result = Reflect.apply(run, this, [exports, require, module, ...rest]);
      then(module.exports);
      return result;
    };
  };
}

export const hostRequire = createRequire(import.meta.url);

let esbuild;
/** esbuild, the ES module to CommonJS rewriter (pinned in gatesim's devDependencies, the version tsx also brings: the rewrite is deterministic for one version). */
function esbuildOf() {
  esbuild ??= hostRequire('esbuild');
  return esbuild;
}

/**
 * esbuild's rewrite of an ES module file to CommonJS, kept on disk between processes (issue 46: a process that loads a
 * release, each worker thread and each release of a bisect, rewrote its ES module files afresh, about a quarter of a
 * bisect's CPU). The rewrite is a pure function of esbuild's version, the options and the source, so the entry is
 * named by a SHA-256 of the three and holds the code's own SHA-256, checked on every read: an entry that is missing,
 * unreadable or not what it says is rewritten afresh (and written again). The folder is the openclaw/ workspace's
 * node_modules/.cache/gatesim-esbuild/ (removed with the workspace's packages), or the folder `GATESIM_ESBUILD_CACHE`
 * names (`off`: none); where it cannot be written, every process rewrites as before. Written to a file of its own,
 * then renamed into place, so a reader never sees half an entry.
 */
export function rewrittenToCommonJs(body, options) {
  const rewrite = () => esbuildOf().transformSync(body, options).code;
  const dir = rewriteCacheDir();
  if (dir === undefined) return rewrite();
  const key = sha256(JSON.stringify([esbuildOf().version, options, body]));
  const file = `${dir}/${key}.js`;
  try {
    const text = readFileSync(file, 'utf8');
    const newline = text.indexOf('\n');
    const code = text.slice(newline + 1);
    if (newline > 0 && text.slice(0, newline) === `// ${key} ${sha256(code)}`) return code;
  } catch {
    // Not there yet (or unreadable): rewritten below.
  }
  const code = rewrite();
  try {
    realFs.mkdirSync(dir, { recursive: true });
    const temporary = `${file}.${process.pid}.${threadId}.tmp`;
    realFs.writeFileSync(temporary, `// ${key} ${sha256(code)}\n${code}`);
    realFs.renameSync(temporary, file);
  } catch {
    // A folder that cannot be written: the next process rewrites this file again.
  }
  return code;
}

/** The folder of rewritten files: `GATESIM_ESBUILD_CACHE` (a folder, or `off`), else the workspace's, once it is installed. */
function rewriteCacheDir() {
  const chosen = process.env.GATESIM_ESBUILD_CACHE;
  if (chosen === 'off') return undefined;
  if (chosen !== undefined && chosen !== '') return chosen;
  return hostKind(`${workspaceRootDir}/node_modules`) === 'directory' ? `${workspaceRootDir}/node_modules/.cache/gatesim-esbuild` : undefined;
}

function sha256(text) {
  return createHash('sha256').update(text).digest('hex');
}

const packageFiles = new Map();

/**
 * esbuild's helpers for an ES module rewritten to CommonJS, as esbuild 0.28 writes them at the head of its output:
 * `__export` defines each export of a module as an accessor whose getter is the arrow `() => <local>` (a live
 * binding), and `__copyProps` (under `__toCommonJS`, `__toESM` and `__reExport`) copies every property of another
 * module's exports as an accessor `() => from[key]`. A package of many files re-exported through index files (typebox:
 * every `Guard.X` of its clone and check code) reads each binding through a getter per file it was re-exported by: 2
 * to 4 calls per read, about 5% of a chaos run's CPU with 2026.7.1. esbuildHelpers rewrites the two getters (in the
 * helper block esbuild put before the module's own code, when the text is esbuild's to the character): each getter
 * the helpers define is remembered as one (liveGetters); `__copyProps` copying a property that is a non-configurable
 * accessor with such a getter, of an object that is not a Proxy, defines the copy with the same getter instead of one
 * more `() => from[key]`. The same value at every read, by the language's rules: reading `from[key]` of an ordinary
 * object whose own property is an accessor calls its getter, a non-configurable property keeps its getter forever,
 * and an arrow ignores the receiver it is called with. Every getter remembered is an arrow: `__copyProps`'s own, and
 * `__export`'s, which are rewritten only in a file whose every `__export(...)` call esbuild wrote passes an object of
 * arrows `name: () => ...` (checked in the text, exportCallsAreArrows). `__copyProps` still asks for the property's
 * descriptor once, as esbuild's does (for `enumerable`). Only the getters' identity differs (a copy's getter is the
 * original's), which no code of a release compares. The two functions are bound in the module's wrapper outside its
 * scope's reach (compilePackageFile), so calling them costs no lookup through the instance's scope.
 */
const liveGetters = new WeakSet();

/** An esbuild export getter (`() => local`, exportCallsAreArrows), remembered as a live getter. */
function liveGetter(get) {
  liveGetters.add(get);
  return get;
}

/** The getter of `__copyProps`'s copy of from[key], whose descriptor `desc` the helper has just read. */
function copyGetter(from, key, desc) {
  if (desc !== undefined && desc.configurable === false && liveGetters.has(desc.get) && !realTypes.isProxy(from)) return desc.get;
  const get = () => from[key];
  liveGetters.add(get);
  return get;
}

const esbuildExportLine = '    __defProp(target, name, { get: all[name], enumerable: true });';
const esbuildCopyLine = '        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });';
const exportCallLine = /^__export\([\w$]+, \{$/;
const exportEntryLine = /^ {2}(?:[\w$]+|"(?:[^"\\]|\\.)*"): \(\) => [^\n]+?,?$/;

/** Whether every mention of `__export` after the helper block is a call of esbuild's shape with arrows only. */
function exportCallsAreArrows(lines, from) {
  for (let index = from; index < lines.length; index++) {
    const line = lines[index];
    if (!line.includes('__export')) continue;
    if (!exportCallLine.test(line)) return false;
    for (index++; index < lines.length && lines[index] !== '});'; index++) if (!exportEntryLine.test(lines[index])) return false;
  }
  return true;
}

/** esbuild's output with its two getters rewritten (header of liveGetters), or as it is when its helpers differ. */
function esbuildHelpers(code) {
  if (loaderBeforeRound2()) return code;
  const lines = code.split('\n');
  // The helper block: esbuild's `var __x = ...` definitions and their bodies, before the module's own code.
  let end = 0;
  while (end < lines.length && (lines[end].startsWith('var __') || lines[end].startsWith(' ') || lines[end] === '};' || lines[end].startsWith('));'))) end++;
  const exportAt = lines.indexOf(esbuildExportLine);
  const copyAt = lines.indexOf(esbuildCopyLine);
  if (exportAt >= 0 && exportAt < end && exportCallsAreArrows(lines, end)) lines[exportAt] = '    __defProp(target, name, { get: __gatesimLiveGetter(all[name]), enumerable: true });';
  if (copyAt >= 0 && copyAt < end) lines[copyAt] = '        __defProp(to, key, { get: __gatesimCopyGetter(from, key, desc = __getOwnPropDesc(from, key)), enumerable: !desc || desc.enumerable });';
  return lines.join('\n');
}

/**
 * A package file compiled once per process: `{ format: 'json', json }` or `{ format: 'commonjs' | 'module', outer }`
 * where outer(scope) returns the module function (exports, require, module, __filename, __dirname, importMeta).
 * A file that cannot be compiled (top-level await, a syntax error) throws each time it is asked for.
 */
export function compilePackageFile(hostPath) {
  // Compiled apart with and without esbuildHelpers (loaderBeforeRound2), so one process can compare the two.
  const cacheKey = loaderBeforeRound2() ? `before-round-2\u0000${hostPath}` : hostPath;
  let compiled = packageFiles.get(cacheKey);
  if (compiled === undefined) {
    try {
      assertInWorkspace(hostPath);
      const source = readFileSync(hostPath, 'utf8');
      if (hostPath.endsWith('.json')) compiled = { format: 'json', json: source };
      else {
        const format = isModuleFile(hostPath) ? 'module' : 'commonjs';
        let body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
        if (format === 'module') {
          body = `"use strict";${esbuildHelpers(
            rewrittenToCommonJs(body, {
              format: 'cjs',
              platform: 'node',
              target: 'node20',
              sourcefile: workspaceVirtualPath(hostPath),
              supported: { 'dynamic-import': false },
              define: { 'import.meta': '__gatesimImportMeta' },
              logLevel: 'silent',
            }),
          )}`;
        }
        // An ES module has no __filename or __dirname of its own (pi-coding-agent's dist/config.js declares them as
        // constants): its wrapper's parameters take names it cannot clash with.
        const names = format === 'module' ? '__gatesimFilename, __gatesimDirname' : '__filename, __dirname';
        // An ES module's wrapper binds esbuild's two getters (esbuildHelpers) as parameters of a function inside the
        // `with`, so the module finds them before its scope, which is asked for them once per instance.
        const code =
          format === 'module' && !loaderBeforeRound2()
            ? `with (__gatesimScope) { return ((__gatesimLiveGetter, __gatesimCopyGetter) => function (exports, require, module, ${names}, __gatesimImportMeta) { ${body}\n})(__gatesimLiveGetterOf, __gatesimCopyGetterOf); }`
            : `with (__gatesimScope) { return function (exports, require, module, ${names}, __gatesimImportMeta) { ${body}\n}; }`;
        const compiledOuter = compileFunction(code, ['__gatesimScope', '__gatesimLiveGetterOf', '__gatesimCopyGetterOf'], { filename: workspaceVirtualPath(hostPath) });
        const outer = (scope) => compiledOuter(scope, liveGetter, copyGetter);
        compiled = { format, outer: hostPath.endsWith(ajvCoreFile) ? afterRun(outer, lazyAjvCompile) : outer };
      }
    } catch (error) {
      compiled = { format: 'error', error };
    }
    packageFiles.set(cacheKey, compiled);
  }
  if (compiled.format === 'error') throw compiled.error;
  return compiled;
}

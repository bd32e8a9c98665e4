// The host side of the OpenClaw loader (sim/real/openclaw/): the one place where a pinned OpenClaw release meets the
// real world and the globals it was written against. It reads the release's dist/ chunks from the openclaw/ workspace
// (a real directory listing and real file reads), compiles a chunk once (node:vm compileFunction) and makes the
// simulated world a chunk instance sees. This file is the entry that sim/real/openclaw/ and the tests import; its
// parts, one file per thing simulated, are under sim/real/openclaw-hooks/, and those that must name what they
// replace are exempt from the determinism ban (eslint.config.js, test/determinism-ban.test.ts), as sim/real/hooks.mjs
// is:
//
// - workspace.mjs: the openclaw/ workspace on the real disk (installed releases, their dist/ chunks);
// - compile.mjs: compiling a chunk (and generated code) and the scope it resolves names through;
// - package-loader.mjs: the release's npm packages, resolved in the workspace and compiled once per process;
// - fs.mjs: the disk (the read-only package view, the binding's simulated disk, Stats, Dirent, ENOENT);
// - globals.mjs, timers.mjs, process.mjs: the simulated globals;
// - builtins.mjs, async-local-storage.mjs: the built-in modules;
// - loud.mjs: what is not simulated; world.mjs: one instance's world, which puts the others together.
//
// What the simulated world has:
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
//   modules), AsyncLocalStorage of `node:async_hooks`, `node:sqlite`'s in-memory databases (Node 24), `node:zlib`'s
//   pure synchronous functions (deflate, gzip, brotli, zstd of a buffer); the pure ones (`node:path` as posix,
//   `node:url`, `node:util`, `node:events`, `node:stream`, `node:buffer`, ...) as they are; of any other built-in
//   module only its constants; read-only descriptors of the package files (openSync, readSync, fstatSync, closeSync);
// - the release's npm packages (resolvePackage, compilePackageFile of package-loader.mjs;
//   sim/real/openclaw/packages.ts runs them);
// - what the simulated machine answers where a host would: `new Function` throws EvalError (code generation from
//   strings disallowed, as under Node's --disallow-code-generation-from-strings; not an escape), a FinalizationRegistry
//   never calls back and a WeakRef always derefs (nothing is collected in the simulated world), `Atomics.wait` answers
//   at once (one thread, nothing can notify it; a wait without a timeout is loud), `os.availableParallelism` is 2.
//
// Everything else through which a chunk could reach the host throws `gatesim: ... is not simulated` when touched, and
// is reported to the binding (`escaped`) even if the chunk catches the error: a built-in module not listed above
// (child_process, net, http, worker_threads, ...), an unsimulated function of a listed one (a sqlite database on a
// path, the SQLite-era releases' agent DB), a global that is neither a plain ECMAScript built-in nor listed here (fetch,
// eval, WebAssembly, ...), an unknown `process` or `console` property, a write to the release's package files, a
// descriptor of the simulated disk (fsync has no synchronous form there yet), a module.createRequire outside the
// release's and the workspace's files. Globals that only some Node versions have (navigator, WebSocket, Node 24's
// SuppressedError and DisposableStack, ...) are absent in every version, so a release behaves alike on Node 20 and 24
// (a chunk's scope holds them, so it never reaches the host's global object for them).
//
// A chunk is compiled as `with (scope) { return function* () { "use strict"; <chunk body> } }`: the chunk's own code
// stays strict, its free identifiers resolve through the scope (a chain of plain objects: the chunk's imports
// as live bindings, then the instance's simulated globals, then a Proxy for the rest; compile.mjs chunkScope), and the generator's first step registers the chunk's exports (getters, so a not yet
// initialised `const` throws as in a module), which lets the loader link a closure, cycles included, before it
// evaluates it. Compiled once per process; each instance (one per process incarnation) calls the compiled function
// with a scope of its own, so module state is per instance and is freed with it.
export { isChunkFile, listReleaseChunks, openclawWorkspaceDir, readReleaseChunk, releasePackageDir, virtualPackageRoot } from './openclaw-hooks/workspace.mjs';
export { chunkScope, compileChunk, loaderBeforeRound2 } from './openclaw-hooks/compile.mjs';
export {
  compilePackageFile,
  resolvePackage,
  resolvePackageFile,
  rewrittenToCommonJs,
  sharedPackageExports,
  workspaceHostPath,
  workspaceVirtualPath,
  workspaceVirtualRoot,
} from './openclaw-hooks/package-loader.mjs';
export { enoent, simulatedDirent, simulatedStats } from './openclaw-hooks/fs.mjs';
export { builtinModule, readStreamContents, requireBuiltin } from './openclaw-hooks/builtins.mjs';
export { createInstanceWorld } from './openclaw-hooks/world.mjs';

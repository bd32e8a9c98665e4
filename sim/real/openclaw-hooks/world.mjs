// One instance's world (one process incarnation): its globals, timers, process, disk and built-in modules made from its
// binding, and the global object a chunk sees (globalThis and global: a store of the instance's own over the
// simulated globals, so globalThis singletons are per instance). Exempt from the determinism ban (eslint.config.js,
// test/determinism-ban.test.ts): it names the timer globals it replaces.
import * as realUtil from 'node:util';
import { requireBuiltin } from './builtins.mjs';
import { compilingFunction } from './compile.mjs';
import { simulatedFs } from './fs.mjs';
import {
  absentGlobals,
  plainGlobals,
  realGlobal,
  SimulatedFinalizationRegistry,
  simulatedAtomics,
  SimulatedWeakRef,
  simulatedDate,
  simulatedFunction,
  simulatedIntl,
  simulatedMath,
  simulatedWebCrypto,
} from './globals.mjs';
import { loudness } from './loud.mjs';
import { simulatedProcess } from './process.mjs';
import { simulatedAbortSignal, simulatedTimers } from './timers.mjs';

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
    WeakRef: SimulatedWeakRef,
    Atomics: simulatedAtomics(timers, loud),
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
  /**
   * Whether a free identifier must stop at the instance's scope though it does not resolve there: an absent global
   * (absentGlobals), which a chunk's `with (scope)` would otherwise find on the host's global object where the host has
   * it (Node 24's navigator, SuppressedError), so that it reads undefined on every Node.
   */
  world.shadows = (key) => typeof key === 'string' && absentGlobals.has(key) && !(key in store);
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

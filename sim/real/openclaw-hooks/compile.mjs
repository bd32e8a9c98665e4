// Compiling code to run inside the simulated world: a release's chunk (compiled once per process, called once per
// instance), code generated from strings when an instance allows it (ajv's validators), and the scope through which
// either resolves its free identifiers (the instance's globals, never the host's). A compiled function is the host's
// (node:vm compileFunction); what keeps it inside the simulation is the `with (scope)` it is compiled under.
import { compileFunction } from 'node:vm';
import { absentGlobals, plainGlobals, realGlobal } from './globals.mjs';

/**
 * Compile a chunk's body (its import and export lines blanked by the caller, so line numbers stay) as the outer
 * function of a chunk instance: called with a scope, it returns the generator that first runs `registration` (one
 * line, put before the body's first line) and yields, then runs the body.
 */
export function compileChunk(body, registration, filename) {
  const code = `with (__gatesimScope) { return function* () { "use strict"; ${registration} yield; ${body}\n}; }`;
  return compileFunction(code, ['__gatesimScope'], { filename });
}

const unscopables = Symbol.unscopables;

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
export function compilingFunction(world) {
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
 * The scope of one chunk instance: `own` holds its imports (a getter each, so bindings are live) and the names the
 * loader passes (exports registration, import.meta, dynamic import); then the instance's globals. An absent global
 * (world.shadows) is held here too, reading undefined, so the lookup never reaches the host's global object, which has
 * some of them on Node 24 (`typeof navigator` was "object" there before, "undefined" on Node 20).
 *
 * The chain is of plain objects where it can be: `own`, then the instance's scope of globals (globalsScope: a getter
 * and a setter for each global the instance has whatever its store holds), then a Proxy for the rest (a name the
 * instance's store took later, a host global that is loud). A `with` over a Proxy calls its traps for every free
 * identifier a chunk reads (has, get, and a get of Symbol.unscopables); over plain objects V8 looks the name up
 * itself, and the Proxy is reached only by the rare names the plain objects do not hold. Each lookup answers what
 * the Proxy alone answered: the same `has` for every name, the same value (world.get, so the store comes first), a
 * write to a global goes to the instance's store (world.store), to an import throws a TypeError.
 */
export function chunkScope(world, own) {
  if (loaderBaseline()) return proxyScope(world, own);
  Object.setPrototypeOf(own, globalsScope(world));
  return own;
}

const globalsScopes = new WeakMap();

/**
 * The globals part of an instance's chunk scopes, made once per instance (header of chunkScope). A name gets a getter
 * and a setter here only when world.has answers true for it without the store (the simulated globals, globalThis and
 * global, the plain built-ins the host has: `Iterator` is one on Node 22 and later only) or world.shadows does (the
 * absent globals); any other name falls through to the Proxy, which asks the world as before.
 */
function globalsScope(world) {
  let scope = globalsScopes.get(world);
  if (scope !== undefined) return scope;
  const rest = new Proxy(Object.create(null), {
    has: (_target, key) => key !== unscopables && (world.has(key) || world.shadows(key)),
    get: (_target, key) => (key === unscopables ? undefined : world.get(key)),
    set: (_target, key, value) => {
      world.store[key] = value;
      return true;
    },
  });
  scope = Object.create(rest);
  // Stops V8's Symbol.unscopables lookup of a `with` before the Proxy: undefined, as the Proxy answered.
  Object.defineProperty(scope, unscopables, { value: undefined, writable: false, enumerable: false, configurable: false });
  for (const key of scopeNamesOf(world)) {
    Object.defineProperty(scope, key, {
      get: globalGetter(world, key),
      set: (value) => {
        world.store[key] = value;
      },
      enumerable: true,
      configurable: false,
    });
  }
  globalsScopes.set(world, scope);
  return scope;
}

/**
 * world.get(key) for one of scopeNamesOf's names, in world.get's order (world.mjs) with its answer for this name fixed:
 * the instance's store first, then the simulated global, globalThis and global, the plain built-in, else (an absent
 * global) undefined. None of these names is loud, so none reaches world.get's last case.
 */
function globalGetter(world, key) {
  const { store, globals } = world;
  if (key in globals) return () => (key in store ? store[key] : globals[key]);
  if (key === 'globalThis' || key === 'global') return () => (key in store ? store[key] : world.global);
  if (plainGlobals.has(key)) return () => (key in store ? store[key] : realGlobal[key]);
  return () => (key in store ? store[key] : undefined);
}

/** The names world.has or world.shadows answers true for whatever the instance's store holds (world.mjs). */
function scopeNamesOf(world) {
  const names = new Set(['globalThis', 'global', ...absentGlobals]);
  // world.has asks `key in globals`, which an object literal's prototype answers too (toString, constructor, ...).
  for (let object = world.globals; object !== null; object = Object.getPrototypeOf(object)) for (const key of Object.getOwnPropertyNames(object)) names.add(key);
  for (const key of plainGlobals) if (!absentGlobals.has(key) && key in realGlobal) names.add(key);
  return names;
}

/** The scope as one Proxy over `own`: what chunkScope made before the plain chain (loaderBaseline). */
function proxyScope(world, own) {
  return new Proxy(own, {
    has: (target, key) => key !== unscopables && (key in target || world.has(key) || world.shadows(key)),
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

const baselineKey = Symbol.for('gatesim.openclaw.loader-baseline');

/**
 * Whether the loader runs without its speed-ups of issue 46 (the plain scope chain here; the lazy ajv compile, the
 * json5 memo's larger texts and the remembered resolutions of package-loader.mjs). Set
 * `globalThis[Symbol.for('gatesim.openclaw.loader-baseline')] = true` to compare, in one process, runs with them and
 * without them (test/real/openclaw-loader-speedups.nightly.test.ts: the same trace hash).
 */
export function loaderBaseline() {
  return globalThis[baselineKey] === true;
}

const beforeRound2Key = Symbol.for('gatesim.openclaw.loader-before-round-2');

/**
 * Whether the loader runs without the speed-ups of issue 46's second round (package-loader.mjs: esbuild's re-export
 * getters shared, esbuildHelpers, and the remembered resolutions kept in a map per origin; sim/real/openclaw/binding.ts:
 * a binary file's presence and size without its text or a copy of its bytes), the first round's kept: `globalThis[Symbol.for('gatesim.openclaw.loader-before-round-2')] = true` to compare the two in
 * one process. Implied by loaderBaseline.
 */
export function loaderBeforeRound2() {
  return loaderBaseline() || globalThis[beforeRound2Key] === true;
}

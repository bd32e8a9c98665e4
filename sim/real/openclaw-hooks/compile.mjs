// Compiling code to run inside the simulated world: a release's chunk (compiled once per process, called once per
// instance), code generated from strings when an instance allows it (ajv's validators), and the scope through which
// either resolves its free identifiers (the instance's globals, never the host's). A compiled function is the host's
// (node:vm compileFunction); what keeps it inside the simulation is the `with (scope)` it is compiled under.
import { compileFunction } from 'node:vm';

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
 */
export function chunkScope(world, own) {
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

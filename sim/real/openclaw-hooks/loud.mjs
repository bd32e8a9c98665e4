// What is not simulated: the loud failures of one instance (each throws and is reported to binding.escaped, even if
// the chunk catches it), and the partial module, which keeps a real module's shape but makes every export the
// simulation does not provide loud.

/** The loud failures of one instance: each throws and is reported to binding.escaped, caught or not. */
export function loudness(binding) {
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
 * A module namespace where `simulated` names are the simulation's, `pure` names and primitive constants are the real
 * ones, and every other export throws when used.
 */
export function partialModule(loud, name, real, simulated, pure = []) {
  const namespace = {};
  for (const key of Object.keys(real)) {
    if (key === 'default') continue;
    const value = real[key];
    if (typeof value === 'function') {
      namespace[key] = loud.fn(`${name}.${key}`);
      // A function's own function-valued properties (fs.realpath.native, which 2026.8.1 promisifies at load): loud too.
      for (const property of Object.getOwnPropertyNames(value)) {
        if (property !== 'prototype' && property !== 'constructor' && typeof value[property] === 'function') namespace[key][property] = loud.fn(`${name}.${key}.${property}`);
      }
    }
    else if (value === null || typeof value !== 'object') namespace[key] = value;
    else namespace[key] = loud.object(`${name}.${key}`);
  }
  for (const key of pure) namespace[key] = real[key];
  Object.assign(namespace, simulated);
  return { ...namespace, default: loud.strict(name, namespace) };
}

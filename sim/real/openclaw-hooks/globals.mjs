// The simulated globals of one instance (one process incarnation), but for the timers (timers.mjs) and process
// (process.mjs): which host globals a chunk sees as they are and which are absent, and Date on the simulated clock,
// Math.random and the crypto global from the instance's PRNG, Intl in UTC and en-US, Function that refuses to compile
// strings, a FinalizationRegistry that never calls back. Exempt from the determinism ban (eslint.config.js,
// test/determinism-ban.test.ts): it must name the clock and randomness APIs it replaces.

/** ECMAScript built-ins and deterministic host built-ins a chunk may use as they are. */
export const plainGlobals = new Set([
  'Object', 'Array', 'Number', 'parseFloat', 'parseInt', 'Infinity', 'NaN', 'undefined', 'Boolean',
  'String', 'Symbol', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError',
  'TypeError', 'URIError', 'BigInt', 'JSON', 'Reflect', 'Proxy', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet',
  'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray',
  'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array',
  'BigUint64Array', 'RegExp', 'isNaN', 'isFinite', 'decodeURI', 'decodeURIComponent', 'encodeURI',
  'encodeURIComponent', 'escape', 'unescape', 'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams',
  'Buffer', 'AbortController', 'Event', 'EventTarget', 'DOMException', 'structuredClone', 'atob', 'btoa', 'Blob',
  'Headers', 'Request', 'Response', 'FormData', 'TextEncoderStream', 'TextDecoderStream', 'ReadableStream',
  'WritableStream', 'TransformStream', 'Iterator',
]);

/**
 * Globals that only some Node versions have: absent in every version, so a release runs alike on Node 20 and 24. The
 * explicit-resource-management globals (SuppressedError, DisposableStack, AsyncDisposableStack), Float16Array and
 * URLPattern are Node 24's: 2026.9.6's `using` helper (dist/usingCtx-*.mjs) asks `typeof SuppressedError` and takes its
 * own polyfill when there is none, as it does on Node 20.
 */
export const absentGlobals = new Set([
  'navigator', 'Navigator', 'WebSocket', 'EventSource', 'CustomEvent', 'localStorage', 'sessionStorage', 'CloseEvent',
  'SuppressedError', 'DisposableStack', 'AsyncDisposableStack', 'Float16Array', 'URLPattern',
]);

export const realGlobal = globalThis;
const RealDate = Date;
const realMath = Math;

/** Date on the simulated clock, in UTC whatever the host's time zone. */
export function simulatedDate(binding) {
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
export function simulatedMath(binding) {
  const math = Object.create(Object.prototype);
  for (const key of Object.getOwnPropertyNames(realMath)) math[key] = realMath[key];
  Object.defineProperty(math, Symbol.toStringTag, { value: 'Math' });
  math.random = () => (binding.randomInt(0, 2 ** 26 - 1) * 2 ** 27 + binding.randomInt(0, 2 ** 27 - 1)) / 2 ** 53;
  return Object.freeze(math);
}

export function fillRandom(binding, view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let i = 0; i < bytes.length; i++) bytes[i] = binding.randomInt(0, 255);
  return view;
}

/**
 * Intl with the simulated world's defaults: a date format with no time zone formats in UTC and one with no locale
 * in en-US, whatever the host's TZ and LANG (other Intl services get en-US when no locale is given).
 */
export function simulatedIntl() {
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
export function simulatedFunction() {
  const refuse = () => {
    throw new EvalError('Code generation from strings disallowed for this context');
  };
  return new Proxy(Function, { apply: refuse, construct: refuse });
}

/**
 * A FinalizationRegistry whose callbacks never run: when the host's garbage collector runs is not part of the simulated
 * world, so nothing is ever collected there (a cleanup the code also does explicitly still happens; one it leaves to
 * the collector does not). It holds no reference to what is registered.
 */
export class SimulatedFinalizationRegistry {
  constructor(callback) {
    if (typeof callback !== 'function') throw new TypeError('FinalizationRegistry: cleanup must be callable');
  }
  register() {}
  unregister() {
    return false;
  }
}

/**
 * A WeakRef that always derefs: nothing is collected in the simulated world (as a FinalizationRegistry never calls
 * back), so `deref()` answers the target for as long as the instance lives. It holds its target strongly; an instance's
 * WeakRefs are freed with the instance.
 */
export class SimulatedWeakRef {
  #target;
  constructor(target) {
    if ((typeof target !== 'object' && typeof target !== 'function') || target === null) {
      if (typeof target !== 'symbol' || Symbol.keyFor(target) !== undefined) throw new TypeError('WeakRef: invalid target');
    }
    this.#target = target;
  }
  deref() {
    return this.#target;
  }
  get [Symbol.toStringTag]() {
    return 'WeakRef';
  }
}

/** The longest `Atomics.wait` the simulated world answers (a synchronous block of the whole process). */
const atomicsWaitMaxMs = 60_000;

/**
 * Atomics with `wait` and `waitAsync` on the simulated world: an instance has one thread and no worker shares memory
 * with it, so no `Atomics.notify` can wake a waiter. `wait` answers "not-equal" when the value differs, else
 * "timed-out" at once for a finite timeout up to a minute, the simulated clock not moving: a synchronous block holds
 * the whole process, and nothing it can observe changes meanwhile (2026.7.1's loadSessionStore blocks 50 ms before
 * it reads the store again; the simulated disk answers the same). A wait with no timeout, or a longer one, would hang
 * a real process: loud. `waitAsync` resolves "timed-out" on a simulated timer. Everything else is the real Atomics.
 */
export function simulatedAtomics(timers, loud) {
  const atomics = Object.create(Object.prototype);
  for (const key of Object.getOwnPropertyNames(Atomics)) atomics[key] = Atomics[key];
  Object.defineProperty(atomics, Symbol.toStringTag, { value: 'Atomics' });
  const timeoutOf = (timeout) => (timeout === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Number(timeout)));
  atomics.wait = (typedArray, index, value, timeout) => {
    if (Atomics.load(typedArray, index) !== (typeof value === 'bigint' ? value : Number(value))) return 'not-equal';
    const ms = timeoutOf(timeout);
    if (!(ms <= atomicsWaitMaxMs)) throw loud(`Atomics.wait for ${ms === Number.POSITIVE_INFINITY ? 'ever' : `${ms} ms`} (nothing in the simulated world can notify it)`);
    return 'timed-out';
  };
  atomics.waitAsync = (typedArray, index, value, timeout) => {
    if (Atomics.load(typedArray, index) !== (typeof value === 'bigint' ? value : Number(value))) return { async: false, value: 'not-equal' };
    const ms = timeoutOf(timeout);
    if (!(ms <= atomicsWaitMaxMs)) throw loud(`Atomics.waitAsync for ${ms === Number.POSITIVE_INFINITY ? 'ever' : `${ms} ms`} (nothing in the simulated world can notify it)`);
    if (ms === 0) return { async: false, value: 'timed-out' };
    return { async: true, value: new Promise((resolve) => timers.setTimeout(() => resolve('timed-out'), ms)) };
  };
  return Object.freeze(atomics);
}

export function simulatedWebCrypto(binding, loud) {
  return loud.strict('crypto', {
    randomUUID: () => binding.uuidV4(),
    getRandomValues: (view) => fillRandom(binding, view),
  });
}

// The timers of one instance: setTimeout, setInterval, setImmediate and their clear functions on the simulated clock
// (binding.setTimer, so only the scheduler moves time), queueMicrotask and process.nextTick fenced so a killed
// incarnation's continuations never run, node:timers/promises, and AbortSignal.timeout. Exempt from the determinism
// ban (eslint.config.js, test/determinism-ban.test.ts): it must name the timer APIs it replaces.

const realNextTick = process.nextTick;
const realQueueMicrotask = queueMicrotask;
const RealAbortSignal = AbortSignal;

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

export function simulatedTimers(binding, loud) {
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

export function simulatedAbortSignal(timers) {
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

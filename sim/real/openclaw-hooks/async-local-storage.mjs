// node:async_hooks's AsyncLocalStorage as the simulated world has it: the storages of every instance carried by one
// real storage per process (why below).
import * as realAsyncHooks from 'node:async_hooks';

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

export class SimulatedAsyncLocalStorage {
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

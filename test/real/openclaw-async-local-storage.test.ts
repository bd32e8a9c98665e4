// AsyncLocalStorage under the OpenClaw hooks (sim/real/openclaw-hooks.mjs SimulatedAsyncLocalStorage), issue 22.
// On Node 20 a real AsyncLocalStorage that has once run a callback stays in a process-wide list until disabled, and
// every promise the process creates copies a store for each storage in the list: it leaves a symbol-keyed property on
// the new promise's async resource. A release makes its storages at module level, one set per instance (one instance
// per process incarnation), so before the fix a campaign's process collected storages without end (51 after 25 chaos
// runs with 2026.7.1's write lock and mirror append) and every promise, the kernel's settle hops included, paid for
// each. These tests count the properties a fresh promise's resource carries: the instances' storages add at most one
// (the hooks' single carrier), however many instances ran them. The storages still behave as Node's do.
import { executionAsyncResource } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { simEpochMs } from '../../src/pi-format.ts';
import type { Clock } from '../../src/ports.ts';
import { noRandom, noTimers } from './no-world.ts';
import { builtinModule, createInstanceWorld, type HooksBinding } from '../../sim/real/openclaw-hooks.mjs';
import { openclawBinding, OpenclawInstance } from '../../sim/real/openclaw/index.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('real OpenClaw tests', ['2026.7.1']);

interface Storage<T> {
  getStore(): T | undefined;
  run<R>(store: T, callback: (...args: unknown[]) => R, ...args: unknown[]): R;
  exit<R>(callback: (...args: unknown[]) => R, ...args: unknown[]): R;
  enterWith(store: T): void;
  disable(): void;
}
type StorageClass = new <T>() => Storage<T>;

/** How many stores a promise made now carries on its async resource (one per enabled real storage, and Node's own). */
async function storesOnAFreshPromise(): Promise<number> {
  await null;
  return Object.getOwnPropertySymbols(executionAsyncResource()).length;
}

function hooksBinding(): HooksBinding {
  return {
    epochNowMs: () => simEpochMs,
    monotonicMs: () => 0,
    setTimer: () => {
      throw new Error('no timers in this test');
    },
    randomInt: (min) => min,
    uuidV4: () => '00000000-0000-4000-8000-000000000000',
    alive: () => true,
    escaped: (what) => {
      throw new Error(`escaped: ${what}`);
    },
    log: () => {},
    pid: 4242,
    ppid: 1,
    env: {},
    cwd: '/home/openclaw',
    home: '/home/openclaw',
    tmpdir: '/tmp',
    hostname: 'gatesim',
    packageRoot: '/gatesim/openclaw-test',
    packageHostDir: '/nonexistent',
  };
}

function storageClassOfAnInstance(): StorageClass {
  const world = createInstanceWorld(hooksBinding());
  return (builtinModule(world, 'node:async_hooks', ['AsyncLocalStorage']) as { AsyncLocalStorage: StorageClass }).AsyncLocalStorage;
}

describe("the instances' AsyncLocalStorage", () => {
  it('adds at most one store to every promise of the process, however many instances ran storages', async () => {
    // The hooks' carrier may be enabled already (an earlier test of this file): measure from one instance's run.
    const first = new (storageClassOfAnInstance())<string>();
    first.run('warm', () => {});
    const before = await storesOnAFreshPromise();
    for (let instance = 0; instance < 40; instance++) {
      const Storage = storageClassOfAnInstance();
      for (let storage = 0; storage < 3; storage++) {
        const made = new Storage<number>();
        await made.run(instance, async () => {
          await null;
          expect(made.getStore()).toBe(instance);
        });
        made.enterWith(instance);
      }
    }
    expect(await storesOnAFreshPromise()).toBeLessThanOrEqual(before + 1);
  });

  it('behaves as Node’s: along awaits, per storage, nested, exit, enterWith, disable', async () => {
    const Storage = storageClassOfAnInstance();
    const a = new Storage<string>();
    const b = new Storage<string>();
    expect(a.getStore()).toBeUndefined();
    const seen: (string | undefined)[] = [];
    await a.run('a1', async () => {
      seen.push(a.getStore(), b.getStore());
      await b.run('b1', async () => {
        await null;
        seen.push(a.getStore(), b.getStore());
        await a.run('a2', async () => {
          await Promise.resolve();
          seen.push(a.getStore(), b.getStore());
        });
        seen.push(a.getStore());
        a.exit(() => seen.push(a.getStore(), b.getStore()));
      });
      await null;
      seen.push(a.getStore(), b.getStore());
    });
    expect(seen).toEqual(['a1', undefined, 'a1', 'b1', 'a2', 'b1', 'a1', undefined, 'b1', 'a1', undefined]);
    expect(a.getStore()).toBeUndefined();
    // Two instances' storages never see each other's values.
    const other = new (storageClassOfAnInstance())<string>();
    a.run('mine', () => expect(other.getStore()).toBeUndefined());
    // enterWith holds for the rest of the current async context; disable clears it until the next run.
    await (async () => {
      await null;
      a.enterWith('entered');
      await null;
      expect(a.getStore()).toBe('entered');
      a.disable();
      expect(a.getStore()).toBeUndefined();
      expect(a.run('again', () => a.getStore())).toBe('again');
    })();
  });
});

const manualClock: Clock = { nowMs: () => 0 };

describe.skipIf(missing)("2026.7.1's own storages, one set per instance", () => {
  it("runs the transcript's owned-write context in 60 instances and leaves at most one store on every promise", async () => {
    type Context = { sessionFile: string; withSessionWriteLock: (run: () => Promise<unknown>) => Promise<unknown> };
    const warm = new OpenclawInstance('2026.7.1', openclawBinding('2026.7.1', { clock: manualClock, timers: noTimers, random: noRandom, alive: () => true }));
    const withWrites = (instance: OpenclawInstance) => instance.function<(context: Context, run: () => Promise<unknown>) => Promise<unknown>>('src/config/sessions/transcript-write-context.ts', 'withOwnedSessionTranscriptWrites');
    const runnerOf = (instance: OpenclawInstance) => instance.function<(params: { sessionFile: string }) => unknown>('src/config/sessions/transcript-write-context.ts', 'resolveOwnedSessionTranscriptWriteLockRunner');
    const lock = async (run: () => Promise<unknown>) => run();
    await withWrites(warm)({ sessionFile: '/data/s.jsonl', withSessionWriteLock: lock }, async () => {});
    const before = await storesOnAFreshPromise();
    for (let index = 0; index < 60; index++) {
      const instance = new OpenclawInstance('2026.7.1', openclawBinding('2026.7.1', { clock: manualClock, timers: noTimers, random: noRandom, alive: () => true }));
      const sessionFile = `/data/sessions/${index}.jsonl`;
      // The release finds its own context after an await, and only for its file; another instance's is not seen.
      const found = await withWrites(instance)({ sessionFile, withSessionWriteLock: lock }, async () => {
        await null;
        return [runnerOf(instance)({ sessionFile }), runnerOf(instance)({ sessionFile: '/data/other.jsonl' }), runnerOf(warm)({ sessionFile })];
      });
      expect(found).toEqual([lock, undefined, undefined]);
    }
    expect(await storesOnAFreshPromise()).toBeLessThanOrEqual(before + 1);
  });
});

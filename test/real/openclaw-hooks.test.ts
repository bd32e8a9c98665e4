// The hooks a real OpenClaw chunk runs under (sim/real/openclaw-hooks.mjs), tried on small chunk bodies compiled the
// way the loader compiles a release's chunks: the clock, timers, randomness and process are the simulation's; a
// globalThis singleton belongs to its instance; and whatever is not simulated throws and is reported, even when the
// chunk swallows the error. These need no openclaw/ workspace.
import { describe, expect, it } from 'vitest';
import { simEpochMs } from '../../src/pi-format.ts';
import { builtinModule, chunkScope, compileChunk, createInstanceWorld, type HooksBinding, type InstanceWorld } from '../../sim/real/openclaw-hooks.mjs';

interface Harness {
  binding: HooksBinding;
  world: InstanceWorld;
  escapes: string[];
  logs: string[];
  timers: { delayMs: number; fn: () => void; cancelled: boolean }[];
  clock: { now: number };
  /** Run a chunk body in this instance; `imports` maps local names to built-in modules' exports. */
  run(body: string, imports?: Record<string, { module: string; name: string }>): Record<string, unknown>;
}

function harness(absentBuiltins?: readonly string[]): Harness {
  const escapes: string[] = [];
  const logs: string[] = [];
  const timers: Harness['timers'] = [];
  const clock = { now: 0 };
  let draws = 0;
  const binding: HooksBinding = {
    epochNowMs: () => simEpochMs + clock.now,
    monotonicMs: () => clock.now,
    setTimer: (delayMs, fn) => {
      const timer = { delayMs, fn, cancelled: false };
      timers.push(timer);
      return { cancel: () => (timer.cancelled = true) };
    },
    randomInt: (min, max) => min + (draws++ % (max - min + 1)),
    uuidV4: () => `00000000-0000-4000-8000-${String(draws++).padStart(12, '0')}`,
    alive: () => true,
    escaped: (what) => escapes.push(what),
    log: (level, text) => logs.push(`${level}: ${text}`),
    pid: 4242,
    ppid: 1,
    env: { HOME: '/home/openclaw' },
    cwd: '/home/openclaw',
    home: '/home/openclaw',
    tmpdir: '/tmp',
    hostname: 'gatesim',
    packageRoot: '/gatesim/openclaw-test',
    packageHostDir: '/nonexistent/openclaw-test',
    ...(absentBuiltins === undefined ? {} : { absentBuiltins }),
  };
  const world = createInstanceWorld(binding);
  let chunks = 0;
  return {
    binding,
    world,
    escapes,
    logs,
    timers,
    clock,
    run(body, imports = {}) {
      let exported: Record<string, unknown> = {};
      const own: Record<string, unknown> = { __gatesimExports: (namespace: Record<string, unknown>) => (exported = namespace) };
      for (const [local, { module, name }] of Object.entries(imports)) {
        const namespace = builtinModule(world, module, [name]);
        if (namespace === undefined) throw new Error(`not a built-in module: ${module}`);
        Object.defineProperty(own, local, { get: () => namespace[name] });
      }
      const registration = '__gatesimExports({ get result() { return result; } });';
      const generator = compileChunk(`let result;\n${body}`, registration, `/gatesim/openclaw-test/dist/chunk-${chunks++}.js`)(chunkScope(world, own))();
      generator.next();
      generator.next();
      return exported;
    },
  };
}

describe('the hooks of a real OpenClaw chunk', () => {
  it('Date, performance and process.hrtime read the simulated clock; local time is UTC', () => {
    const h = harness();
    h.clock.now = 90_061_001;
    const { result } = h.run(`result = { now: Date.now(), made: new Date().toISOString(), called: typeof Date(), hours: new Date().getHours(), offset: new Date().getTimezoneOffset(), perf: performance.now(), hr: process.hrtime.bigint().toString(), isDate: new Date() instanceof Date, parsed: new Date(0).getTime() };`);
    expect(result).toEqual({ now: simEpochMs + 90_061_001, made: '2026-01-02T01:01:01.001Z', called: 'string', hours: 1, offset: 0, perf: 90_061_001, hr: '90061001000000', isDate: true, parsed: 0 });
  });

  it('timers are simulated timers: setTimeout arms one, clearTimeout cancels it, unref is accepted', () => {
    const h = harness();
    const { result } = h.run(`const fired = []; const t = setTimeout((x) => fired.push(x), 250, 'a'); t.unref(); const u = setTimeout(() => fired.push('b'), 0); clearTimeout(u); setImmediate(() => fired.push('c')); result = fired;`);
    expect(h.timers.map(({ delayMs, cancelled }) => ({ delayMs, cancelled }))).toEqual([
      { delayMs: 250, cancelled: false },
      { delayMs: 1, cancelled: true },
      { delayMs: 0, cancelled: false },
    ]);
    for (const timer of h.timers) if (!timer.cancelled) timer.fn();
    expect(result).toEqual(['a', 'c']);
  });

  it('Math.random and crypto.randomUUID draw from the binding', () => {
    const h = harness();
    const { result } = h.run(
      `result = { uuid: crypto.randomUUID(), random: Math.random(), nodeUuid: nodeRandomUUID(), floor: Math.floor(2.5) };`,
      { nodeRandomUUID: { module: 'node:crypto', name: 'randomUUID' } },
    );
    expect(result).toMatchObject({ uuid: '00000000-0000-4000-8000-000000000000', nodeUuid: '00000000-0000-4000-8000-000000000003', floor: 2 });
    expect(h.escapes).toEqual([]);
  });

  it('process is the simulated one: pid, env, cwd, argv; os.homedir is the simulated home', () => {
    const h = harness();
    const { result } = h.run(`result = { pid: process.pid, home: process.env.HOME, cwd: process.cwd(), platform: process.platform, homedir: homedir() };`, {
      homedir: { module: 'node:os', name: 'homedir' },
    });
    expect(result).toEqual({ pid: 4242, home: '/home/openclaw', cwd: '/home/openclaw', platform: 'linux', homedir: '/home/openclaw' });
  });

  it('a globalThis singleton belongs to its instance, not to the host or another instance', () => {
    const key = 'Symbol.for("gatesim.test.singleton")';
    const body = `const store = globalThis; if (!Object.prototype.hasOwnProperty.call(store, ${key})) store[${key}] = new Map(); const map = store[${key}]; map.set('n', (map.get('n') ?? 0) + 1); result = map.get('n');`;
    const one = harness();
    const two = harness();
    expect(one.run(body).result).toBe(1);
    expect(one.run(body).result).toBe(2);
    expect(two.run(body).result).toBe(1);
    expect(Object.getOwnPropertySymbols(globalThis).map(String)).not.toContain('Symbol(gatesim.test.singleton)');
  });

  it('what is not simulated throws and is reported, even when the chunk catches it', () => {
    const h = harness();
    const { result } = h.run(
      `const caught = []; for (const f of [() => fetch('http://example.com'), () => process.kill(1), () => spawn('ls'), () => process.memoryUsage(), () => WebAssembly.Module, () => writeFileSync('/gatesim/openclaw-test/x', 'y'), () => readFileSync('/etc/passwd')]) { try { f(); caught.push('no error'); } catch (error) { caught.push(String(error.message).split(' is not simulated')[0]); } } result = caught;`,
      {
        spawn: { module: 'node:child_process', name: 'spawn' },
        writeFileSync: { module: 'node:fs', name: 'writeFileSync' },
        readFileSync: { module: 'node:fs', name: 'readFileSync' },
      },
    );
    expect(result).toEqual([
      'gatesim: the global fetch',
      'gatesim: process.kill',
      'gatesim: child_process.spawn',
      'gatesim: process.memoryUsage',
      'gatesim: the global WebAssembly',
      "gatesim: fs.writeFileSync on the release's package files (/gatesim/openclaw-test, read-only)",
      'gatesim: fs.readFileSync on the simulated disk (/etc/passwd)',
    ]);
    expect(h.escapes).toEqual([
      'the global fetch',
      'process.kill',
      'child_process.spawn',
      'process.memoryUsage',
      'the global WebAssembly',
      "fs.writeFileSync on the release's package files (/gatesim/openclaw-test, read-only)",
      'fs.readFileSync on the simulated disk (/etc/passwd)',
    ]);
  });

  it('globals only newer Node versions have are absent on every version; console goes to the binding', () => {
    const h = harness();
    const { result } = h.run(`console.warn('careful', 3); result = [typeof navigator, typeof WebSocket, typeof Bun, typeof structuredClone];`);
    expect(result).toEqual(['undefined', 'undefined', 'undefined', 'function']);
    expect(h.logs).toEqual(['warn: careful 3']);
    expect(h.escapes).toEqual([]);
  });

  it('code compiled at run time would run outside the hooks: Function throws EvalError (code generation disallowed, not an escape), eval is refused; Function is still a type', () => {
    const h = harness();
    const { result } = h.run(
      `const caught = []; for (const f of [() => new Function('return globalThis')(), () => Function('return 1')(), () => eval('1')]) { try { f(); caught.push('no error'); } catch (error) { caught.push(String(error.message).split(' is not simulated')[0]); } } result = { caught, isFunction: (() => 1) instanceof Function };`,
    );
    expect(result).toEqual({
      caught: ['Code generation from strings disallowed for this context', 'Code generation from strings disallowed for this context', 'gatesim: the global eval'],
      isFunction: true,
    });
    expect(h.escapes).toHaveLength(1);
  });

  it('a WeakRef always derefs (nothing is collected); Atomics.wait answers at once, and a wait nothing can end is loud', () => {
    const h = harness();
    const { result } = h.run(
      `const target = { a: 1 }; const ref = new WeakRef(target); const cell = new Int32Array(new SharedArrayBuffer(4)); const caught = []; try { Atomics.wait(cell, 0, 0); } catch (error) { caught.push(String(error.message).split(' is not simulated')[0]); } const later = Atomics.waitAsync(cell, 0, 0, 50); result = { same: ref.deref() === target, tag: String(ref), wait: Atomics.wait(cell, 0, 0, 50), notEqual: Atomics.wait(cell, 0, 1, 50), caught, later: later.async, add: Atomics.add(cell, 0, 2), now: Date.now() };`,
    );
    expect(result).toEqual({ same: true, tag: '[object WeakRef]', wait: 'timed-out', notEqual: 'not-equal', caught: ['gatesim: Atomics.wait for ever (nothing in the simulated world can notify it)'], later: true, add: 0, now: simEpochMs });
    expect(h.timers.map((timer) => timer.delayMs)).toEqual([50]);
    expect(h.escapes).toEqual(['Atomics.wait for ever (nothing in the simulated world can notify it)']);
  });

  it("Node 24's globals are absent on every Node (the scope holds them), and zlib's pure functions run as they are", () => {
    const h = harness();
    const { result } = h.run(`const packed = zstd(Buffer.from('hello hello hello')); result = [typeof SuppressedError, typeof DisposableStack, typeof navigator, gunzip(gzip(Buffer.from('x'))).toString(), unzstd(packed).toString()];`, {
      gzip: { module: 'node:zlib', name: 'gzipSync' },
      gunzip: { module: 'node:zlib', name: 'gunzipSync' },
      zstd: { module: 'node:zlib', name: process.versions.node.startsWith('20.') ? 'gzipSync' : 'zstdCompressSync' },
      unzstd: { module: 'node:zlib', name: process.versions.node.startsWith('20.') ? 'gunzipSync' : 'zstdDecompressSync' },
    });
    expect(result).toEqual(['undefined', 'undefined', 'undefined', 'x', 'hello hello hello']);
    expect(h.escapes).toEqual([]);
  });

  it.skipIf(process.versions.node.startsWith('20.'))('a built-in the binding names absent is absent (the JSONL-era releases see no node:sqlite on any Node)', () => {
    const present = harness();
    expect(builtinModule(present.world, 'node:sqlite', ['DatabaseSync'])).toBeDefined();
    const absent = harness(['sqlite']);
    expect(builtinModule(absent.world, 'node:sqlite', ['DatabaseSync'])).toBeUndefined();
    expect(builtinModule(absent.world, 'node:zlib', ['gzipSync'])).toBeDefined();
    const { result } = absent.run(`result = [isBuiltin('node:sqlite'), isBuiltin('node:zlib')];`, { isBuiltin: { module: 'node:module', name: 'isBuiltin' } });
    expect(result).toEqual([false, true]);
  });

  it('Intl formats in UTC and en-US unless the code names a zone or locale', () => {
    const h = harness();
    h.clock.now = 90_061_001;
    const { result } = h.run(
      `const at = new Date(); result = { zone: new Intl.DateTimeFormat().resolvedOptions().timeZone, locale: new Intl.DateTimeFormat().resolvedOptions().locale, hour: new Intl.DateTimeFormat(undefined, { hour: 'numeric', hourCycle: 'h23' }).format(at), tokyo: new Intl.DateTimeFormat('en-US', { hour: 'numeric', hourCycle: 'h23', timeZone: 'Asia/Tokyo' }).format(at), local: at.toLocaleTimeString(), isFormat: new Intl.DateTimeFormat() instanceof Intl.DateTimeFormat };`,
    );
    expect(result).toEqual({ zone: 'UTC', locale: 'en-US', hour: '01', tokyo: '10', local: '1:01:01 AM', isFormat: true });
  });

  it('chunk code stays strict', () => {
    const h = harness();
    expect(() => h.run(`undeclared = 1;`)).toThrow(ReferenceError);
    expect(h.run(`result = (function () { return this; })();`).result).toBeUndefined();
  });
});

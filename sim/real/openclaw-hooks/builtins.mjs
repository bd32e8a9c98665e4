// The built-in modules a chunk imports or requires: node:os (a simulated home), node:crypto (hashes as they are,
// randomness from the PRNG), node:timers and node:timers/promises, node:process, node:tty (no terminal),
// node:diagnostics_channel (channels of the instance's own), node:readline over a simulated file, node:module
// (createRequire through the instance's loader), AsyncLocalStorage of node:async_hooks, node:sqlite (in-memory
// databases only, or with the binding's sqliteFiles the simulation of sqlite.mjs), node:zlib's pure functions
// (compression of a buffer in memory); node:fs and node:fs/promises
// from fs.mjs; the pure ones (node:path as posix, node:url, node:util, node:events, ...) as they are; of any other
// built-in module only its constants. Exempt from the determinism ban (eslint.config.js, test/determinism-ban.test.ts):
// the real modules' exports are the list of what is not simulated.
import * as realOs from 'node:os';
import * as realCrypto from 'node:crypto';
import * as realPath from 'node:path';
import * as realUrl from 'node:url';
import * as realUtil from 'node:util';
import * as realUtilTypes from 'node:util/types';
import * as realEvents from 'node:events';
import * as realStream from 'node:stream';
import * as realStreamPromises from 'node:stream/promises';
import * as realStringDecoder from 'node:string_decoder';
import * as realBuffer from 'node:buffer';
import * as realAssert from 'node:assert';
import * as realQuerystring from 'node:querystring';
import * as realModule from 'node:module';
import * as realTty from 'node:tty';
import * as realPerfHooks from 'node:perf_hooks';
import * as realAsyncHooks from 'node:async_hooks';
import * as realDiagnosticsChannel from 'node:diagnostics_channel';
import * as realReadline from 'node:readline';
import * as realZlib from 'node:zlib';
import { builtinModules } from 'node:module';
import { SimulatedAsyncLocalStorage } from './async-local-storage.mjs';
import { fillRandom, simulatedWebCrypto } from './globals.mjs';
import { partialModule } from './loud.mjs';
import { hostRequire } from './package-loader.mjs';
import { simulatedNodeSqlite } from './sqlite.mjs';

/** A module namespace from a real module: every export as it is (pure modules). */
function passThrough(module) {
  return { ...module, default: module.default ?? module };
}

/** The simulated machine's memory (os.totalmem). */
const simulatedMachineMemoryBytes = 8 * 1024 ** 3;

/**
 * node:v8's heap statistics as a Node 24.21 process reports them at start (measured on the workspace's Node): 2026.9.6
 * reads `heap_size_limit` at load (dist/diagnostic-*.mjs); the same numbers at every call, so nothing depends on the host.
 */
const simulatedHeapStatistics = Object.freeze({
  total_heap_size: 6070272, total_heap_size_executable: 262144, total_physical_size: 5779456, total_available_size: 4492774920, used_heap_size: 4560664,
  heap_size_limit: 4496293888, malloced_memory: 163928, peak_malloced_memory: 57488, does_zap_garbage: 0, number_of_native_contexts: 1,
  number_of_detached_contexts: 0, total_global_handles_size: 12360, used_global_handles_size: 2400, external_memory: 1856424,
});

function simulatedOs(binding, loud) {
  return partialModule(
    loud,
    'os',
    realOs,
    {
      homedir: () => binding.home,
      tmpdir: () => binding.tmpdir,
      hostname: () => binding.hostname,
      platform: () => 'linux',
      type: () => 'Linux',
      arch: () => 'x64',
      release: () => '6.0.0-gatesim',
      endianness: () => 'LE',
      EOL: '\n',
      devNull: '/dev/null',
      userInfo: () => ({ username: 'gatesim', uid: 1000, gid: 1000, shell: '/bin/sh', homedir: binding.home }),
      // The simulated machine's two cores (2026.9.6 sizes its worker pools by it at load; a worker itself is loud).
      availableParallelism: () => 2,
      // Its memory, 8 GiB (2026.9.6's memory diagnostics read it at load: dist/diagnostic-*.mjs).
      totalmem: () => simulatedMachineMemoryBytes,
    },
    ['constants'],
  );
}

function simulatedNodeCrypto(binding, loud) {
  return partialModule(
    loud,
    'crypto',
    realCrypto,
    {
      randomUUID: () => binding.uuidV4(),
      getRandomValues: (view) => fillRandom(binding, view),
      getFips: () => 0,
      randomBytes: (size) => fillRandom(binding, Buffer.alloc(size)),
      randomInt: (min, max) => (max === undefined ? binding.randomInt(0, min - 1) : binding.randomInt(min, max - 1)),
      webcrypto: simulatedWebCrypto(binding, loud),
    },
    ['createHash', 'createHmac', 'timingSafeEqual', 'getHashes', 'constants', 'hash'],
  );
}

const pureModules = {
  url: realUrl,
  events: realEvents,
  stream: realStream,
  'stream/promises': realStreamPromises,
  string_decoder: realStringDecoder,
  buffer: realBuffer,
  assert: realAssert,
  querystring: realQuerystring,
  // Type checks of a value (isProxy, isPromise, ...): 2026.9.6's immutable-data checks read them.
  'util/types': realUtilTypes,
};

const builtins = new Set(builtinModules);

/**
 * Whether a specifier names a built-in module: `x` or `node:x` for most, only `node:x` for the prefix-only ones Node
 * lists with their prefix (Node 24's `node:sqlite`, `node:sea`, `node:test`; a bare `sqlite` is an npm package). On a
 * Node without such a module it is no built-in, and a require of it fails as that Node's would.
 */
function isBuiltinSpecifier(specifier, absent = []) {
  const text = String(specifier);
  if (absent.includes(text.replace(/^node:/, ''))) return false;
  return text.startsWith('node:') ? builtins.has(text.slice(5)) || builtins.has(text) : builtins.has(text);
}

/**
 * The namespace an import of a built-in module gets in this instance, or undefined when the specifier is not a
 * built-in module. A built-in module nothing simulates gets functions that throw for the names imported from it.
 */
export function builtinModule(world, specifier, importedNames) {
  const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  if (!isBuiltinSpecifier(specifier, world.binding.absentBuiltins)) return undefined;
  const cached = world.modules.get(name);
  if (cached !== undefined) return cached;
  const { binding, loud } = world;
  let namespace;
  if (name === 'path' || name === 'path/posix') namespace = { ...realPath.posix, default: realPath.posix };
  else if (name === 'util') {
    const util = { ...realUtil, debuglog: () => () => {}, debug: () => () => {} };
    namespace = { ...util, default: util };
  } else if (name === 'module') {
    namespace = partialModule(loud, 'module', realModule, {
      createRequire: (url) => world.createRequire(url),
      builtinModules: [...builtinModules],
      isBuiltin: (id) => isBuiltinSpecifier(id, world.binding.absentBuiltins),
    });
  }
  else if (name in pureModules) namespace = passThrough(pureModules[name]);
  else if (name === 'fs') namespace = world.fs.fs;
  else if (name === 'fs/promises') namespace = world.fs.promises;
  else if (name === 'os') namespace = simulatedOs(binding, loud);
  else if (name === 'crypto') namespace = simulatedNodeCrypto(binding, loud);
  else if (name === 'timers') {
    const timers = Object.fromEntries(Object.entries(world.timers).filter(([key]) => key !== 'promises' && key !== 'nextTick'));
    namespace = { ...timers, default: timers };
  } else if (name === 'timers/promises') namespace = { ...world.timers.promises, default: world.timers.promises };
  else if (name === 'process') {
    const proc = world.globals.process;
    namespace = new Proxy(Object.create(null), {
      get: (_target, key) => (key === 'default' ? proc : proc[key]),
      has: (_target, key) => key === 'default' || key in proc,
    });
  } else if (name === 'async_hooks') {
    // AsyncLocalStorage carries a value along the instance's own promise chains: memory only. The instance's
    // storages are SimulatedAsyncLocalStorage, all carried by one real storage (async-local-storage.mjs).
    namespace = partialModule(loud, 'async_hooks', realAsyncHooks, { AsyncLocalStorage: SimulatedAsyncLocalStorage }, ['AsyncResource']);
  } else if (name === 'readline') namespace = partialModule(loud, 'readline', realReadline, simulatedReadline(loud));
  else if (name === 'diagnostics_channel') namespace = partialModule(loud, 'diagnostics_channel', realDiagnosticsChannel, simulatedDiagnosticsChannel(loud));
  else if (name === 'tty') namespace = partialModule(loud, 'tty', realTty, { isatty: () => false });
  else if (name === 'sqlite') {
    namespace = binding.sqliteFiles === undefined
      ? partialModule(loud, 'sqlite', hostRequire('node:sqlite'), simulatedSqlite(loud), ['constants'])
      : partialModule(loud, 'sqlite', hostRequire('node:sqlite'), simulatedNodeSqlite(binding, loud));
  }
  else if (name === 'v8') namespace = partialModule(loud, 'v8', hostRequire('node:v8'), { getHeapStatistics: () => ({ ...simulatedHeapStatistics }) });
  else if (name === 'zlib') namespace = partialModule(loud, 'zlib', realZlib, {}, pureZlibFunctions.filter((key) => key in realZlib));
  else if (name === 'perf_hooks') namespace = partialModule(loud, 'perf_hooks', realPerfHooks, { performance: world.globals.performance });
  else {
    // Not simulated: every function and object is loud; its constants (`http2.constants`, primitive values) are data.
    const real = hostRequire(name);
    namespace = partialModule(loud, name, real, {}, real.constants !== undefined && typeof real.constants === 'object' ? ['constants'] : []);
    for (const imported of importedNames) if (!(imported in namespace)) namespace[imported] = loud.fn(`${name}.${imported}`);
    return namespace;
  }
  world.modules.set(name, namespace);
  return namespace;
}

/** node:zlib's synchronous functions of a buffer in memory: pure (the same bytes for the same input and options). */
const pureZlibFunctions = [
  'constants', 'crc32',
  'deflateSync', 'inflateSync', 'deflateRawSync', 'inflateRawSync', 'gzipSync', 'gunzipSync', 'unzipSync',
  'brotliCompressSync', 'brotliDecompressSync', 'zstdCompressSync', 'zstdDecompressSync',
];

/** SQL that reads the clock or randomness, which an in-memory database would answer from the host. */
const hostSql = /\b(?:random|randomblob)\s*\(|['"]now['"]|\bcurrent_(?:time|date|timestamp)\b/i;

/**
 * node:sqlite where the binding gives no binary files of the simulated disk (`sqliteFiles`): in-memory databases only.
 * Where it gives them, node:sqlite is the simulation of sqlite.mjs (every database, ':memory:' too, on SQLite's
 * WebAssembly build; a database on a path on the simulated disk). Without them: `new DatabaseSync(':memory:')` is the
 * host's (a pure computation over SQL and values: no file, no clock; the SQLite-era releases build schema contracts
 * in one at module load, dist/openclaw-state-db-readonly-*.js), each statement checked for SQL that reads the clock or
 * randomness (loud), and a database on a path is loud.
 */
function simulatedSqlite(loud) {
  const real = hostRequire('node:sqlite');
  const checked = (sql) => {
    if (hostSql.test(String(sql))) throw loud(`sqlite SQL that reads the clock or randomness (${String(sql).slice(0, 80)})`);
    return sql;
  };
  class DatabaseSync {
    #database;
    constructor(location, options) {
      if (location !== ':memory:') throw loud(`sqlite.DatabaseSync(${String(location).slice(0, 120)}) on a path (the release's SQLite agent DB)`);
      this.#database = options === undefined ? new real.DatabaseSync(':memory:') : new real.DatabaseSync(':memory:', options);
    }
    exec(sql) {
      return this.#database.exec(checked(sql));
    }
    prepare(sql, ...rest) {
      return this.#database.prepare(checked(sql), ...rest);
    }
    close() {
      return this.#database.close();
    }
    get isOpen() {
      return this.#database.isOpen;
    }
    get isTransaction() {
      return this.#database.isTransaction;
    }
  }
  return { DatabaseSync };
}

/** The contents a simulated read stream carries (binding.ts simulatedReadStream), for the simulated readline. */
export const readStreamContents = Symbol('gatesim.readStreamContents');

/**
 * node:readline's createInterface over a simulated read stream (fs.createReadStream of the simulated disk, which carries
 * the file's contents): an async iterator of its lines, split as `crlfDelay: Infinity` splits them (\r\n, \n or a lone
 * \r ends a line; no empty line after a final newline). Its iteration is promise continuations only, so it runs in the
 * simulation's microtask order. Any other input, and any other use of the interface, is loud.
 */
function simulatedReadline(loud) {
  return {
    createInterface: (options) => {
      const input = options?.input;
      const contents = input?.[readStreamContents];
      if (typeof contents !== 'string') throw loud('readline.createInterface over a stream that is not a simulated file');
      const lines = contents.split(/\r\n|\r|\n/);
      if (lines.at(-1) === '') lines.pop();
      let closed = false;
      return loud.strict('readline.Interface', {
        close: () => {
          closed = true;
        },
        [Symbol.asyncIterator]: async function* () {
          for (const line of lines) {
            if (closed) return;
            yield line;
          }
        },
      });
    },
  };
}

/**
 * node:diagnostics_channel with the instance's own channels (a host's are process-wide by name): a channel publishes to
 * what subscribed to it in the same instance, and nothing else of the simulated world subscribes (lru-cache asks
 * `hasSubscribers` before it publishes a metric). A tracing channel with a subscriber is loud.
 */
function simulatedDiagnosticsChannel(loud) {
  const channels = new Map();
  const channel = (name) => {
    let found = channels.get(name);
    if (found === undefined) {
      const subscribers = [];
      found = {
        name,
        get hasSubscribers() {
          return subscribers.length > 0;
        },
        publish: (message) => {
          for (const subscriber of [...subscribers]) subscriber(message, name);
        },
        subscribe: (subscriber) => {
          subscribers.push(subscriber);
        },
        unsubscribe: (subscriber) => {
          const index = subscribers.indexOf(subscriber);
          if (index >= 0) subscribers.splice(index, 1);
          return index >= 0;
        },
        bindStore: loud.fn('diagnostics_channel Channel.bindStore'),
        unbindStore: () => false,
        runStores: (_data, fn, thisArg, ...args) => Reflect.apply(fn, thisArg, args),
      };
      channels.set(name, found);
    }
    return found;
  };
  const events = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'];
  const tracingChannel = (nameOrChannels) => {
    const parts = Object.fromEntries(events.map((event) => [event, typeof nameOrChannels === 'string' ? channel(`tracing:${nameOrChannels}:${event}`) : nameOrChannels[event]]));
    const traced = (what) => (fn, _context, thisArg, ...args) => {
      if (events.some((event) => parts[event].hasSubscribers)) throw loud(`diagnostics_channel TracingChannel.${what} with a subscriber`);
      return Reflect.apply(fn, thisArg, args);
    };
    return {
      ...parts,
      get hasSubscribers() {
        return events.some((event) => parts[event].hasSubscribers);
      },
      subscribe: (handlers) => {
        for (const event of events) if (typeof handlers[event] === 'function') parts[event].subscribe(handlers[event]);
      },
      unsubscribe: (handlers) => events.map((event) => typeof handlers[event] === 'function' && parts[event].unsubscribe(handlers[event])).every(Boolean),
      traceSync: traced('traceSync'),
      tracePromise: traced('tracePromise'),
      traceCallback: loud.fn('diagnostics_channel TracingChannel.traceCallback'),
    };
  };
  return {
    channel,
    tracingChannel,
    hasSubscribers: (name) => channel(name).hasSubscribers,
    subscribe: (name, subscriber) => channel(name).subscribe(subscriber),
    unsubscribe: (name, subscriber) => channel(name).unsubscribe(subscriber),
  };
}

/** A built-in module as `require` and `process.getBuiltinModule` return it (its default), or undefined. */
export function requireBuiltin(world, specifier) {
  return builtinModule(world, String(specifier), [])?.default;
}

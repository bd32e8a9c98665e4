// node:sqlite, simulated (issue 45 item 1; docs/MODEL.md, "node:sqlite, simulated"): DatabaseSync and StatementSync
// answering as Node 24's do, over SQLite's own WebAssembly build (@sqlite.org/sqlite-wasm, SQLite 3.54.1 with FTS5),
// one engine per host process, whose files are the simulated disk's binary files through a VFS of this module:
// - a database on a path lives on the disk of the opening incarnation (binding.sqliteFiles: sim/kernel/disk.ts
//   binaryFilesOf): its main file and -wal are written in place, volatile until SQLite syncs them (xSync: the disk's
//   syncNow), so SQLite's own WAL under synchronous = NORMAL decides what a kill or a power loss keeps;
// - the -shm (the WAL index) is memory shared by every connection of the host process to the same disk and path, as
//   the mapping of the file would be; its file on the disk is zeros of its size. It is zeroed when a connection maps it
//   and no live connection holds it (the unix VFS truncates it on taking the dead-man-switch lock);
// - file and WAL-index locks are per disk and path; a dead incarnation holds none, and every call of its connections
//   fails (so a killed process's connection can be closed without touching the files);
// - SQLite's clock (xCurrentTimeInt64: 'now', unixepoch(), CURRENT_TIMESTAMP) is the calling instance's simulated
//   epoch time, and its randomness (random(), randomblob(), the WAL salts) is reseeded from the opener's PRNG at each
//   open (xRandomness); a sleep (the busy handler's) takes no time, as a blocking call holds the thread;
// - ':memory:' databases use the same engine (no file);
// - the busy fault (binding.sqliteBusyPer1000) refuses a call's write lock, so it fails with SQLITE_BUSY.
// The engine loads asynchronously (loadSimulatedSqlite); a DatabaseSync before it is loaded is loud. Not simulated
// (loud): aggregate functions, sessions and changesets, extensions, serialize/deserialize, the authorizer, tag stores.
import sqlite3InitModule from '@sqlite.org/sqlite-wasm';

/** @type {undefined | ReturnType<typeof setUpEngine>} */
let engine;
/** @type {Promise<void> | undefined} */
let loading;

/** Load the engine once per host process (about 50 to 100 ms); a release's node:sqlite needs it loaded. */
export function loadSimulatedSqlite() {
  loading ??= sqlite3InitModule({ print: () => {}, printErr: () => {} }).then((sqlite3) => {
    engine = setUpEngine(sqlite3);
  });
  return loading;
}

/** Whether the engine is loaded. */
export function simulatedSqliteLoaded() {
  return engine !== undefined;
}

/** The engine's SQLite version. */
export function simulatedSqliteVersion() {
  return engine?.sqlite3.version.libVersion;
}

const jdEpochMs = 210866760000000n;
// sqlite3.h's xShmLock flags (the WebAssembly build's capi does not export them).
const shmUnlock = 1;
// sqlite3.h's SQLITE_STMTSTATUS_REPREPARE.
const stmtStatusReprepare = 5;
const shmExclusive = 8;
const shmPrefix = '-shm';
/**
 * The WebAssembly build leaves UTF-16 out (SQLITE_OMIT_UTF16), which removes the encoding pragma and its table-valued
 * `pragma_encoding`; every database of such a build is UTF-8, which is what Node's SQLite answers for a database it
 * created. 2026.9.6 reads it before it stores a transcript event (its transcript payload's encoding,
 * dist/transcript-payload-*.mjs, `SELECT encoding FROM pragma_encoding`) and in its session-entry projections: a
 * statement reading it is prepared with the answer in its place (a one-row subquery of that name), and `PRAGMA
 * encoding` as the one-row select. Nothing else of the statement changes; no schema object is made.
 */
const encodingPragma = /^\s*PRAGMA\s+(?:main\.)?encoding\s*;?\s*$/i;
const encodingTable = /\bFROM\s+(?:"pragma_encoding"|`pragma_encoding`|pragma_encoding\b)/gi;
function withEncoding(sql) {
  if (encodingPragma.test(sql)) return "SELECT 'UTF-8' AS encoding";
  return sql.includes('pragma_encoding') ? sql.replace(encodingTable, `FROM (SELECT 'UTF-8' AS encoding) AS "pragma_encoding"`) : sql;
}

function setUpEngine(sqlite3) {
  const { capi, wasm } = sqlite3;
  const rc = { ok: 0, error: capi.SQLITE_ERROR, busy: capi.SQLITE_BUSY, ioerr: capi.SQLITE_IOERR, cantopen: capi.SQLITE_CANTOPEN, notfound: capi.SQLITE_NOTFOUND };
  /** The context of the call into SQLite under way: { files, binding } of the calling connection. */
  let current;
  /** Whether the outermost call under way was drawn busy (the injected fault): undefined until a write asks. */
  let callBusy;
  /**
   * The busy fault (binding.sqliteBusyPer1000): drawn once per call, at its first attempt to take the write lock, from
   * the instance's PRNG; a call drawn busy is refused that lock on every attempt (its busy handler's too), so it fails
   * with SQLITE_BUSY before anything is written. No draw where the rate is 0.
   */
  const injectedBusy = () => {
    const rate = current?.binding?.sqliteBusyPer1000 ?? 0;
    if (rate <= 0) return false;
    callBusy ??= current.binding.randomInt(0, 999) < rate;
    return callBusy;
  };
  /** Open files by sqlite3_file pointer. */
  const openFiles = new Map();
  /** Lock state per disk and path: { holders: Map<file, level> }. */
  const lockTables = new WeakMap();
  /** WAL index per disk and database path: { regions: pointer[], size, attached: Set<file>, slots: Map<slot, {shared: Set<file>, exclusive}> }. */
  const shmTables = new WeakMap();
  let anonymous = 0;

  const tableOf = (tables, disk) => {
    let table = tables.get(disk);
    if (table === undefined) {
      table = new Map();
      tables.set(disk, table);
    }
    return table;
  };
  const live = (file) => file.files === undefined || (file.files.alive() && !file.abandoned);
  const heap = () => wasm.heap8u();

  // The file's own storage: the disk's binary file, or memory for an anonymous temporary file.
  const size = (file) => (file.memory !== undefined ? file.memory.size : (file.files.size(file.path) ?? 0));
  const readAt = (file, offset, length) => {
    if (file.memory !== undefined) return file.memory.bytes.subarray(Math.min(offset, file.memory.size), Math.min(offset + length, file.memory.size));
    return file.files.read(file.path, offset, length) ?? new Uint8Array(0);
  };
  const writeAt = (file, offset, data) => {
    if (file.memory === undefined) return file.files.write(file.path, offset, data);
    const end = offset + data.length;
    if (end > file.memory.bytes.length) {
      const grown = new Uint8Array(Math.max(end, file.memory.bytes.length * 2));
      grown.set(file.memory.bytes.subarray(0, file.memory.size));
      file.memory.bytes = grown;
    }
    file.memory.bytes.set(data, offset);
    file.memory.size = Math.max(file.memory.size, end);
  };

  const io = new capi.sqlite3_io_methods();
  io.$iVersion = 2;
  const ioMethods = {
    xClose(pFile) {
      const file = openFiles.get(Number(pFile));
      if (file === undefined) return rc.ok;
      openFiles.delete(Number(pFile));
      if (file.lockTable !== undefined) file.lockTable.delete(file);
      if (file.deleteOnClose && file.memory === undefined && live(file)) file.files.remove(file.path);
      return rc.ok;
    },
    xRead(pFile, pDest, amount, offset64) {
      const file = openFiles.get(Number(pFile));
      if (file === undefined || !live(file)) return capi.SQLITE_IOERR_READ;
      const bytes = readAt(file, Number(offset64), amount);
      const view = heap();
      view.set(bytes, Number(pDest));
      if (bytes.length < amount) {
        view.fill(0, Number(pDest) + bytes.length, Number(pDest) + amount);
        return capi.SQLITE_IOERR_SHORT_READ;
      }
      return rc.ok;
    },
    xWrite(pFile, pSource, amount, offset64) {
      const file = openFiles.get(Number(pFile));
      if (file === undefined || !live(file)) return capi.SQLITE_IOERR_WRITE;
      writeAt(file, Number(offset64), heap().slice(Number(pSource), Number(pSource) + amount));
      return rc.ok;
    },
    xTruncate(pFile, size64) {
      const file = openFiles.get(Number(pFile));
      if (file === undefined || !live(file)) return capi.SQLITE_IOERR_TRUNCATE;
      if (file.memory !== undefined) file.memory.size = Math.min(file.memory.size, Number(size64));
      else file.files.truncate(file.path, Number(size64));
      return rc.ok;
    },
    xSync(pFile) {
      const file = openFiles.get(Number(pFile));
      if (file === undefined || !live(file)) return capi.SQLITE_IOERR_FSYNC;
      if (file.memory === undefined) file.files.sync(file.path);
      return rc.ok;
    },
    xFileSize(pFile, pSize) {
      const file = openFiles.get(Number(pFile));
      if (file === undefined || !live(file)) return capi.SQLITE_IOERR_FSTAT;
      wasm.poke64(pSize, BigInt(size(file)));
      return rc.ok;
    },
    // SQLite's lock levels (NONE 0, SHARED 1, RESERVED 2, PENDING 3, EXCLUSIVE 4) among the live connections to the
    // same disk and path, as POSIX advisory locks give them to the unix VFS.
    xLock(pFile, level) {
      const file = openFiles.get(Number(pFile));
      if (file === undefined || !live(file)) return rc.busy;
      if (file.lockTable === undefined) {
        file.lock = level;
        return rc.ok;
      }
      const others = [...file.lockTable].filter(([other]) => other !== file && live(other)).map(([, held]) => held);
      const held = file.lockTable.get(file) ?? 0;
      if (level <= held) return rc.ok;
      if (level === 1 && others.some((other) => other >= 3)) return rc.busy;
      if (level === 2 && (others.some((other) => other >= 2) || injectedBusy())) return rc.busy;
      if (level === 4) {
        if (others.some((other) => other >= 3 || (other >= 2 && held < 2))) return rc.busy;
        if (others.some((other) => other >= 1)) {
          // PENDING: new readers wait; the writer retries.
          file.lockTable.set(file, 3);
          return rc.busy;
        }
      }
      file.lockTable.set(file, level);
      return rc.ok;
    },
    xUnlock(pFile, level) {
      const file = openFiles.get(Number(pFile));
      if (file?.lockTable !== undefined) {
        if (level === 0) file.lockTable.delete(file);
        else if ((file.lockTable.get(file) ?? 0) > level) file.lockTable.set(file, level);
      }
      return rc.ok;
    },
    xCheckReservedLock(pFile, pOut) {
      const file = openFiles.get(Number(pFile));
      const reserved = file?.lockTable !== undefined && [...file.lockTable].some(([other, held]) => other !== file && live(other) && held >= 2);
      wasm.poke32(pOut, reserved ? 1 : 0);
      return rc.ok;
    },
    xFileControl: () => rc.notfound,
    xSectorSize: () => 4096,
    // Linux's unix VFS on a local file system: power-safe overwrite (SQLite's default).
    xDeviceCharacteristics: () => capi.SQLITE_IOCAP_POWERSAFE_OVERWRITE,
    xShmMap(pFile, region, regionSize, extend, pp) {
      const file = openFiles.get(Number(pFile));
      if (file === undefined || !live(file) || file.files === undefined) return capi.SQLITE_IOERR_SHMMAP;
      const table = tableOf(shmTables, file.files.disk);
      let shm = table.get(file.path);
      if (shm === undefined) {
        shm = { regions: [], regionSize, attached: new Set(), slots: new Map() };
        table.set(file.path, shm);
      }
      if (!shm.attached.has(file)) {
        // The first live connection to map it finds no other: the index is rebuilt from the WAL (unix VFS: the -shm
        // file is truncated under the dead-man-switch lock).
        if (![...shm.attached].some(live)) {
          for (const pointer of shm.regions) heap().fill(0, Number(pointer), Number(pointer) + shm.regionSize);
          shm.slots.clear();
          if (file.files.size(file.path + shmPrefix) !== 0) file.files.truncate(file.path + shmPrefix, 0);
        }
        shm.attached.add(file);
        file.shm = shm;
      }
      while (shm.regions.length <= region && extend) {
        const pointer = wasm.alloc(regionSize);
        heap().fill(0, Number(pointer), Number(pointer) + regionSize);
        shm.regions.push(pointer);
        file.files.truncate(file.path + shmPrefix, shm.regions.length * regionSize);
      }
      wasm.pokePtr(pp, shm.regions[region] ?? 0);
      return rc.ok;
    },
    xShmLock(pFile, offset, count, flags) {
      const file = openFiles.get(Number(pFile));
      const shm = file?.shm;
      if (file === undefined || shm === undefined) return capi.SQLITE_IOERR_SHMLOCK;
      const unlock = (flags & shmUnlock) !== 0;
      if (!unlock && !live(file)) return rc.busy;
      const exclusive = (flags & shmExclusive) !== 0;
      // The WAL's write lock (slot 0): a write transaction begins.
      if (!unlock && exclusive && offset === 0 && injectedBusy()) return rc.busy;
      const slotsOf = [];
      for (let slot = offset; slot < offset + count; slot++) {
        let state = shm.slots.get(slot);
        if (state === undefined) {
          state = { shared: new Set(), exclusive: undefined };
          shm.slots.set(slot, state);
        }
        slotsOf.push(state);
      }
      if (unlock) {
        for (const state of slotsOf) {
          state.shared.delete(file);
          if (state.exclusive === file) state.exclusive = undefined;
        }
        return rc.ok;
      }
      const holdsOther = (state) => (state.exclusive !== undefined && state.exclusive !== file && live(state.exclusive));
      if (slotsOf.some(holdsOther)) return rc.busy;
      if (exclusive && slotsOf.some((state) => [...state.shared].some((other) => other !== file && live(other)))) return rc.busy;
      for (const state of slotsOf) {
        if (exclusive) {
          state.exclusive = file;
          state.shared.delete(file);
        } else state.shared.add(file);
      }
      return rc.ok;
    },
    xShmBarrier: () => {},
    xShmUnmap(pFile, deleteFlag) {
      const file = openFiles.get(Number(pFile));
      const shm = file?.shm;
      if (file === undefined || shm === undefined) return rc.ok;
      shm.attached.delete(file);
      for (const state of shm.slots.values()) {
        state.shared.delete(file);
        if (state.exclusive === file) state.exclusive = undefined;
      }
      file.shm = undefined;
      if (shm.attached.size === 0) {
        for (const pointer of shm.regions) wasm.dealloc(pointer);
        shmTables.get(file.files.disk)?.delete(file.path);
        if (deleteFlag && live(file)) file.files.remove(file.path + shmPrefix);
      }
      return rc.ok;
    },
  };

  const vfs = new capi.sqlite3_vfs();
  vfs.$iVersion = 2;
  vfs.$szOsFile = capi.sqlite3_file.structInfo.sizeof;
  vfs.$mxPathname = 1024;
  const vfsMethods = {
    xOpen(pVfs, zName, pFile, flags, pOutFlags) {
      const context = current;
      const name = zName ? wasm.cstrToJs(zName) : undefined;
      let file;
      if (name === undefined || context?.files === undefined) {
        // An anonymous temporary file (or any file of a connection without a disk: ':memory:' spills): memory.
        if (name !== undefined) return rc.cantopen;
        file = { path: `<temp ${++anonymous}>`, memory: { bytes: new Uint8Array(0), size: 0 }, lock: 0, deleteOnClose: true };
      } else {
        if (!context.files.alive()) return rc.cantopen;
        const exists = context.files.size(name) !== undefined;
        if (!exists && (flags & capi.SQLITE_OPEN_CREATE) === 0) return rc.cantopen;
        // A new file needs its folder (where the binding knows the folders: sim/real/openclaw/binding.ts).
        if (!exists && context.files.directoryExists !== undefined && !context.files.directoryExists(name.slice(0, Math.max(1, name.lastIndexOf('/'))))) return rc.cantopen;
        if (!exists) context.files.truncate(name, 0);
        file = { path: name, files: context.files, lock: 0, deleteOnClose: (flags & capi.SQLITE_OPEN_DELETEONCLOSE) !== 0 };
        if ((flags & capi.SQLITE_OPEN_MAIN_DB) !== 0) file.lockTable = tableOf(lockTables, context.files.disk).get(name) ?? tableOf(lockTables, context.files.disk).set(name, new Map()).get(name);
      }
      openFiles.set(Number(pFile), file);
      const handle = new capi.sqlite3_file(pFile);
      handle.$pMethods = io.pointer;
      handle.dispose();
      wasm.poke32(pOutFlags, flags);
      return rc.ok;
    },
    xDelete(pVfs, zName) {
      const files = current?.files;
      if (files !== undefined && files.alive()) files.remove(wasm.cstrToJs(zName));
      return rc.ok;
    },
    xAccess(pVfs, zName, flags, pOut) {
      const files = current?.files;
      // As the unix VFS: a file exists for SQLite when it is there and not empty.
      const bytes = files?.size(wasm.cstrToJs(zName));
      wasm.poke32(pOut, bytes !== undefined && bytes > 0 ? 1 : 0);
      return rc.ok;
    },
    xFullPathname(pVfs, zName, nOut, pOut) {
      const written = wasm.cstrncpy(pOut, zName, nOut);
      return written < nOut ? rc.ok : capi.SQLITE_CANTOPEN;
    },
    xRandomness(pVfs, count, pOut) {
      const view = heap();
      const binding = current?.binding;
      for (let index = 0; index < count; index++) view[Number(pOut) + index] = binding === undefined ? 0 : binding.randomInt(0, 255);
      return count;
    },
    xSleep: (pVfs, microseconds) => microseconds,
    xCurrentTime(pVfs, pOut) {
      if (current?.binding === undefined) return rc.error;
      wasm.poke(pOut, 2440587.5 + current.binding.epochNowMs() / 864e5, 'double');
      return rc.ok;
    },
    xCurrentTimeInt64(pVfs, pOut) {
      if (current?.binding === undefined) return rc.error;
      wasm.poke64(pOut, jdEpochMs + BigInt(Math.floor(current.binding.epochNowMs())));
      return rc.ok;
    },
    xGetLastError: () => 0,
  };
  sqlite3.vfs.installVfs({ io: { struct: io, methods: ioMethods }, vfs: { struct: vfs, methods: vfsMethods, name: 'gatesim', asDefault: true } });

  /** Run `fn` as a call of the connection with this context (the VFS's clock, randomness and files). */
  const within = (context, fn) => {
    const outer = current;
    const outerBusy = callBusy;
    current = context;
    if (outer === undefined) callBusy = undefined;
    try {
      return fn();
    } finally {
      current = outer;
      callBusy = outerBusy;
    }
  };
  return { sqlite3, capi, wasm, within, openFiles, abandon: (files) => {
    for (const file of openFiles.values()) if (file.files === files) file.abandoned = true;
  } };
}

// ---------------------------------------------------------------------------------------------------------------
// The node:sqlite API over the engine.

function nodeError(Kind, message, code, extra = {}) {
  return Object.assign(new Kind(message), { code }, extra);
}

function invalidState(message) {
  return nodeError(Error, message, 'ERR_INVALID_STATE');
}

/** Connections whose files are on a disk, by their files object: closed when their owner is dead (loadSimulatedSqlite). */
const connections = new Set();

/** Close every connection of a dead incarnation (its calls fail at the VFS, so closing touches no file). */
function sweepDeadConnections() {
  for (const connection of [...connections]) if (!connection.context.files.alive()) connection.closeDead();
}

/**
 * Close every connection whose files are on `disk` (the end of a run): none of their calls reaches the disk again.
 * For the harness; nothing of the simulated world sees it.
 */
export function releaseSimulatedSqlite(disk) {
  for (const connection of [...connections]) if (connection.context.files.disk === disk) connection.closeDead();
}

/**
 * node:sqlite's module for one instance: `binding` supplies the clock (epochNowMs), the PRNG (randomInt), and the
 * disk's binary files of the incarnation (sqliteFiles), without which a database on a path is loud.
 */
export function simulatedNodeSqlite(binding, loud) {
  const requireEngine = () => {
    if (engine === undefined) throw loud('node:sqlite before its engine was loaded (await loadSimulatedSqlite())');
    return engine;
  };

  class DatabaseSync {
    #engine;
    #pointer = 0;
    #location;
    #options;
    #context;
    #statements = new Set();
    #functions = [];
    #entry;

    constructor(path, options = {}) {
      this.#engine = requireEngine();
      if (typeof path !== 'string' && !(path instanceof URL) && !(path instanceof Uint8Array)) throw nodeError(TypeError, 'The "path" argument must be a string, Uint8Array, or URL without null bytes.', 'ERR_INVALID_ARG_TYPE');
      if (options === null || typeof options !== 'object') throw nodeError(TypeError, 'The "options" argument must be an object.', 'ERR_INVALID_ARG_TYPE');
      this.#location = path instanceof URL ? path.href : path instanceof Uint8Array ? Buffer.from(path).toString('utf8') : path;
      this.#options = {
        open: options.open ?? true,
        readOnly: options.readOnly ?? false,
        enableForeignKeyConstraints: options.enableForeignKeyConstraints ?? true,
        enableDoubleQuotedStringLiterals: options.enableDoubleQuotedStringLiterals ?? false,
        allowExtension: options.allowExtension ?? false,
        timeout: options.timeout ?? 0,
        readBigInts: options.readBigInts ?? false,
        returnArrays: options.returnArrays ?? false,
        allowBareNamedParameters: options.allowBareNamedParameters ?? true,
        allowUnknownNamedParameters: options.allowUnknownNamedParameters ?? false,
        defensive: options.defensive ?? true,
      };
      const memory = this.#location === ':memory:' || this.#location === '' || /^file::memory:/.test(this.#location) || /[?&]mode=memory\b/.test(this.#location);
      if (!memory && binding.sqliteFiles === undefined) throw loud(`sqlite.DatabaseSync(${String(this.#location).slice(0, 120)}) on a path without the simulated disk's binary files`);
      this.#context = { binding, files: memory ? undefined : binding.sqliteFiles };
      if (this.#options.open) this.open();
    }

    /** @internal */
    get [Symbol.for('gatesim.sqlite.pointer')]() {
      return this.#pointer;
    }

    open() {
      if (this.#pointer !== 0) throw invalidState('database is already open');
      const { capi, wasm, within } = this.#engine;
      if (this.#context.files !== undefined) sweepDeadConnections();
      const flags = (this.#options.readOnly ? capi.SQLITE_OPEN_READONLY : capi.SQLITE_OPEN_READWRITE | capi.SQLITE_OPEN_CREATE) | capi.SQLITE_OPEN_URI;
      within(this.#context, () => {
        const stack = wasm.pstack.pointer;
        try {
          const out = wasm.pstack.allocPtr();
          // A fresh seed of SQLite's PRNG from the opener's (the WAL salts, random()): the same run, the same bytes.
          capi.sqlite3_randomness(new Uint8Array(0));
          const code = capi.sqlite3_open_v2(this.#location, out, flags, null);
          const pointer = wasm.peekPtr(out);
          if (code !== 0) {
            const error = sqliteError(this.#engine, pointer, code);
            capi.sqlite3_close_v2(pointer);
            throw error;
          }
          this.#pointer = pointer;
        } finally {
          wasm.pstack.restore(stack);
        }
        capi.sqlite3_extended_result_codes(this.#pointer, 1);
        const config = (op, value) => capi.sqlite3_db_config(this.#pointer, op, value ? 1 : 0, 0);
        config(capi.SQLITE_DBCONFIG_DQS_DML, this.#options.enableDoubleQuotedStringLiterals);
        config(capi.SQLITE_DBCONFIG_DQS_DDL, this.#options.enableDoubleQuotedStringLiterals);
        config(capi.SQLITE_DBCONFIG_ENABLE_FKEY, this.#options.enableForeignKeyConstraints);
        config(capi.SQLITE_DBCONFIG_DEFENSIVE, this.#options.defensive);
        if (this.#options.timeout > 0) capi.sqlite3_busy_timeout(this.#pointer, this.#options.timeout);
        // Node's SQLite: 4096-byte pages and a 2,000 KiB page cache (the WebAssembly build's defaults differ).
        // (Setting the page size resets the pager's cache, so PRAGMA data_version reads one more than Node's would; the
        // releases only compare two readings.)
        capi.sqlite3_exec(this.#pointer, 'PRAGMA page_size = 4096; PRAGMA cache_size = -2000;', 0, 0, 0);
      });
      if (this.#context.files !== undefined) {
        this.#entry = { context: this.#context, closeDead: () => this.#closeAbandoned() };
        connections.add(this.#entry);
      }
    }

    #closeAbandoned() {
      this.#engine.abandon(this.#context.files);
      if (this.#pointer !== 0) this.#close();
    }

    #close() {
      const { capi, within } = this.#engine;
      within(this.#context, () => {
        for (const statement of this.#statements) statement();
        this.#statements.clear();
        capi.sqlite3_close_v2(this.#pointer);
      });
      for (const pointer of this.#functions) this.#engine.wasm.uninstallFunction(pointer);
      this.#functions = [];
      this.#pointer = 0;
      if (this.#entry !== undefined) connections.delete(this.#entry);
    }

    #open() {
      if (this.#pointer === 0) throw invalidState('database is not open');
      return this.#pointer;
    }

    close() {
      this.#open();
      this.#close();
    }

    [Symbol.dispose]() {
      if (this.#pointer !== 0) this.#close();
    }

    get isOpen() {
      return this.#pointer !== 0;
    }

    get isTransaction() {
      return this.#engine.capi.sqlite3_get_autocommit(this.#open()) === 0;
    }

    location(dbName = 'main') {
      const name = this.#engine.capi.sqlite3_db_filename(this.#open(), dbName);
      return name === null || name === '' ? null : name;
    }

    exec(sql) {
      if (typeof sql !== 'string') throw nodeError(TypeError, 'The "sql" argument must be a string.', 'ERR_INVALID_ARG_TYPE');
      const pointer = this.#open();
      const { capi, within } = this.#engine;
      within(this.#context, () => {
        const code = capi.sqlite3_exec(pointer, sql, 0, 0, 0);
        this.#rethrow();
        if (code !== 0) throw sqliteError(this.#engine, pointer, code);
      });
    }

    prepare(sql) {
      if (typeof sql !== 'string') throw nodeError(TypeError, 'The "sql" argument must be a string.', 'ERR_INVALID_ARG_TYPE');
      const pointer = this.#open();
      const { capi, wasm, within } = this.#engine;
      const statementPointer = within(this.#context, () => {
        const stack = wasm.pstack.pointer;
        try {
          const out = wasm.pstack.allocPtr();
          const code = capi.sqlite3_prepare_v3(pointer, withEncoding(sql), -1, 0, out, null);
          if (code !== 0) throw sqliteError(this.#engine, pointer, code);
          return wasm.peekPtr(out);
        } finally {
          wasm.pstack.restore(stack);
        }
      });
      const statement = new StatementSync(internal, this, statementPointer, this.#options);
      return statement;
    }

    /** @internal the statement registry, the calling context, and the rethrow of a user function's exception. */
    [Symbol.for('gatesim.sqlite.internal')]() {
      return { engine: this.#engine, context: this.#context, statements: this.#statements, pointer: () => this.#open(), rethrow: () => this.#rethrow() };
    }

    #pendingError;

    #rethrow() {
      const error = this.#pendingError;
      if (error !== undefined) {
        this.#pendingError = undefined;
        throw error.value;
      }
    }

    function(name, optionsOrFn, maybeFn) {
      const fn = typeof optionsOrFn === 'function' ? optionsOrFn : maybeFn;
      const options = typeof optionsOrFn === 'function' ? {} : (optionsOrFn ?? {});
      if (typeof name !== 'string') throw nodeError(TypeError, 'The "name" argument must be a string.', 'ERR_INVALID_ARG_TYPE');
      if (typeof fn !== 'function') throw nodeError(TypeError, 'The "function" argument must be a function.', 'ERR_INVALID_ARG_TYPE');
      const pointer = this.#open();
      const { capi, wasm } = this.#engine;
      const useBigIntArguments = options.useBigIntArguments === true;
      const xFunc = wasm.installFunction('v(pip)', (pCtx, argc, pArgv) => {
        try {
          const args = [];
          for (let index = 0; index < argc; index++) args.push(valueToJs(this.#engine, wasm.peekPtr(Number(pArgv) + index * wasm.ptr.size), useBigIntArguments));
          resultFromJs(this.#engine, pCtx, Reflect.apply(fn, undefined, args));
        } catch (error) {
          if (error?.[resultError] === true) capi.sqlite3_result_error(pCtx, error.message, -1);
          else {
            this.#pendingError = { value: error };
            capi.sqlite3_result_error(pCtx, String(error?.message ?? error), -1);
          }
        }
      });
      this.#functions.push(xFunc);
      let flags = capi.SQLITE_UTF8;
      if (options.deterministic === true) flags |= capi.SQLITE_DETERMINISTIC;
      if (options.directOnly === true) flags |= capi.SQLITE_DIRECTONLY;
      const argc = options.varargs === true ? -1 : fn.length;
      const code = capi.sqlite3_create_function_v2(pointer, name, argc, flags, 0, xFunc, 0, 0, 0);
      if (code !== 0) throw sqliteError(this.#engine, pointer, code);
    }

    enableLoadExtension(allow) {
      this.#open();
      if (allow === true && !this.#options.allowExtension) throw invalidState('Cannot enable extension loading because it was disabled at database creation.');
    }

    enableDefensive(active) {
      const { capi } = this.#engine;
      capi.sqlite3_db_config(this.#open(), capi.SQLITE_DBCONFIG_DEFENSIVE, active ? 1 : 0, 0);
    }
  }
  for (const name of ['aggregate', 'createSession', 'applyChangeset', 'loadExtension', 'serialize', 'deserialize', 'setAuthorizer', 'createTagStore']) {
    DatabaseSync.prototype[name] = loud.fn(`sqlite.DatabaseSync.${name}`);
  }

  const internal = Symbol('gatesim.sqlite.statement');

  class StatementSync {
    #db;
    #internal;
    #pointer;
    #readBigInts;
    #returnArrays;
    #allowBare;
    #allowUnknown;
    #finalize;

    constructor(token, db, pointer, options) {
      if (token !== internal) throw nodeError(TypeError, 'Illegal constructor', 'ERR_ILLEGAL_CONSTRUCTOR');
      this.#db = db;
      this.#internal = db[Symbol.for('gatesim.sqlite.internal')]();
      this.#pointer = pointer;
      this.#readBigInts = options.readBigInts;
      this.#returnArrays = options.returnArrays;
      this.#allowBare = options.allowBareNamedParameters;
      this.#allowUnknown = options.allowUnknownNamedParameters;
      this.#finalize = () => {
        this.#internal.engine.capi.sqlite3_finalize(this.#pointer);
        this.#pointer = 0;
      };
      this.#internal.statements.add(this.#finalize);
    }

    #live() {
      if (this.#pointer === 0) throw invalidState('statement has been finalized');
      this.#internal.pointer();
      return this.#pointer;
    }

    #call(params, fn) {
      const pointer = this.#live();
      const { engine, context } = this.#internal;
      return engine.within(context, () => {
        engine.wasm.exports.sqlite3_reset(pointer);
        engine.wasm.exports.sqlite3_clear_bindings(pointer);
        this.#bind(pointer, params);
        try {
          return fn(pointer);
        } finally {
          engine.wasm.exports.sqlite3_reset(pointer);
        }
      });
    }

    /** The statement's parameter names by index (null for `?`), fixed by its SQL: read once. */
    #parameters(pointer) {
      if (this.#parameterNames === undefined) {
        const { capi } = this.#internal.engine;
        const names = [undefined];
        for (let index = 1; index <= capi.sqlite3_bind_parameter_count(pointer); index++) names.push(capi.sqlite3_bind_parameter_name(pointer, index) ?? null);
        this.#parameterNames = names;
      }
      return this.#parameterNames;
    }

    #parameterNames;

    #bind(pointer, params) {
      if (params.length === 0) return;
      const names = this.#parameters(pointer);
      let positional = params;
      const first = params[0];
      if (first !== null && typeof first === 'object' && !(first instanceof Uint8Array) && !ArrayBuffer.isView(first)) {
        positional = params.slice(1);
        for (const key of Object.keys(first)) {
          // A key names a parameter with its prefix, or (allowBareNamedParameters) without it.
          let index = names.indexOf(key);
          if (index < 0 && this.#allowBare) index = names.findIndex((name) => typeof name === 'string' && name.length > 1 && name[0] !== '?' && name.slice(1) === key);
          if (index <= 0) {
            if (this.#allowUnknown) continue;
            throw invalidState(`Unknown named parameter '${key}'`);
          }
          this.#bindValue(pointer, index, first[key]);
        }
      }
      // Positional values go to the anonymous parameters (`?`, `?NNN`), in order of their index.
      let index = 1;
      for (const value of positional) {
        while (index < names.length && (names[index] ?? '?')[0] !== '?') index++;
        this.#bindValue(pointer, index, value);
        index++;
      }
    }

    #bindValue(pointer, index, value) {
      const { engine } = this.#internal;
      const { capi } = engine;
      // The hot calls go to the engine's exports directly (the capi wrappers convert their arguments).
      const { exports } = engine.wasm;
      let code;
      // (The build's sqlite3_bind_null wrapper returns nothing: SQLite's is always SQLITE_OK for a valid index.)
      if (value === null) code = engine.wasm.exports.sqlite3_bind_null(pointer, index);
      else if (typeof value === 'number') code = exports.sqlite3_bind_double(pointer, index, value);
      else if (typeof value === 'bigint') {
        if (value > 9223372036854775807n || value < -9223372036854775808n) throw nodeError(TypeError, 'BigInt value is too large to bind.', 'ERR_INVALID_ARG_VALUE');
        code = exports.sqlite3_bind_int64(pointer, index, value);
      } else if (typeof value === 'boolean') code = capi.sqlite3_bind_int(pointer, index, value ? 1 : 0);
      else if (typeof value === 'string') {
        // The text as UTF-8 in the engine's heap, freed by SQLite (the build's own conversion of a JS string throws).
        const [text, bytes] = engine.wasm.allocCString(value, true);
        code = capi.sqlite3_bind_text(pointer, index, text, bytes, capi.SQLITE_WASM_DEALLOC);
      }
      else if (ArrayBuffer.isView(value)) {
        const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
        code = bytes.length === 0 ? capi.sqlite3_bind_zeroblob(pointer, index, 0) : capi.sqlite3_bind_blob(pointer, index, bytes, bytes.length, capi.SQLITE_WASM_DEALLOC);
      } else throw nodeError(TypeError, `Provided value cannot be bound to SQLite parameter ${index}.`, 'ERR_INVALID_ARG_TYPE');
      if (code !== 0) throw sqliteError(engine, exports.sqlite3_db_handle(pointer), code);
    }

    #step(pointer) {
      const { engine } = this.#internal;
      const code = engine.wasm.exports.sqlite3_step(pointer);
      this.#internal.rethrow();
      if (code === engine.capi.SQLITE_ROW) return true;
      if (code === engine.capi.SQLITE_DONE) return false;
      throw sqliteError(engine, engine.wasm.exports.sqlite3_db_handle(pointer), code);
    }

    #row(pointer) {
      const { engine } = this.#internal;
      const count = engine.wasm.exports.sqlite3_column_count(pointer);
      if (this.#returnArrays) {
        const row = [];
        for (let index = 0; index < count; index++) row.push(columnValue(engine, pointer, index, this.#readBigInts));
        return row;
      }
      const names = this.#columnNames(pointer, count);
      const row = Object.create(null);
      for (let index = 0; index < count; index++) row[names[index]] = columnValue(engine, pointer, index, this.#readBigInts);
      return row;
    }

    #columnCache;

    /** The result's column names, read again when SQLite re-prepared the statement (a schema change). */
    #columnNames(pointer, count) {
      const { capi, wasm } = this.#internal.engine;
      const reprepares = wasm.exports.sqlite3_stmt_status(pointer, stmtStatusReprepare, 0);
      if (this.#columnCache === undefined || this.#columnCache.reprepares !== reprepares || this.#columnCache.names.length !== count) {
        const names = [];
        for (let index = 0; index < count; index++) names.push(capi.sqlite3_column_name(pointer, index));
        this.#columnCache = { reprepares, names };
      }
      return this.#columnCache.names;
    }

    get(...params) {
      return this.#call(params, (pointer) => (this.#step(pointer) ? this.#row(pointer) : undefined));
    }

    all(...params) {
      return this.#call(params, (pointer) => {
        const rows = [];
        while (this.#step(pointer)) rows.push(this.#row(pointer));
        return rows;
      });
    }

    run(...params) {
      return this.#call(params, (pointer) => {
        while (this.#step(pointer));
        const { exports } = this.#internal.engine.wasm;
        const db = exports.sqlite3_db_handle(pointer);
        const changes = BigInt(exports.sqlite3_changes64(db));
        const lastInsertRowid = BigInt(exports.sqlite3_last_insert_rowid(db));
        return this.#readBigInts ? { changes, lastInsertRowid } : { changes: Number(changes), lastInsertRowid: Number(lastInsertRowid) };
      });
    }

    iterate(...params) {
      const pointer = this.#live();
      const { engine, context } = this.#internal;
      engine.within(context, () => {
        engine.wasm.exports.sqlite3_reset(pointer);
        engine.wasm.exports.sqlite3_clear_bindings(pointer);
        this.#bind(pointer, params);
      });
      let done = false;
      const finish = () => {
        done = true;
        if (this.#pointer !== 0) engine.wasm.exports.sqlite3_reset(pointer);
      };
      const result = (value, isDone) => Object.assign(Object.create(null), { done: isDone, value });
      const iterator = Object.create(iteratorPrototype);
      iterator.next = () => {
        if (done) return result(null, true);
        this.#live();
        const row = engine.within(context, () => {
          try {
            return this.#step(pointer) ? this.#row(pointer) : undefined;
          } catch (error) {
            finish();
            throw error;
          }
        });
        if (row === undefined) {
          finish();
          return result(null, true);
        }
        return result(row, false);
      };
      iterator.return = () => {
        finish();
        return result(null, true);
      };
      return iterator;
    }

    columns() {
      const pointer = this.#live();
      const { capi } = this.#internal.engine;
      const out = [];
      for (let index = 0; index < capi.sqlite3_column_count(pointer); index++) {
        out.push(Object.assign(Object.create(null), {
          column: capi.sqlite3_column_origin_name(pointer, index) ?? null,
          database: capi.sqlite3_column_database_name(pointer, index) ?? null,
          name: capi.sqlite3_column_name(pointer, index),
          table: capi.sqlite3_column_table_name(pointer, index) ?? null,
          type: capi.sqlite3_column_decltype(pointer, index) ?? null,
        }));
      }
      return out;
    }

    setReadBigInts(enabled) {
      if (typeof enabled !== 'boolean') throw nodeError(TypeError, 'The "readBigInts" argument must be a boolean.', 'ERR_INVALID_ARG_TYPE');
      this.#live();
      this.#readBigInts = enabled;
    }

    setReturnArrays(enabled) {
      this.#live();
      this.#returnArrays = enabled === true;
    }

    setAllowBareNamedParameters(enabled) {
      this.#live();
      this.#allowBare = enabled === true;
    }

    setAllowUnknownNamedParameters(enabled) {
      this.#live();
      this.#allowUnknown = enabled === true;
    }

    get sourceSQL() {
      return this.#internal.engine.capi.sqlite3_sql(this.#live());
    }

    get expandedSQL() {
      return this.#internal.engine.capi.sqlite3_expanded_sql(this.#live());
    }
  }

  /**
   * backup(sourceDb, path[, options]): the whole database copied into a database at `path` (on the disk of the same
   * incarnation), synchronously, as SQLite's online backup does step by step; the promise resolves with the page count.
   */
  function backup(sourceDb, path, options = {}) {
    try {
      const { engine: used, pointer } = sourceDb[Symbol.for('gatesim.sqlite.internal')]();
      const source = pointer();
      const target = new DatabaseSync(path instanceof URL ? path.href : path);
      const targetInternal = target[Symbol.for('gatesim.sqlite.internal')]();
      const pages = used.within(targetInternal.context, () => {
        const { capi } = used;
        const handle = capi.sqlite3_backup_init(targetInternal.pointer(), options.target ?? 'main', source, options.source ?? 'main');
        if (!handle) throw sqliteError(used, targetInternal.pointer(), capi.sqlite3_errcode(targetInternal.pointer()));
        const code = capi.sqlite3_backup_step(handle, -1);
        const total = capi.sqlite3_backup_pagecount(handle);
        capi.sqlite3_backup_finish(handle);
        if (code !== capi.SQLITE_DONE) throw sqliteError(used, targetInternal.pointer(), code);
        return total;
      });
      target.close();
      return Promise.resolve(pages);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  return { DatabaseSync, StatementSync, backup, constants: sqliteConstants() };
}

/** Node's StatementSyncIterator's prototype chain: an Iterator (with its helpers) where the host has them. */
const iteratorPrototype = Object.create(globalThis.Iterator?.prototype ?? {
  [Symbol.iterator]() {
    return this;
  },
});

const resultError = Symbol('gatesim.sqlite.resultError');

function sqliteError(used, db, code) {
  const { capi } = used;
  const errcode = db ? capi.sqlite3_extended_errcode(db) : code;
  const message = db ? capi.sqlite3_errmsg(db) : capi.sqlite3_errstr(code);
  return nodeError(Error, message, 'ERR_SQLITE_ERROR', { errcode, errstr: capi.sqlite3_errstr(errcode) });
}

function toNumber(value, readBigInts) {
  if (readBigInts) return value;
  if (value > 9007199254740991n || value < -9007199254740991n) throw nodeError(RangeError, `Value is too large to be represented as a JavaScript number: ${value}`, 'ERR_OUT_OF_RANGE');
  return Number(value);
}

function columnValue(used, pointer, index, readBigInts) {
  const { capi, wasm } = used;
  const { exports } = wasm;
  switch (exports.sqlite3_column_type(pointer, index)) {
    case capi.SQLITE_INTEGER:
      return toNumber(BigInt(exports.sqlite3_column_int64(pointer, index)), readBigInts);
    case capi.SQLITE_FLOAT:
      return exports.sqlite3_column_double(pointer, index);
    case capi.SQLITE_TEXT:
      return capi.sqlite3_column_text(pointer, index);
    case capi.SQLITE_BLOB: {
      const bytes = exports.sqlite3_column_bytes(pointer, index);
      const at = Number(exports.sqlite3_column_blob(pointer, index));
      return bytes === 0 ? new Uint8Array(0) : wasm.heap8u().slice(at, at + bytes);
    }
    default:
      return null;
  }
}

function valueToJs(used, value, useBigInt) {
  const { capi, wasm } = used;
  switch (capi.sqlite3_value_type(value)) {
    case capi.SQLITE_INTEGER:
      return toNumber(BigInt(capi.sqlite3_value_int64(value)), useBigInt);
    case capi.SQLITE_FLOAT:
      return capi.sqlite3_value_double(value);
    case capi.SQLITE_TEXT:
      return capi.sqlite3_value_text(value);
    case capi.SQLITE_BLOB: {
      const bytes = capi.sqlite3_value_bytes(value);
      const at = Number(capi.sqlite3_value_blob(value));
      return bytes === 0 ? new Uint8Array(0) : wasm.heap8u().slice(at, at + bytes);
    }
    default:
      return null;
  }
}

function resultFromJs(used, pCtx, value) {
  const { capi } = used;
  if (value === null || value === undefined) capi.sqlite3_result_null(pCtx);
  else if (typeof value === 'number') capi.sqlite3_result_double(pCtx, value);
  else if (typeof value === 'bigint') {
    if (value > 9223372036854775807n || value < -9223372036854775808n) throw Object.assign(new Error('BigInt value is too large for SQLite'), { [resultError]: true });
    capi.sqlite3_result_int64(pCtx, value);
  } else if (typeof value === 'string') capi.sqlite3_result_text(pCtx, value, -1, capi.SQLITE_WASM_DEALLOC);
  else if (ArrayBuffer.isView(value)) {
    if (value.byteLength === 0) capi.sqlite3_result_zeroblob(pCtx, 0);
    else capi.sqlite3_result_blob(pCtx, used.wasm.allocFromTypedArray(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)), value.byteLength, capi.SQLITE_WASM_DEALLOC);
  }
  else if (value instanceof Promise) throw Object.assign(new Error('Asynchronous user-defined functions are not supported'), { [resultError]: true });
  else throw Object.assign(new Error('Returned JavaScript value cannot be converted to a SQLite value'), { [resultError]: true });
}

/** node:sqlite's constants (Node 24: the changeset conflict answers and the authorizer's codes), from SQLite's own. */
function sqliteConstants() {
  const capi = engine?.capi;
  if (capi === undefined) return {};
  const names = [
    'SQLITE_CHANGESET_OMIT', 'SQLITE_CHANGESET_REPLACE', 'SQLITE_CHANGESET_ABORT',
    'SQLITE_CHANGESET_DATA', 'SQLITE_CHANGESET_NOTFOUND', 'SQLITE_CHANGESET_CONFLICT', 'SQLITE_CHANGESET_CONSTRAINT', 'SQLITE_CHANGESET_FOREIGN_KEY',
    'SQLITE_OK', 'SQLITE_DENY', 'SQLITE_IGNORE',
    'SQLITE_CREATE_INDEX', 'SQLITE_CREATE_TABLE', 'SQLITE_CREATE_TEMP_INDEX', 'SQLITE_CREATE_TEMP_TABLE', 'SQLITE_CREATE_TEMP_TRIGGER',
    'SQLITE_CREATE_TEMP_VIEW', 'SQLITE_CREATE_TRIGGER', 'SQLITE_CREATE_VIEW', 'SQLITE_DELETE', 'SQLITE_DROP_INDEX', 'SQLITE_DROP_TABLE',
    'SQLITE_DROP_TEMP_INDEX', 'SQLITE_DROP_TEMP_TABLE', 'SQLITE_DROP_TEMP_TRIGGER', 'SQLITE_DROP_TEMP_VIEW', 'SQLITE_DROP_TRIGGER',
    'SQLITE_DROP_VIEW', 'SQLITE_INSERT', 'SQLITE_PRAGMA', 'SQLITE_READ', 'SQLITE_SELECT', 'SQLITE_TRANSACTION', 'SQLITE_UPDATE',
    'SQLITE_ATTACH', 'SQLITE_DETACH', 'SQLITE_ALTER_TABLE', 'SQLITE_REINDEX', 'SQLITE_ANALYZE', 'SQLITE_CREATE_VTABLE', 'SQLITE_DROP_VTABLE',
    'SQLITE_FUNCTION', 'SQLITE_SAVEPOINT', 'SQLITE_COPY', 'SQLITE_RECURSIVE',
  ];
  // SQLITE_COPY is 0 in sqlite3.h (no longer used); the build's capi leaves it out.
  return Object.fromEntries(names.map((name) => [name, typeof capi[name] === 'number' ? capi[name] : 0]));
}

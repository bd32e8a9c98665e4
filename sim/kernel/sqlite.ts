// SQLite: a real engine (sql.js, WebAssembly, in memory) per simulated database path, shared by every process that
// opens the path. The model: every call takes a latency and executes at the instant it completes; a transaction's
// body runs and commits atomically at that instant, so a SIGKILL before it completes rolls it back (nothing was
// applied) and a completed commit is durable. Durability is the simulated kernel's business, not SQLite's journal,
// so databases run with journal_mode=MEMORY (rollback still works) and locking_mode=EXCLUSIVE (one connection
// per file, so SQLite need not look for a hot journal on every statement, which made each query 3x slower). With the busy fault on, a write may fail with a
// transient "database is locked" error before anything is applied. Databases can be exported to real `.db` bytes.
// An autocommit read is answered from a per-database cache while the database is unchanged since the same read (the
// pollers ask the same question every simulated second); it still takes its latency, so events and traces are as
// without it. test/kernel/sqlite-read-cache-answers-as-sqlite-would.test.ts holds it to SQLite's own answers.
// Stalled writes (issue 48 item 4; off unless enableWriteStalls is called): a write (a statement or a transaction) may
// take seconds to commit, a slow disk's fsync or a checkpoint under it, drawn from a stream of its own. Its work applies
// at its end, as every write's does, and it holds the database's write lock until then: a write of another process
// issued meanwhile waits behind it, or fails with "database is locked" once it has waited the busy timeout; a write of
// the same process waits behind it on its connection. A kill of the stalled writer rolls it back and frees the lock.
// Reads go on and see the last committed state (as under WAL). Each stall is a `fault` event (`write-stall`), its end a
// `sql.stall-end` (landed or not), and a busy caused by it is a `sql.busy` with `cause: 'stalled-writer'`.
import initSqlJs, { type BindParams, type Database, type SqlJsStatic, type Statement } from 'sql.js';
import {
  type SqlDatabase,
  type SqlParams,
  type SqlRow,
  type SqlRunResult,
  type SqlTransaction,
  type SqlValue,
  SqliteBusyError,
  type WatchedDatabase,
} from '../../src/ports.ts';
import { assert } from './assert.ts';
import type { Incarnation } from './process.ts';
import type { Prng } from './prng.ts';
import type { Scheduler } from './scheduler.ts';
import type { Trace } from './trace.ts';
import type { SimClock } from './clock.ts';

export interface SqliteFaults {
  busyPer1000: number;
  latencyMsMax: number;
}

export const defaultSqliteFaults: SqliteFaults = { busyPer1000: 0, latencyMsMax: 2 };

/** The longest sleep of SQLite's default busy handler (sqliteDefaultBusyCallback's delays end at 100 ms). */
const busyHandlerSleepMsMax = 100;

/** Stalled writes (issue 48 item 4): the share of writes that stall, how long, and the other writers' busy timeout. */
export interface WriteStalls {
  per1000: number;
  msMin: number;
  msMax: number;
  /** How long a write of another process waits behind a stalled one before it fails with "database is locked". */
  busyTimeoutMs: number;
}

let sqlJs: Promise<SqlJsStatic> | undefined;

/** Load the SQLite WebAssembly module once per process. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= initSqlJs();
  return sqlJs;
}

// Schema images are shared across simulations in one process: opening from an image is ~7x cheaper than
// creating a schema. They hold no state of any run.
const schemaImages = new Map<string, Uint8Array>();
// Databases of finished runs, emptied back to their schema, by schema: opening one from an image, setting its pragmas
// and closing it cost about 40 times more than emptying its tables (each run opens three to nine). Rows come back
// in key and rowid order whatever pages they sit on, a table's next rowid after emptying is 1 as in a new database,
// and sqlite_sequence is emptied too, so a reused database answers every query as a new one would, except
// total_changes(), which counts over the connection's life (the adapter uses only differences of it; the model's SQL
// never asks). A spare keeps its prepared statements: preparing the same SQL again in every run was about 4% of a
// chaos run's CPU (sql.js's prepare). A prepared statement is reset and its bindings cleared before each use, and
// SQLite plans it from the schema alone (no ANALYZE statistics), so a kept statement runs as a new one would.
// A database whose schema a run changed (PRAGMA schema_version moved: a test's sabotage adding a trigger, say) is
// closed, not reused.
interface Spare {
  db: Database;
  statements: Map<string, Statement>;
  /**
   * Each kept statement's column names, read once (sql.js asks SQLite for them anew at every call, which cost more than
   * running a simple query). They change only with the schema: a statement that may change it forgets them all.
   */
  columnNames: Map<Statement, string[]>;
  emptyTableProbes: Map<string, Statement | null>;
  /** The statements that empty it, one per table (sqlite_sequence included), prepared once. */
  emptiers: Statement[];
  /** PRAGMA schema_version right after its schema was created. */
  schemaVersion: number;
}
const spareDatabases = new Map<string, Spare[]>();
const spareDatabasesMax = 32;
const pragmas = 'PRAGMA journal_mode=MEMORY; PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY;';

/** A read's rows, for one list of parameters, as of one version of its database. */
interface CachedRead {
  params: SqlParams;
  version: number;
  rows: SqlRow[];
}

/**
 * How many distinct statements an engine remembers reads of, and how many parameter lists per statement; past the
 * first the cache starts again, past the second a statement's oldest list is dropped (bounds, rarely reached).
 */
const cachedStatementsMax = 128;
const cachedParamListsMax = 16;
const noParams: SqlParams = [];

/**
 * Work counters for the benchmarks: statements SQLite executed, reads the cache answered instead, and DELETEs not run
 * because their table was empty (each cost one probe statement instead).
 */
export interface SqliteStats {
  statements: number;
  cachedReads: number;
  skippedDeletes: number;
}

class Engine implements SqlTransaction {
  readonly db: Database;
  private readonly statements: Map<string, Statement>;
  private readonly columnNames: Map<Statement, string[]>;
  /** By SQL text (the model's SQL is string constants, whose hashes V8 keeps), then by parameter values. */
  private readonly reads = new Map<string, CachedRead[]>();
  /** Per DELETE statement: the statement that asks whether its table has a row (null: not a plain DELETE FROM). */
  private readonly emptyTableProbes: Map<string, Statement | null>;
  /** Per DELETE statement: the probe that tells a keep-the-newest prune deletes nothing (null: not one). */
  private readonly pruneProbes = new Map<string, Statement | null>();
  /** Bumped by every write, transaction and rollback through this engine; a cached read of an older one is stale. */
  private version = 0;
  /** Writes through run(), to tell whether a lazily read row id is still the write's own. */
  private runs = 0;
  private changedRows = 0;
  /**
   * Commits that changed a row (SQLite's PRAGMA data_version moves on each): unlike `version`, a write that changed
   * nothing leaves it. A poller's next poll can find something new only after it moved.
   */
  dataVersion = 0;
  /** Called once at the next change of dataVersion (idle pollers waiting for it), then dropped. */
  private changeWaiters: (() => void)[] = [];
  /** A stalled write holding the write lock (issue 48 item 4): its writer and when it ends. */
  stalled: { owner: Incarnation; untilMs: number } | undefined;

  constructor(
    readonly path: string,
    private readonly spare: Spare,
    private readonly stats: SqliteStats,
  ) {
    this.db = spare.db;
    this.statements = spare.statements;
    this.emptyTableProbes = spare.emptyTableProbes;
    this.columnNames = spare.columnNames;
  }

  query(sql: string, params: SqlParams = []): SqlRow[] {
    const statement = this.prepare(sql);
    this.stats.statements++;
    if (!selectStatement.test(sql)) this.columnNames.clear();
    statement.bind(params as BindParams);
    const rows: SqlRow[] = [];
    if (statement.step()) {
      // sql.js's getAsObject() asks SQLite for the column names again for every row; a prepared statement's names
      // change only with the schema, so they are read once (Spare.columnNames) and each row is built as
      // getAsObject() builds it.
      const names = this.columnNamesOf(statement);
      do rows.push(rowOf(names, statement.get() as SqlValue[]));
      while (statement.step());
    }
    statement.reset();
    return rows;
  }

  /**
   * An autocommit read, answered from the cache when the database has not changed since the same read with the same
   * parameters. SQLite is deterministic and nothing else writes to the engine (the model's SQL may not read the
   * clock or randomness), so the rows are the ones the engine would return; each caller gets its own copies.
   */
  cachedQuery(sql: string, params: SqlParams = noParams): SqlRow[] {
    let reads = this.reads.get(sql);
    if (reads === undefined) {
      if (this.reads.size >= cachedStatementsMax) this.reads.clear();
      reads = [];
      this.reads.set(sql, reads);
    }
    let cached = reads.find((read) => sameParams(read.params, params));
    if (cached === undefined) {
      if (reads.length >= cachedParamListsMax) reads.shift();
      cached = { params: params.slice(), version: -1, rows: [] };
      reads.push(cached);
    }
    if (cached.version === this.version) {
      this.stats.cachedReads++;
    } else {
      cached.rows = this.query(sql, params);
      cached.version = this.version;
    }
    return cached.rows.length === 0 ? [] : cached.rows.map(copyRow);
  }

  /** Called before every statement that may change the database. */
  changing(): void {
    this.version++;
  }

  /**
   * An autocommit write that changed no row (a DELETE or UPDATE that matched nothing, an INSERT OR IGNORE that was
   * ignored) left the database as it was, so reads cached before it are still good. Only for INSERT, UPDATE, DELETE
   * and REPLACE: their row count is exact (SQLite has no statement-level triggers, and row triggers fire only on a
   * changed row); any other statement keeps the version it bumped.
   */
  unchanged(sql: string, changes: number, versionBefore: number): void {
    if (changes === 0 && this.version === versionBefore + 1 && dataStatement.test(sql)) this.version = versionBefore;
  }

  get currentVersion(): number {
    return this.version;
  }

  /** A commit changed `changes` rows: if any, dataVersion moves and the pollers waiting for a change are told. */
  committed(changes: number): void {
    if (changes === 0) return;
    this.dataVersion++;
    if (this.changeWaiters.length === 0) return;
    const waiters = this.changeWaiters;
    this.changeWaiters = [];
    for (const waiter of waiters) waiter();
  }

  onNextChange(waiter: () => void): void {
    this.changeWaiters.push(waiter);
  }

  /** The statement's column names (read once until a statement that may change the schema runs). */
  private columnNamesOf(statement: Statement): string[] {
    let names = this.columnNames.get(statement);
    if (names === undefined) {
      names = statement.getColumnNames();
      this.columnNames.set(statement, names);
    }
    return names;
  }

  run(sql: string, params: SqlParams = []): SqlRunResult {
    let changes = 0;
    // Only a statement that neither reads nor writes rows may change the schema (CREATE, ALTER, DROP, PRAGMA...).
    if (!dataStatement.test(sql) && !selectStatement.test(sql)) this.columnNames.clear();
    if (!this.deletesFromEmptyTable(sql) && !this.prunesNothing(sql, params)) {
      const statement = this.prepare(sql);
      this.stats.statements++;
      statement.run(params as BindParams);
      changes = this.db.getRowsModified();
    }
    this.changedRows += changes;
    const runsBefore = ++this.runs;
    // The row id is asked of SQLite only if a caller reads it (the model rarely does); read after a later statement
    // of this engine it could be another statement's, so that is refused rather than answered wrongly. (No named
    // closure here: under tsx every one is wrapped in a __name() call, 1.7% of a chaos run's CPU on this path.)
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const engine = this;
    return {
      changes,
      get lastInsertRowId(): number {
        return engine.rowIdOfRun(runsBefore);
      },
    };
  }

  private rowIdOfRun(runsBefore: number): number {
    assert(this.runs === runsBefore, 'lastInsertRowId read after a later write to the same database');
    return this.lastInsertRowId();
  }

  /**
   * True when `sql` deletes from a table that has no row, so it would change nothing and need not run. The gateway's
   * sweep prunes exec_seen every 10 s per session with a subquery that sorts the table (about 50 µs in sql.js even
   * on an empty table, against 1 µs for this probe), and the table is empty most of the time. Skipping it leaves
   * every row, row id and total_changes() as they were; the caller still gets 0 changes and the write is traced.
   * (SQLite's changes() would read 0 after the statement; the model's SQL never asks for it.)
   */
  private deletesFromEmptyTable(sql: string): boolean {
    let probe = this.emptyTableProbes.get(sql);
    if (probe === undefined) {
      const table = deleteFrom.exec(sql)?.[1];
      probe = table === undefined ? null : this.prepare(`SELECT 1 FROM "${table}" LIMIT 1`);
      this.emptyTableProbes.set(sql, probe);
    }
    if (probe === null) return false;
    this.stats.statements++;
    const empty = !probe.step();
    probe.reset();
    if (empty) this.stats.skippedDeletes++;
    return empty;
  }

  /**
   * True when `sql` is a keep-the-newest prune, `DELETE FROM t WHERE c < ? OR k NOT IN (SELECT k FROM t ORDER BY c
   * DESC LIMIT ?)` (the gateway forgets exec keys so every 60 s per session), that would delete nothing: no row has
   * `c` below the first parameter and the table has no more rows than the limit, so the subquery returns every row's
   * `k` and `k NOT IN (...)` is false (or NULL, for a NULL k) for each row. The subquery sorts the table (about 50 µs
   * in sql.js on a table of a few rows, against a few µs for the probe); the probe does not sort, so which rows the
   * LIMIT keeps at a tie never matters. Only for a limit that is a non-negative integer (anything else runs, and
   * fails or not, as SQLite would have it). Skipping leaves every row as it was, as deletesFromEmptyTable does.
   */
  private prunesNothing(sql: string, params: SqlParams): boolean {
    let probe = this.pruneProbes.get(sql);
    if (probe === undefined) {
      const match = keepNewestPrune.exec(sql);
      probe = match === null ? null : this.prepare(`SELECT (SELECT COUNT(*) FROM ${match[1]}) <= ?2 AND NOT EXISTS (SELECT 1 FROM ${match[1]} WHERE ${match[2]} < ?1) AS none_deleted`);
      this.pruneProbes.set(sql, probe);
    }
    const limit = params[1];
    if (probe === null || params.length !== 2 || typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) return false;
    this.stats.statements++;
    probe.bind(params as BindParams);
    const nothing = probe.step() && probe.get()[0] === 1;
    probe.reset();
    if (nothing) this.stats.skippedDeletes++;
    return nothing;
  }

  private lastInsertRowId(): number {
    const statement = this.prepare('SELECT last_insert_rowid() AS id');
    statement.step();
    const id = Number(statement.getAsObject().id);
    statement.reset();
    return id;
  }

  /**
   * Rows changed by the writes through run() so far (each statement's sqlite3_changes(), which a transaction sums).
   * SQLite's total_changes() would add rows changed by triggers; the model's schema has none (a test's sabotage may
   * add one, and then only the count in its trace differs).
   */
  get rowsChanged(): number {
    return this.changedRows;
  }

  /** BEGIN, COMMIT and ROLLBACK as prepared statements (exec() would parse them on every transaction). */
  control(sql: 'BEGIN' | 'COMMIT' | 'ROLLBACK'): void {
    this.stats.statements++;
    // A rollback may take back a schema change made in the transaction.
    if (sql === 'ROLLBACK') this.columnNames.clear();
    this.prepare(sql).run();
  }

  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Set once the database was exported: sql.js reopens the connection then, so it is closed, never reused. */
  exported = false;

  /** Hand the database back for reuse, emptied to its schema with its statements kept, or close it. */
  close(schemaSql: string): void {
    const spares = spareDatabases.get(schemaSql) ?? [];
    if (this.exported || spares.length >= spareDatabasesMax || schemaVersionOf(this.db) !== this.spare.schemaVersion) {
      for (const statement of this.statements.values()) statement.free();
      for (const statement of this.spare.emptiers) statement.free();
      this.db.close();
      return;
    }
    const begin = this.prepare('BEGIN');
    const commit = this.prepare('COMMIT');
    begin.run();
    for (const emptier of this.spare.emptiers) emptier.run();
    commit.run();
    spares.push(this.spare);
    spareDatabases.set(schemaSql, spares);
  }
}

function schemaVersionOf(db: Database): number {
  const version = db.exec('PRAGMA schema_version')[0]?.values[0]?.[0];
  assert(typeof version === 'number', 'PRAGMA schema_version answers a number');
  return version;
}

const dataStatement = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;
/** A statement that only reads (a WITH may end in a write, so it is not one). */
const selectStatement = /^\s*SELECT\b/i;
/**
 * `DELETE FROM t WHERE c < ? OR k NOT IN (SELECT k FROM t ORDER BY c DESC LIMIT ?)`, plain names: group 1 is t, group 2
 * is c, group 3 is k (the same table, column and key in both places).
 */
const keepNewestPrune = /^\s*DELETE\s+FROM\s+(\w+)\s+WHERE\s+(\w+)\s*<\s*\?\s+OR\s+(\w+)\s+NOT\s+IN\s*\(\s*SELECT\s+\3\s+FROM\s+\1\s+ORDER\s+BY\s+\2\s+DESC\s+LIMIT\s+\?\s*\)\s*$/i;
/** `DELETE FROM <table> ...` with a plain table name (no schema prefix); group 1 is the table. */
const deleteFrom = /^\s*DELETE\s+FROM\s+"?(\w+)"?(?=\s|$)/i;

function rowOf(names: readonly string[], values: readonly SqlValue[]): SqlRow {
  const row: SqlRow = {};
  for (let i = 0; i < names.length; i++) row[names[i] as string] = values[i] as SqlValue;
  return row;
}

/** The same values in the same order (=== on strings, numbers and null: what SQLite would bind). */
function sameParams(left: SqlParams, right: SqlParams): boolean {
  if (left.length !== right.length) return false;
  for (let i = 0; i < left.length; i++) if (left[i] !== right[i]) return false;
  return true;
}

function copyRow(row: SqlRow): SqlRow {
  return { ...row };
}

export class SimSqlite {
  private readonly engines = new Map<string, Engine>();
  /** The engine behind each handle given out (for idlePolls). */
  private readonly handles = new WeakMap<SqlDatabase, Engine>();
  private readonly schemas = new Map<string, string>();
  faults: SqliteFaults = { ...defaultSqliteFaults };
  readonly stats: SqliteStats = { statements: 0, cachedReads: 0, skippedDeletes: 0 };
  /** Stalled writes, when a run has them; `active` false once the faults stopped (pending stalls still end). */
  private stalls: { knobs: WriteStalls; prng: Prng; nowMs: () => number; scheduler: Scheduler; active: boolean; count: number } | undefined;

  constructor(
    private readonly sql: SqlJsStatic,
    private readonly trace: Trace,
    private readonly prng: Prng,
  ) {}

  paths(): string[] {
    return [...this.engines.keys()].sort();
  }

  /**
   * Read committed state directly (checkers, tests, artifacts). A test may also write through it, as another writer
   * would, so the read cache is invalidated: whatever ran here, no read cached before it is answered again.
   */
  inspect(path: string, sql: string, params: SqlParams = []): SqlRow[] {
    const engine = this.engines.get(path);
    assert(engine !== undefined, `no database at ${path}`);
    engine.changing();
    const rows = engine.query(sql, params);
    // A test may have written through it: tell the idle pollers as a commit would.
    engine.committed(1);
    return rows;
  }

  /**
   * Wait as a poller of `watch` with period `intervalMs` would whose polls find nothing new: until the first poll
   * instant (now + k * intervalMs, k >= 1) at or after one of the databases changed past the version its last poll
   * saw, or `dueMs` passed (a row that becomes due by time alone). The polls in between would have read the same
   * rows and changed nothing, so they are not run: the poller resumes at the instant its poll would have first seen
   * the change. The elided polls take no latency, so they draw nothing from the SQLite stream.
   */
  idlePolls(owner: Incarnation, scheduler: Scheduler, clock: SimClock, watch: readonly WatchedDatabase[], intervalMs: number, dueMs: number | undefined): Promise<void> {
    assert(Number.isSafeInteger(intervalMs) && intervalMs > 0, `a poller polls at a positive interval, not ${intervalMs} ms`);
    assert(watch.length > 0, 'an idle poller watches at least one database');
    const engines = watch.map((watched) => {
      const engine = this.handles.get(watched.db);
      assert(engine !== undefined, `idlePolls: ${watched.db.path} is no handle of this simulation`);
      assert(watched.version <= engine.dataVersion, `idlePolls: version ${watched.version} of ${engine.path} is ahead of the database's ${engine.dataVersion}`);
      return engine;
    });
    const startMs = clock.nowMs();
    return owner.suspend<void>((resumeOnce) => {
      // The databases' change waiters outlive the owner: at its death they let go of its resume (holdUntilDeath).
      let resume: ((value: undefined) => void) | undefined = resumeOnce;
      const forget = owner.holdUntilDeath(() => {
        resume = undefined;
      });
      let woken = false;
      const wake = (): void => {
        if (woken) return;
        woken = true;
        const nowMs = clock.nowMs();
        const polls = Math.max(1, Math.ceil((nowMs - startMs) / intervalMs));
        scheduler.scheduleAt(startMs + polls * intervalMs, () => {
          forget();
          resume?.(undefined);
        }, owner.id);
      };
      if (engines.some((engine, index) => engine.dataVersion !== (watch[index] as WatchedDatabase).version)) {
        wake();
        return;
      }
      for (const engine of engines) engine.onNextChange(wake);
      if (dueMs !== undefined) scheduler.scheduleAt(Math.max(dueMs, startMs), wake, owner.id);
    });
  }

  export(path: string): Uint8Array {
    const engine = this.engines.get(path);
    assert(engine !== undefined, `no database at ${path}`);
    engine.exported = true;
    return engine.db.export();
  }

  close(): void {
    for (const [path, engine] of this.engines) engine.close(this.schemas.get(path) as string);
    this.engines.clear();
  }

  open(owner: Incarnation, path: string, schemaSql: string): Promise<SqlDatabase> {
    return this.later(owner, () => {
      let engine = this.engines.get(path);
      if (engine === undefined) {
        engine = new Engine(path, this.create(schemaSql), this.stats);
        this.engines.set(path, engine);
        this.schemas.set(path, schemaSql);
      }
      return this.handle(owner, engine);
    });
  }

  private create(schemaSql: string): Spare {
    const spare = spareDatabases.get(schemaSql)?.pop();
    if (spare !== undefined) return spare;
    const image = schemaImages.get(schemaSql);
    // journal_mode is a property of the connection, not of the image, so a database opened from an image sets it too.
    const db = image === undefined ? new this.sql.Database() : new this.sql.Database(image);
    db.exec(pragmas);
    if (image === undefined) {
      db.exec(schemaSql);
      schemaImages.set(schemaSql, db.export());
      // sql.js before 1.16 reopened the connection on export(), which dropped the pragmas.
      db.exec(pragmas);
    }
    const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")[0]?.values ?? [];
    const emptiers = tables.map(([name]) => db.prepare(`DELETE FROM "${String(name)}"`));
    return { db, statements: new Map(), columnNames: new Map(), emptyTableProbes: new Map(), emptiers, schemaVersion: schemaVersionOf(db) };
  }

  private handle(owner: Incarnation, engine: Engine): SqlDatabase {
    const handle: SqlDatabase = {
      path: engine.path,
      dataVersion: () => engine.dataVersion,
      query: (sql, params) => this.later(owner, () => engine.cachedQuery(sql, params)),
      run: (sql, params) =>
        this.write(owner, engine, () => {
          this.busyCheck(engine.path);
          const versionBefore = engine.currentVersion;
          engine.changing();
          const result = engine.run(sql, params);
          engine.unchanged(sql, result.changes, versionBefore);
          this.recordWrite(owner, engine.path, sql, result.changes);
          engine.committed(result.changes);
          return result;
        }),
      transaction: <T>(body: (tx: SqlTransaction) => T) =>
        this.write(owner, engine, () => {
          this.busyCheck(engine.path);
          return this.atomically(owner, engine, body);
        }),
    };
    this.handles.set(handle, engine);
    return handle;
  }

  private atomically<T>(owner: Incarnation, engine: Engine, body: (tx: SqlTransaction) => T): T {
    const before = engine.rowsChanged;
    engine.changing();
    engine.control('BEGIN');
    let result: T;
    try {
      result = body(engine);
    } catch (error) {
      engine.control('ROLLBACK');
      throw error;
    }
    engine.control('COMMIT');
    const changes = engine.rowsChanged - before;
    this.recordWrite(owner, engine.path, 'transaction', changes);
    engine.committed(changes);
    return result;
  }

  private busyCheck(path: string): void {
    if (this.prng.chance(this.faults.busyPer1000, 1000)) {
      this.trace.record('sql.busy', { path });
      throw new SqliteBusyError(path);
    }
  }

  private recordWrite(owner: Incarnation, path: string, sql: string, changes: number): void {
    this.trace.record('sql.write', { process: owner.name, path, sql: sql.slice(0, 48), changes });
  }

  /**
   * Stalled writes from now on (issue 48 item 4), drawn from a stream of their own so that nothing else draws
   * differently. `nowMs` is the simulated clock; the scheduler runs the busy waits of writes behind a stalled one.
   */
  enableWriteStalls(knobs: WriteStalls, nowMs: () => number, scheduler: Scheduler): void {
    assert(Number.isSafeInteger(knobs.per1000) && knobs.per1000 >= 0 && knobs.per1000 <= 1000, `stalled writes per 1000 writes: ${knobs.per1000}`);
    assert(Number.isSafeInteger(knobs.msMin) && knobs.msMin >= 1 && Number.isSafeInteger(knobs.msMax) && knobs.msMax >= knobs.msMin, `a stall lasts msMin..msMax, whole and positive: ${knobs.msMin}..${knobs.msMax}`);
    assert(Number.isSafeInteger(knobs.busyTimeoutMs) && knobs.busyTimeoutMs >= 0, `a busy timeout of ${knobs.busyTimeoutMs} ms`);
    this.stalls = { knobs: { ...knobs }, prng: this.prng.fork('write-stalls'), nowMs, scheduler, active: true, count: 0 };
  }

  /** Scripted stalls (tests): the next write that `match` picks stalls for `ms`, once stalled writes are on. */
  private readonly scriptedStalls: { match: (path: string, process: string) => boolean; ms: number }[] = [];

  /** A test's scripted fault: the next write of `process` to a database `match` picks stalls for `ms`. */
  stallNextWrite(match: (path: string, process: string) => boolean, ms: number): void {
    assert(Number.isSafeInteger(ms) && ms >= 1, `a scripted stall of ${ms} ms`);
    this.scriptedStalls.push({ match, ms });
  }

  /** No new stall after this (the faults stopped); a stall under way still ends when it was drawn to. */
  stopWriteStalls(): void {
    if (this.stalls !== undefined) this.stalls.active = false;
  }

  /** A write: with stalled writes on, it may stall, or wait behind a stalled one (see the opening comment). */
  private write<T>(owner: Incarnation, engine: Engine, work: () => T): Promise<T> {
    const stalls = this.stalls;
    if (stalls === undefined) return this.later(owner, work);
    const nowMs = stalls.nowMs();
    const held = engine.stalled;
    if (held !== undefined && held.owner.alive && held.untilMs > nowMs) return this.waitBehind(owner, engine, work, nowMs);
    const scripted = this.scriptedStalls.findIndex((stall) => stall.match(engine.path, owner.name));
    const scriptedMs = scripted < 0 ? undefined : this.scriptedStalls.splice(scripted, 1)[0]?.ms;
    if (scriptedMs === undefined && (!stalls.active || !stalls.prng.chance(stalls.knobs.per1000, 1000))) return this.later(owner, work);
    const ms = scriptedMs ?? stalls.prng.int(stalls.knobs.msMin, stalls.knobs.msMax);
    const stall = ++stalls.count;
    const lock = { owner, untilMs: nowMs + ms };
    engine.stalled = lock;
    this.trace.record('fault', { kind: 'write-stall', path: engine.path, process: owner.name, stall, ms });
    return owner.later(
      () => ms,
      () => {
        if (engine.stalled === lock) engine.stalled = undefined;
        try {
          const result = work();
          this.trace.record('sql.stall-end', { path: engine.path, process: owner.name, stall, landed: true });
          return result;
        } catch (error) {
          this.trace.record('sql.stall-end', { path: engine.path, process: owner.name, stall, landed: false });
          throw error;
        }
      },
    );
  }

  /**
   * A write issued while a stalled write holds the lock: on the same connection (the same process) it waits for it; a
   * write of another process retries as SQLite's busy handler does (sleeps of up to 100 ms) until the lock is free (the
   * stalled write landed, or its writer was killed), or fails with "database is locked" once it has waited the busy
   * timeout since `sinceMs`.
   */
  private waitBehind<T>(owner: Incarnation, engine: Engine, work: () => T, sinceMs: number): Promise<T> {
    const stalls = this.stalls;
    assert(stalls !== undefined, 'a write waits behind a stalled one only with stalled writes on');
    const first = engine.stalled;
    if (first !== undefined && first.owner === owner) return owner.later(() => first.untilMs - sinceMs + this.latency(), work);
    const { scheduler, nowMs } = stalls;
    const deadlineMs = sinceMs + stalls.knobs.busyTimeoutMs;
    return owner.suspend<T>((resume, fail) => {
      const attempt = (): void => {
        const atMs = nowMs();
        const held = engine.stalled;
        if (held === undefined || !held.owner.alive || held.untilMs <= atMs) {
          // The lock is free: the write takes its latency as any other.
          scheduler.schedule(
            this.latency(),
            () => {
              try {
                resume(work());
              } catch (error) {
                fail(error instanceof Error ? error : new Error(String(error)));
              }
            },
            owner.id,
          );
          return;
        }
        if (atMs >= deadlineMs) {
          this.trace.record('sql.busy', { path: engine.path, cause: 'stalled-writer', waitedMs: atMs - sinceMs });
          fail(new SqliteBusyError(engine.path));
          return;
        }
        scheduler.schedule(Math.min(held.untilMs, deadlineMs, atMs + busyHandlerSleepMsMax) - atMs, attempt, owner.id);
      };
      attempt();
    });
  }

  /** Run `work` when the call completes, in the owner's incarnation; a throw rejects the call. */
  private later<T>(owner: Incarnation, work: () => T): Promise<T> {
    return owner.later(this.latency, work);
  }

  /** A call's latency, drawn when the call is made. */
  private readonly latency = (): number => this.prng.int(0, this.faults.latencyMsMax);
}

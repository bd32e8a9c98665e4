// SQLite: a real engine (sql.js, WebAssembly, in memory) per simulated database path, shared by every process that
// opens the path. The model: every call takes a latency and executes at the instant it completes; a transaction's
// body runs and commits atomically at that instant, so a SIGKILL before it completes rolls it back (nothing was
// applied) and a completed commit is durable. Durability is the simulated kernel's business, not SQLite's journal,
// so databases run with journal_mode=MEMORY (rollback still works) and locking_mode=EXCLUSIVE (one connection
// per file, so SQLite need not look for a hot journal on every statement, which made each query 3x slower). With the busy fault on, a write may fail with a
// transient "database is locked" error before anything is applied. Databases can be exported to real `.db` bytes.
import initSqlJs, { type BindParams, type Database, type SqlJsStatic, type Statement } from 'sql.js';
import {
  type SqlDatabase,
  type SqlParams,
  type SqlRow,
  type SqlRunResult,
  type SqlTransaction,
  SqliteBusyError,
} from '../../src/ports.ts';
import { assert } from './assert.ts';
import type { Incarnation } from './process.ts';
import type { Prng } from './prng.ts';
import type { Scheduler } from './scheduler.ts';
import type { Trace } from './trace.ts';

export interface SqliteFaults {
  busyPer1000: number;
  latencyMsMax: number;
}

export const defaultSqliteFaults: SqliteFaults = { busyPer1000: 0, latencyMsMax: 2 };

let sqlJs: Promise<SqlJsStatic> | undefined;

/** Load the SQLite WebAssembly module once per process. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= initSqlJs();
  return sqlJs;
}

// Schema images are shared across simulations in one process: opening from an image is ~7x cheaper than
// creating a schema. They hold no state of any run.
const schemaImages = new Map<string, Uint8Array>();

class Engine implements SqlTransaction {
  private readonly statements = new Map<string, Statement>();
  private lastRowId: Statement | undefined;

  constructor(
    readonly path: string,
    readonly db: Database,
  ) {}

  query(sql: string, params: SqlParams = []): SqlRow[] {
    const statement = this.prepare(sql);
    statement.bind(params as BindParams);
    const rows: SqlRow[] = [];
    while (statement.step()) rows.push(statement.getAsObject() as SqlRow);
    statement.reset();
    return rows;
  }

  run(sql: string, params: SqlParams = []): SqlRunResult {
    const statement = this.prepare(sql);
    statement.run(params as BindParams);
    const changes = this.db.getRowsModified();
    this.lastRowId ??= this.db.prepare('SELECT last_insert_rowid() AS id');
    this.lastRowId.step();
    const lastInsertRowId = Number(this.lastRowId.getAsObject().id);
    this.lastRowId.reset();
    return { changes, lastInsertRowId };
  }

  totalChanges(): number {
    const row = this.query('SELECT total_changes() AS n')[0];
    return Number(row?.n ?? 0);
  }

  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  close(): void {
    for (const statement of this.statements.values()) statement.free();
    this.lastRowId?.free();
    this.db.close();
  }
}

export class SimSqlite {
  private readonly engines = new Map<string, Engine>();
  faults: SqliteFaults = { ...defaultSqliteFaults };

  constructor(
    private readonly sql: SqlJsStatic,
    private readonly scheduler: Scheduler,
    private readonly trace: Trace,
    private readonly prng: Prng,
  ) {}

  paths(): string[] {
    return [...this.engines.keys()].sort();
  }

  /** Read committed state directly (checkers, tests, artifacts). */
  inspect(path: string, sql: string, params: SqlParams = []): SqlRow[] {
    const engine = this.engines.get(path);
    assert(engine !== undefined, `no database at ${path}`);
    return engine.query(sql, params);
  }

  export(path: string): Uint8Array {
    const engine = this.engines.get(path);
    assert(engine !== undefined, `no database at ${path}`);
    return engine.db.export();
  }

  close(): void {
    for (const engine of this.engines.values()) engine.close();
    this.engines.clear();
  }

  open(owner: Incarnation, path: string, schemaSql: string): Promise<SqlDatabase> {
    return this.later(owner, () => {
      let engine = this.engines.get(path);
      if (engine === undefined) {
        engine = new Engine(path, this.create(schemaSql));
        this.engines.set(path, engine);
      }
      return this.handle(owner, engine);
    });
  }

  private create(schemaSql: string): Database {
    const image = schemaImages.get(schemaSql);
    // journal_mode is a property of the connection, not of the image, so a database opened from an image sets it too.
    const db = image === undefined ? new this.sql.Database() : new this.sql.Database(image);
    db.exec('PRAGMA journal_mode=MEMORY; PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY;');
    if (image !== undefined) return db;
    db.exec(schemaSql);
    schemaImages.set(schemaSql, db.export());
    return db;
  }

  private handle(owner: Incarnation, engine: Engine): SqlDatabase {
    return {
      path: engine.path,
      query: (sql, params) => this.later(owner, () => engine.query(sql, params)),
      run: (sql, params) =>
        this.later(owner, () => {
          this.busyCheck(engine.path);
          const result = engine.run(sql, params);
          this.recordWrite(owner, engine.path, sql, result.changes);
          return result;
        }),
      transaction: <T>(body: (tx: SqlTransaction) => T) =>
        this.later(owner, () => {
          this.busyCheck(engine.path);
          return this.atomically(owner, engine, body);
        }),
    };
  }

  private atomically<T>(owner: Incarnation, engine: Engine, body: (tx: SqlTransaction) => T): T {
    const before = engine.totalChanges();
    engine.db.exec('BEGIN');
    let result: T;
    try {
      result = body(engine);
    } catch (error) {
      engine.db.exec('ROLLBACK');
      throw error;
    }
    engine.db.exec('COMMIT');
    const changes = engine.totalChanges() - before;
    this.recordWrite(owner, engine.path, 'transaction', changes);
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

  /** Run `work` when the call completes, in the owner's incarnation; a throw rejects the call. */
  private later<T>(owner: Incarnation, work: () => T): Promise<T> {
    return owner.suspend<T>((resume, fail) => {
      this.scheduler.schedule(this.prng.int(0, this.faults.latencyMsMax), () => {
        let value: T;
        try {
          value = work();
        } catch (error) {
          fail(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        resume(value);
      }, owner.id);
    });
  }
}

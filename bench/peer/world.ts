// The peer's world: what an engineer without gatesim would write to test the same model with fast-check alone.
// Every asynchronous port call (SQLite, disk, a message between processes) is a task of fast-check's scheduler
// (fc.scheduler), which releases the pending tasks in an order it chooses and can shrink; timers sit on a fake clock
// that fires the earliest one only when no task is pending. There is no simulated network (a message is handed
// straight to the receiver's mailbox, never dropped, duplicated, delayed or replayed), no simulated disk (files are
// strings, always durable) and no kill (the supervisor's kill does nothing). SQLite is the same sql.js engine.
import type fc from 'fast-check';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import type { Delivery, ProcessContext, SqlDatabase, SqlParams, SqlRow, SqlRunResult, SqlTransaction } from '../../src/index.ts';

interface Timer {
  dueMs: number;
  seq: number;
  fire: () => void;
}

interface Mailbox {
  queue: Delivery[];
  waiting: ((delivery: Delivery) => void)[];
}

/** mulberry32: a small seeded generator for the model's random port. */
function randomSource(seed: number): ProcessContext['random'] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return { int, chance: (numerator, denominator) => int(1, denominator) <= numerator, pick: (items) => items[int(0, items.length - 1)] as never };
}

function hashKey(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

class PeerDatabase implements SqlTransaction {
  private readonly statements = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  query(sql: string, params: SqlParams = []): SqlRow[] {
    const statement = this.prepare(sql);
    statement.bind(params as never);
    const rows: SqlRow[] = [];
    while (statement.step()) rows.push(statement.getAsObject() as SqlRow);
    statement.reset();
    return rows;
  }

  run(sql: string, params: SqlParams = []): SqlRunResult {
    this.prepare(sql).run(params as never);
    const changes = this.db.getRowsModified();
    const lastInsertRowId = Number(this.query('SELECT last_insert_rowid() AS id')[0]?.id ?? 0);
    return { changes, lastInsertRowId };
  }

  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

export class PeerWorld {
  nowMs = 0;
  readonly files = new Map<string, string>();
  readonly databases = new Map<string, PeerDatabase>();
  readonly crashes: { process: string; error: unknown }[] = [];
  private readonly timers: Timer[] = [];
  private readonly mailboxes = new Map<string, Mailbox>();
  private timerSeq = 0;

  constructor(
    private readonly s: fc.Scheduler,
    private readonly sql: SqlJsStatic,
    private readonly seed: number,
  ) {}

  randomFor(key: string): ProcessContext['random'] {
    return randomSource(this.seed ^ hashKey(key));
  }

  /** Run `work` when fast-check's scheduler releases this call. */
  private io<T>(label: string, work: () => T): Promise<T> {
    return this.s.schedule(Promise.resolve(label), label).then(work);
  }

  at(dueMs: number, fire: () => void): void {
    this.timers.push({ dueMs, seq: this.timerSeq++, fire });
  }

  /** Drive the world until no task is pending and the next timer is past endMs (or the step cap). */
  async drive(endMs: number, stepsMax: number): Promise<number> {
    let steps = 0;
    for (; steps < stepsMax; steps++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.s.count() > 0) {
        await this.s.waitOne();
        continue;
      }
      const next = this.popTimer();
      if (next === undefined || next.dueMs > endMs) break;
      this.nowMs = Math.max(this.nowMs, next.dueMs);
      next.fire();
    }
    return steps;
  }

  close(): void {
    for (const database of this.databases.values()) database.db.close();
  }

  private popTimer(): Timer | undefined {
    let best = -1;
    for (let i = 0; i < this.timers.length; i++) {
      const timer = this.timers[i] as Timer;
      const current = this.timers[best];
      if (current === undefined || timer.dueMs < current.dueMs || (timer.dueMs === current.dueMs && timer.seq < current.seq)) best = i;
    }
    if (best < 0) return undefined;
    return this.timers.splice(best, 1)[0];
  }

  private database(path: string, schemaSql: string): PeerDatabase {
    let database = this.databases.get(path);
    if (database === undefined) {
      const db = new this.sql.Database();
      db.exec('PRAGMA journal_mode=MEMORY;');
      db.exec(schemaSql);
      database = new PeerDatabase(db);
      this.databases.set(path, database);
    }
    return database;
  }

  private handle(path: string, database: PeerDatabase): SqlDatabase {
    return {
      path,
      query: (sql, params) => this.io(`query ${path}`, () => database.query(sql, params)),
      run: (sql, params) => this.io(`run ${path}`, () => database.run(sql, params)),
      transaction: <T>(body: (tx: SqlTransaction) => T) =>
        this.io(`transaction ${path}`, () => {
          database.db.exec('BEGIN');
          try {
            const result = body(database);
            database.db.exec('COMMIT');
            return result;
          } catch (error) {
            database.db.exec('ROLLBACK');
            throw error;
          }
        }),
    };
  }

  private mailbox(name: string): Mailbox {
    let mailbox = this.mailboxes.get(name);
    if (mailbox === undefined) {
      mailbox = { queue: [], waiting: [] };
      this.mailboxes.set(name, mailbox);
    }
    return mailbox;
  }

  context(name: string): ProcessContext {
    const random = this.randomFor(`process/${name}`);
    return {
      name,
      incarnation: 1,
      clock: { nowMs: () => this.nowMs },
      timers: {
        sleep: (delayMs) => new Promise<void>((resolve) => this.at(this.nowMs + delayMs, resolve)),
        setTimer: (delayMs, fn) => {
          let cancelled = false;
          this.at(this.nowMs + delayMs, () => {
            if (!cancelled) fn();
          });
          return { cancel: () => (cancelled = true) };
        },
      },
      random,
      net: {
        send: (to, payload) => {
          void this.io(`send ${name}->${to}`, () => {
            const mailbox = this.mailbox(to);
            const delivery: Delivery = { from: name, payload, ack: () => {} };
            const waiter = mailbox.waiting.shift();
            if (waiter === undefined) mailbox.queue.push(delivery);
            else waiter(delivery);
          });
        },
        receive: () =>
          new Promise<Delivery>((resolve) => {
            const mailbox = this.mailbox(name);
            const ready = mailbox.queue.shift();
            if (ready === undefined) mailbox.waiting.push(resolve);
            else resolve(ready);
          }),
      },
      disk: {
        read: (path) => this.io(`read ${path}`, () => this.files.get(path)),
        write: (path, data) => this.io(`write ${path}`, () => void this.files.set(path, data)),
        append: (path, data) => this.io(`append ${path}`, () => void this.files.set(path, (this.files.get(path) ?? '') + data)),
        createExclusive: (path, data) => this.io(`create ${path}`, () => !this.files.has(path) && this.files.set(path, data) !== undefined),
        fsync: (path) => this.io(`fsync ${path}`, () => undefined),
        rename: (from, to) =>
          this.io(`rename ${from}`, () => {
            const data = this.files.get(from);
            if (data === undefined) throw new Error(`rename of a missing file ${from}`);
            this.files.delete(from);
            this.files.set(to, data);
          }),
        remove: (path) => this.io(`remove ${path}`, () => void this.files.delete(path)),
        list: (prefix) => this.io(`list ${prefix}`, () => [...this.files.keys()].filter((path) => path.startsWith(prefix)).sort()),
      },
      sqlite: { open: (path, schemaSql) => this.io(`open ${path}`, () => this.handle(path, this.database(path, schemaSql))) },
      supervisor: { isRunning: () => true, isAlive: () => true, kill: () => false, start: () => {} },
      note: () => {},
      spawnTask: (task, run) => {
        void Promise.resolve()
          .then(run)
          .catch((error: unknown) => this.crashes.push({ process: `${name}/${task}`, error }));
      },
    };
  }
}

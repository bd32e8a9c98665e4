// 2026.9.6's agent database on the simulated node:sqlite (sim/real/openclaw-hooks/sqlite.mjs), opened by the release's
// own code through the hooks' loader: its node:sqlite open (dist/node-sqlite-BO6jRFcG.mjs `openNodeSqliteDatabase`,
// which checks the SQLite version), its pre-schema and connection pragmas (dist/sqlite-wal-BzoPsBh0.mjs: busy_timeout,
// auto_vacuum = INCREMENTAL on a new file, journal_mode = WAL, wal_autocheckpoint, journal_size_limit, synchronous =
// NORMAL, foreign_keys), its schema (dist/openclaw-agent-board-schema-vd3Vff_q.mjs OPENCLAW_AGENT_SCHEMA_SQL: STRICT
// tables, indexes, triggers, FTS5) and its synchronous BEGIN IMMEDIATE transaction with a nested one as a savepoint
// (dist/sqlite-transaction-DKSXLQhb.mjs `runSqliteImmediateTransactionSync`). The database path's mount probe is left
// out (no databasePath given to the pragmas: it reads /proc/self/mountinfo). Runs under Node 24
// (test/real/openclaw-node24.ts).
import { describe, expect, it } from 'vitest';
import type { Timers } from '../../src/ports.ts';
import type { Incarnation } from '../../sim/kernel/process.ts';
import { Prng } from '../../sim/kernel/prng.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawHome } from '../../sim/real/openclaw/home.ts';
import { OpenclawInstance, openclawBinding, simulatedDiskFs } from '../../sim/real/openclaw/index.ts';
import { loadSimulatedSqlite } from '../../sim/real/openclaw-hooks/sqlite.mjs';
import type { DatabaseSync } from '../../sim/real/openclaw-hooks/sqlite.mjs';
import { node24Here, rerunUnderNode24, sqliteEraMissing, underNode24 } from './openclaw-node24.ts';

const missing = sqliteEraMissing(['2026.9.6']);
/** Timers that never fire (the WAL maintenance's 30 min checkpoint interval is armed, not run). */
const idleTimers: Timers = { sleep: () => new Promise<void>(() => undefined), setTimer: () => ({ cancel: () => undefined }) };
const path = '/home/openclaw/.openclaw/agents/main/agent/openclaw-agent.sqlite';

describe.skipIf(missing || !node24Here)(`${underNode24} 2026.9.6's agent database on the simulated node:sqlite`, () => {
  it("opens, configures and builds it with the release's own code, and runs its transactions", async () => {
    await loadSimulatedSqlite();
    const sim = new Simulation({ seed: 'agent-schema', sql: await loadSqlJs() });
    const owner = { alive: true, id: 1 } as unknown as Incarnation;
    const binding = openclawBinding('2026.9.6', { clock: sim.scheduler.clock, timers: idleTimers, random: new Prng('agent-schema'), alive: () => true, fs: simulatedDiskFs(sim.disk, owner, openclawHome()) });
    binding.sqliteFiles = sim.disk.binaryFilesOf(owner);
    const instance = new OpenclawInstance('2026.9.6', binding);
    const open = instance.chunk('node-sqlite-BO6jRFcG.mjs').t as (location: string) => DatabaseSync;
    const wal = instance.chunk('sqlite-wal-BzoPsBh0.mjs');
    const preSchema = wal.n as (db: DatabaseSync, options: object) => void;
    const connection = wal.t as (db: DatabaseSync, options: object) => { close(): boolean };
    const schema = instance.chunk('openclaw-agent-board-schema-vd3Vff_q.mjs').i as string;
    const transaction = instance.chunk('sqlite-transaction-DKSXLQhb.mjs').o as (db: DatabaseSync, operation: () => unknown) => unknown;

    const db = open(path);
    preSchema(db, { busyTimeoutMs: 30_000 });
    const maintenance = connection(db, { busyTimeoutMs: 30_000, foreignKeys: true, synchronous: 'NORMAL' });
    db.exec(schema);
    const pragma = (name: string) => db.prepare(`PRAGMA ${name}`).get()?.[name];
    expect([pragma('journal_mode'), pragma('synchronous'), pragma('foreign_keys'), pragma('auto_vacuum'), pragma('wal_autocheckpoint'), pragma('journal_size_limit')]).toEqual(['wal', 1, 1, 2, 1000, 67108864]);
    const count = (type: string) => db.prepare('SELECT count(*) AS n FROM sqlite_schema WHERE type = ?').get(type)?.n;
    const strict = db.prepare("SELECT count(*) AS n FROM pragma_table_list WHERE strict = 1 AND schema = 'main'").get()?.n;
    const fts5 = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'").get()?.n;
    expect({ strict, fts5, triggers: count('trigger') }).toMatchObject({ strict: expect.any(Number), fts5: 2 });
    expect(Number(strict)).toBeGreaterThanOrEqual(40);
    expect(Number(count('index'))).toBeGreaterThanOrEqual(51);
    expect(Number(count('trigger'))).toBeGreaterThanOrEqual(23);

    db.exec('CREATE TABLE gatesim_probe (id INTEGER PRIMARY KEY, body TEXT NOT NULL) STRICT');
    const insert = db.prepare('INSERT INTO gatesim_probe (body) VALUES (?)');
    transaction(db, () => {
      insert.run('outer');
      expect(db.isTransaction).toBe(true);
      try {
        transaction(db, () => {
          insert.run('inner, rolled back');
          throw new Error('rollback the savepoint');
        });
      } catch (error) {
        expect((error as Error).message).toBe('rollback the savepoint');
      }
      transaction(db, () => insert.run('inner, kept'));
    });
    expect(db.isTransaction).toBe(false);
    expect(db.prepare('SELECT body FROM gatesim_probe ORDER BY id').all().map((row) => row.body)).toEqual(['outer', 'inner, kept']);
    expect(maintenance.close()).toBe(true);
    db.close();
    expect(sim.disk.paths()).toContain(path);
    expect(sim.disk.peekSyncedBytes(path)?.length).toBeGreaterThan(100_000);
    expect(binding.escapes).toEqual([]);
    sim.dispose();
  }, 120_000);
});

describe.skipIf(missing || node24Here)("2026.9.6's agent database on the simulated node:sqlite (re-run under Node 24)", () => {
  it(`passes the ${underNode24} block under the workspace's Node 24`, () => {
    rerunUnderNode24(import.meta.url, 300_000);
  }, 320_000);
});

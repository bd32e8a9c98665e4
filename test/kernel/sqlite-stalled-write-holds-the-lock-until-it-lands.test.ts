// Stalled writes (issue 48 item 4, sim/kernel/sqlite.ts): a write that stalls applies at its end and holds the
// database's write lock until then. A write of another process waits behind it when the stall ends within the busy
// timeout, and fails with "database is locked" once it has waited the busy timeout otherwise; reads meanwhile see the
// last committed state; a kill of the stalled writer rolls its write back and frees the lock; the stall and its end
// are on the trace. Without enableWriteStalls nothing stalls and nothing new is traced.
import { describe, expect, it } from 'vitest';
import { SqliteBusyError } from '../../src/ports.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { makeSim } from './support.ts';

const sql = await loadSqlJs();
const schema = 'CREATE TABLE t(id INTEGER PRIMARY KEY, who TEXT);';
const path = '/db/stalls.db';

/** Process a writes at 0 (stalled `stallMs` when `stall`), process b writes at 1 s; what b saw and when each landed. */
async function race(stallMs: number, options: { stall?: boolean; killAtMs?: number } = {}): Promise<{ sim: Simulation; b: string; landed: Record<string, number>; readAtMs: number[] }> {
  const sim = makeSim(sql, `stalls-${stallMs}`);
  sim.sqlite.enableWriteStalls({ per1000: 0, msMin: 1, msMax: 1, busyTimeoutMs: 5_000 }, () => sim.clock.nowMs(), sim.scheduler);
  if (options.stall !== false) sim.sqlite.stallNextWrite((at, process) => at === path && process === 'a', stallMs);
  const landed: Record<string, number> = {};
  const readAtMs: number[] = [];
  let b = 'pending';
  sim.spawn('a', async (ctx) => {
    const db = await ctx.sqlite.open(path, schema);
    await db.run("INSERT INTO t(who) VALUES ('a')");
    landed.a = ctx.clock.nowMs();
  });
  sim.spawn('b', async (ctx) => {
    const db = await ctx.sqlite.open(path, schema);
    await ctx.timers.sleep(1_000);
    readAtMs.push((await db.query('SELECT COUNT(*) AS n FROM t'))[0]?.n as number);
    try {
      await db.run("INSERT INTO t(who) VALUES ('b')");
      landed.b = ctx.clock.nowMs();
      b = 'written';
    } catch (error) {
      b = error instanceof SqliteBusyError ? `busy at ${Math.floor(ctx.clock.nowMs() / 1_000)} s` : String(error);
    }
  });
  if (options.killAtMs !== undefined) sim.scheduler.schedule(options.killAtMs, () => sim.kill('a'));
  await sim.run();
  return { sim, b, landed, readAtMs };
}

const rows = (sim: Simulation): string[] => sim.sqlite.inspect(path, 'SELECT who FROM t ORDER BY id').map((row) => String(row.who));

describe('a stalled write holds the write lock until it lands', () => {
  it('a 4 s stall: the other writer waits behind it and lands after it; a read meanwhile sees the old state', async () => {
    const { sim, b, landed, readAtMs } = await race(4_000);
    expect(b).toBe('written');
    expect(landed.a).toBeGreaterThanOrEqual(4_000);
    expect(landed.b).toBeGreaterThan(landed.a ?? Infinity);
    expect(readAtMs).toEqual([0]);
    expect(rows(sim)).toEqual(['a', 'b']);
    const stalls = sim.trace.events.filter((event) => (event.kind === 'fault' && event.fields.kind === 'write-stall') || event.kind === 'sql.stall-end');
    expect(stalls.map((event) => [event.kind, event.fields.process, event.fields.landed ?? event.fields.ms])).toEqual([
      ['fault', 'a', 4_000],
      ['sql.stall-end', 'a', true],
    ]);
    sim.dispose();
  });

  it('a 20 s stall: the other writer fails with "database is locked" after its 5 s busy timeout, and the stalled write lands', async () => {
    const { sim, b, landed } = await race(20_000);
    expect(b).toBe('busy at 6 s');
    expect(landed.a).toBeGreaterThanOrEqual(20_000);
    expect(rows(sim)).toEqual(['a']);
    expect(sim.trace.events.filter((event) => event.kind === 'sql.busy').map((event) => event.fields)).toEqual([{ path, cause: 'stalled-writer', waitedMs: 5_000 }]);
    sim.dispose();
  });

  it('the stalled writer killed at 3 s: its write is rolled back, never ends, and the lock is free', async () => {
    const { sim, b, landed } = await race(20_000, { killAtMs: 3_000 });
    expect(landed.a).toBeUndefined();
    expect(b).toBe('written');
    expect(landed.b).toBeLessThan(4_000);
    expect(rows(sim)).toEqual(['b']);
    expect(sim.trace.events.filter((event) => event.kind === 'sql.stall-end')).toEqual([]);
    sim.dispose();
  });

  it('no stall: both write at once, and nothing of the stalls is traced', async () => {
    const { sim, b, landed } = await race(20_000, { stall: false });
    expect(b).toBe('written');
    expect(landed.a).toBeLessThan(100);
    expect(sim.trace.events.filter((event) => event.kind === 'sql.stall-end' || (event.kind === 'fault' && event.fields.kind === 'write-stall'))).toEqual([]);
    sim.dispose();
  });
});

describe('a stalled fsync (sim/kernel/disk.ts)', () => {
  async function fsyncRun(killAtMs?: number): Promise<{ sim: Simulation; returnedAtMs: number | undefined }> {
    const sim = makeSim(sql, `fsync-stall-${killAtMs ?? 'none'}`);
    sim.disk.enableFsyncStalls({ per1000: 1000, msMin: 8_000, msMax: 8_000 });
    let returnedAtMs: number | undefined;
    sim.spawn('w', async (ctx) => {
      await ctx.disk.append('/f.jsonl', 'line\n');
      await ctx.disk.fsync('/f.jsonl');
      returnedAtMs = ctx.clock.nowMs();
    });
    if (killAtMs !== undefined) sim.scheduler.schedule(killAtMs, () => sim.kill('w'));
    await sim.run();
    return { sim, returnedAtMs };
  }

  it('returns after its stall with the data synced, the stall and its end on the trace', async () => {
    const { sim, returnedAtMs } = await fsyncRun();
    expect(returnedAtMs).toBeGreaterThanOrEqual(8_000);
    const events = sim.trace.events.filter((event) => (event.kind === 'fault' && event.fields.kind === 'fsync-stall') || event.kind === 'disk.stall-end' || event.kind === 'disk.sync');
    expect(events.map((event) => event.kind)).toEqual(['fault', 'disk.sync', 'disk.stall-end']);
    sim.dispose();
  });

  it('a writer killed during the stall: the fsync never returns and never syncs; the data stays in the page cache', async () => {
    const { sim, returnedAtMs } = await fsyncRun(3_000);
    expect(returnedAtMs).toBeUndefined();
    expect(sim.trace.events.filter((event) => event.kind === 'disk.stall-end' || (event.kind === 'disk.sync' && event.fields.reason === 'fsync'))).toEqual([]);
    expect(sim.disk.peek('/f.jsonl')).toBe('line\n');
    sim.dispose();
  });
});

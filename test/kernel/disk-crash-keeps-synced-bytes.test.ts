// The disk's durability model: a write is volatile until an fsync (or a background writeback) of its file. A SIGKILL
// of the writing process loses nothing (the page cache is the kernel's); a power loss drops every volatile write the
// periodic writeback had not made durable (dirty data older than 30 s at a 5 s flusher tick) and may leave a torn
// prefix of a file's oldest unsynced append, and nothing else.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProcessMain } from '../../src/ports.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { eventsOfKind, idleMain, incarnationOf, makeSim, numberField } from './support.ts';

const sql = await loadSqlJs();

// ---------------------------------------------------------------------------------------------------------------
// An independent model of the durability rules, checked against the disk over random operation sequences.

interface PendingOp {
  owner: string;
  kind: 'write' | 'append';
  data: string;
}

interface ModelFile {
  synced: string;
  pending: PendingOp[];
}

type Op =
  | { kind: 'write' | 'append'; owner: string; path: string; data: string }
  | { kind: 'fsync'; owner: string; path: string }
  | { kind: 'rename'; owner: string; path: string; to: string }
  | { kind: 'remove'; owner: string; path: string };

function applyPending(base: string, ops: readonly PendingOp[]): string {
  return ops.reduce((content, op) => (op.kind === 'write' ? op.data : content + op.data), base);
}

class DiskModel {
  readonly files = new Map<string, ModelFile>();

  /** Apply `op`; false if the disk would refuse it (a rename of a missing file), in which case it is skipped. */
  apply(op: Op): boolean {
    const file = this.files.get(op.path);
    if (op.kind === 'write' || op.kind === 'append') {
      const target = file ?? { synced: '', pending: [] };
      target.pending.push({ owner: op.owner, kind: op.kind, data: op.data });
      this.files.set(op.path, target);
    } else if (op.kind === 'fsync') {
      if (file !== undefined) this.files.set(op.path, { synced: applyPending(file.synced, file.pending), pending: [] });
    } else if (op.kind === 'rename') {
      if (file === undefined) return false;
      this.files.delete(op.path);
      this.files.set(op.to, file);
    } else if (this.files.has(op.path)) {
      this.files.delete(op.path);
    }
    return true;
  }

  current(path: string): string | undefined {
    const file = this.files.get(path);
    return file === undefined ? undefined : applyPending(file.synced, file.pending);
  }
}

const ownerArb = fc.constantFrom('w1', 'w2');
const pathArb = fc.constantFrom('/f0', '/f1', '/f2');
const dataArb = fc.string({ maxLength: 8 });
const dataOp = (kind: 'write' | 'append'): fc.Arbitrary<Op> =>
  fc.record({ kind: fc.constant(kind), owner: ownerArb, path: pathArb, data: dataArb });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: dataOp('append') },
  { weight: 2, arbitrary: dataOp('write') },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fsync' as const), owner: ownerArb, path: pathArb }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('rename' as const), owner: ownerArb, path: pathArb, to: pathArb }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), owner: ownerArb, path: pathArb }) },
);

function perform(sim: Simulation, op: Op): void {
  const owner = incarnationOf(sim, op.owner);
  // The returned promises resolve in the owner's incarnation; nothing awaits them here.
  if (op.kind === 'write') void sim.disk.write(owner, op.path, op.data);
  else if (op.kind === 'append') void sim.disk.append(owner, op.path, op.data);
  else if (op.kind === 'fsync') void sim.disk.fsync(owner, op.path);
  else if (op.kind === 'rename') void sim.disk.rename(owner, op.path, op.to);
  else void sim.disk.remove(owner, op.path);
}

/** Check the disk after a power loss, against the model before it; then update the model. */
function checkPowerLoss(sim: Simulation, model: DiskModel, lossIndex: number, tearPer1000: number): void {
  const crashes = eventsOfKind(sim, 'disk.crash').filter((event) => event.index > lossIndex);
  for (const [path, file] of [...model.files]) {
    const event = crashes.find((candidate) => candidate.fields.path === path);
    expect(event !== undefined, `power-loss event for ${path}`).toBe(file.pending.length > 0);
    if (event === undefined) continue;
    const tornBytes = numberField(event, 'tornBytes');
    const first = file.pending[0] as PendingOp;
    const tearable = first.kind === 'append' && tearPer1000 > 0;
    if (tearable) {
      expect(tornBytes).toBeGreaterThanOrEqual(0);
      expect(tornBytes).toBeLessThan(Math.max(1, first.data.length));
    } else {
      expect(tornBytes).toBe(0);
    }
    const synced = file.synced + (tearable ? first.data.slice(0, tornBytes) : '');
    expect(sim.disk.peekSynced(path)).toBe(synced);
    expect(sim.disk.peek(path)).toBe(synced);
    expect(numberField(event, 'keptBytes')).toBe(synced.length);
    model.files.set(path, { synced, pending: [] });
  }
  for (const path of model.files.keys()) expect(sim.disk.peek(path)).toBe(model.current(path));
  expect(sim.disk.paths()).toEqual([...model.files.keys()].sort());
}

describe('a SIGKILL keeps the page cache; a power loss keeps exactly the synced bytes', () => {
  it('over random operation sequences of two processes, kills lose nothing and a power loss drops every volatile write', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.array(opArb, { maxLength: 40 }),
        fc.constantFrom(0, 500, 1000),
        ownerArb,
        async (seed, ops, tearPer1000, victim) => {
          const sim = makeSim(sql, seed);
          sim.disk.faults = { ...sim.disk.faults, tearPer1000, backgroundSyncPer1000: 0, fsyncLatencyMsMax: 10 };
          sim.spawn('w1', idleMain);
          sim.spawn('w2', idleMain);
          const model = new DiskModel();
          let atMs = 10;
          for (const op of ops) {
            if (!model.apply(op)) continue;
            // Operations 20 ms apart: each fsync (at most 10 ms) completes before the next operation, and all of
            // them well inside the 30 s the periodic writeback waits.
            sim.at(atMs, () => perform(sim, op));
            atMs += 20;
          }
          const checks: string[] = [];
          sim.at(atMs + 100, () => {
            sim.kill(victim);
            for (const path of model.files.keys()) expect(sim.disk.peek(path)).toBe(model.current(path));
            expect(eventsOfKind(sim, 'disk.crash')).toHaveLength(0);
            checks.push('kill');
          });
          sim.at(atMs + 200, () => {
            const lossIndex = sim.trace.length - 1;
            sim.powerLoss(['w1', 'w2']);
            checkPowerLoss(sim, model, lossIndex, tearPer1000);
            checks.push('power loss');
          });
          await sim.run();
          sim.dispose();
          expect(checks).toEqual(['kill', 'power loss']);
          for (const path of model.files.keys()) expect(sim.disk.peek(path)).toBe(sim.disk.peekSynced(path));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the periodic writeback makes data durable at the first 5 s flusher tick 30 s after it was dirtied', async () => {
    const lossAt = async (lossAtMs: number): Promise<string | undefined> => {
      const sim = makeSim(sql, 'expire');
      sim.spawn('p', async (ctx) => {
        await ctx.timers.sleep(10);
        await ctx.disk.write('/f', 'first');
        await ctx.timers.sleep(29_000);
        await ctx.disk.append('/f', ' second');
      });
      sim.at(lossAtMs, () => sim.powerLoss(['p']));
      await sim.run();
      sim.dispose();
      return sim.disk.peek('/f');
    };
    // Dirtied at 10 ms: expired at 30,010 ms, written back at the 35,000 ms tick with everything written by then.
    expect(await lossAt(34_999)).toBe('');
    expect(await lossAt(35_000)).toBe('first second');
    // A file dirtied again at 36,000 ms, after its tick, waits for the tick after 66,000 ms: 70,000 ms.
    for (const [at, expected] of [[69_999, ''], [70_000, 'late']] as const) {
      const sim = makeSim(sql, 'expire-2');
      sim.spawn('p', async (ctx) => {
        await ctx.timers.sleep(36_000);
        await ctx.disk.append('/g', 'late');
      });
      sim.at(at, () => sim.powerLoss(['p']));
      await sim.run();
      sim.dispose();
      expect(sim.disk.peek('/g'), `power loss at ${at} ms`).toBe(expected);
    }
  });
});

describe('fsync and background writeback', () => {
  /** One incarnation that writes, then a power loss, then a restart that reads back what survived. */
  async function writeLoseRead(
    configure: (sim: Simulation) => void,
    body: ProcessMain,
  ): Promise<[Simulation, (string | undefined)[]]> {
    const sim = makeSim(sql, 'fsync');
    configure(sim);
    const readBack: (string | undefined)[] = [];
    sim.spawn('p', async (ctx) => {
      if (ctx.incarnation === 1) return body(ctx);
      readBack.push(await ctx.disk.read('/synced'), await ctx.disk.read('/volatile'), await ctx.disk.read('/never'));
    });
    sim.at(10_000, () => {
      sim.powerLoss(['p']);
      sim.restart('p', 10);
    });
    await sim.run();
    sim.dispose();
    return [sim, readBack];
  }

  it('keeps data whose fsync completed and loses data written after it', async () => {
    const [, readBack] = await writeLoseRead(
      () => {},
      async (ctx) => {
        await ctx.disk.write('/synced', 'header\n');
        await ctx.disk.append('/synced', 'line 1\n');
        await ctx.disk.fsync('/synced');
        await ctx.disk.append('/synced', 'line 2 (volatile)\n');
        await ctx.disk.write('/volatile', 'never synced');
      },
    );
    // File creation is metadata and durable at once; the unsynced content is not.
    expect(readBack).toEqual(['header\nline 1\n', '', undefined]);
  });

  it('a background writeback makes unsynced data durable, and without it the data is lost', async () => {
    const body: ProcessMain = async (ctx) => {
      await ctx.disk.write('/synced', 'written back');
    };
    const [withWriteback, kept] = await writeLoseRead((sim) => {
      sim.disk.faults = { ...sim.disk.faults, backgroundSyncPer1000: 1000, backgroundSyncDelayMsMax: 50 };
    }, body);
    expect(kept[0]).toBe('written back');
    expect(eventsOfKind(withWriteback, 'disk.sync').map((event) => event.fields.reason)).toEqual(['writeback']);

    const [without, lost] = await writeLoseRead((sim) => {
      sim.disk.faults = { ...sim.disk.faults, backgroundSyncPer1000: 0 };
    }, body);
    expect(lost[0]).toBe('');
    expect(eventsOfKind(without, 'disk.sync')).toHaveLength(0);
  });

  it('a SIGKILL loses nothing: the restarted process reads every write, synced or not', async () => {
    const sim = makeSim(sql, 'kill-keeps');
    const readBack: (string | undefined)[] = [];
    sim.spawn('p', async (ctx) => {
      if (ctx.incarnation === 1) {
        await ctx.disk.write('/f', 'header\n');
        await ctx.disk.fsync('/f');
        await ctx.disk.append('/f', 'unsynced\n');
        return;
      }
      readBack.push(await ctx.disk.read('/f'));
    });
    sim.at(10_000, () => {
      sim.kill('p');
      sim.restart('p', 10);
    });
    await sim.run();
    sim.dispose();
    expect(readBack).toEqual(['header\nunsynced\n']);
    expect(eventsOfKind(sim, 'disk.crash')).toHaveLength(0);
  });

  it('an fsync that had not completed when the process died syncs nothing', async () => {
    const sim = makeSim(sql, 'fsync-interrupted');
    sim.disk.faults = { ...sim.disk.faults, fsyncLatencyMsMax: 10 };
    const after: string[] = [];
    sim.spawn('p', async (ctx) => {
      await ctx.disk.write('/f', 'data');
      sim.at(ctx.clock.nowMs(), () => sim.kill('p'));
      await ctx.disk.fsync('/f');
      after.push('fsync returned');
    });
    await sim.run();
    sim.dispose();
    expect(after).toEqual([]);
    expect(sim.disk.peek('/f')).toBe('data');
    expect(sim.disk.peekSynced('/f')).toBe('');
    expect(eventsOfKind(sim, 'disk.sync')).toHaveLength(0);
  });

  it('reads see unsynced writes before a crash (the page cache)', async () => {
    const sim = makeSim(sql, 'page-cache');
    const seen: (string | undefined)[] = [];
    sim.spawn('p', async (ctx) => {
      await ctx.disk.append('/f', 'a');
      await ctx.disk.append('/f', 'b');
      seen.push(await ctx.disk.read('/f'));
    });
    await sim.run();
    sim.dispose();
    expect(seen).toEqual(['ab']);
    expect(sim.disk.peekSynced('/f')).toBe('');
  });
});

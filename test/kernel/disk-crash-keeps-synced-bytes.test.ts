// The disk's durability model: a write is volatile until an fsync (or a background writeback) of its file; a crash
// of the writing process drops its volatile writes and may leave a torn prefix of the oldest unsynced append, and
// nothing else. Another process's unsynced writes survive the crash of the first (they are its, not the dead one's).
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

/** Check the disk after `victim` crashed, against the model before the crash; then update the model. */
function checkCrash(sim: Simulation, model: DiskModel, victim: string, crashIndex: number, tearPer1000: number): void {
  const crashes = eventsOfKind(sim, 'disk.crash').filter(
    (event) => event.index > crashIndex && event.fields.process === victim,
  );
  for (const [path, file] of [...model.files]) {
    const hit = file.pending.some((op) => op.owner === victim);
    const event = crashes.find((candidate) => candidate.fields.path === path);
    expect(event !== undefined, `crash event for ${path}`).toBe(hit);
    if (!hit || event === undefined) continue;
    const tornBytes = numberField(event, 'tornBytes');
    const first = file.pending[0] as PendingOp;
    const tearable = first.owner === victim && first.kind === 'append' && tearPer1000 > 0;
    if (tearable) {
      expect(tornBytes).toBeGreaterThanOrEqual(0);
      expect(tornBytes).toBeLessThan(Math.max(1, first.data.length));
    } else {
      expect(tornBytes).toBe(0);
    }
    const synced = file.synced + (tearable ? first.data.slice(0, tornBytes) : '');
    const survivors = file.pending.filter((op) => op.owner !== victim);
    expect(sim.disk.peekSynced(path)).toBe(synced);
    expect(sim.disk.peek(path)).toBe(applyPending(synced, survivors));
    expect(numberField(event, 'keptBytes')).toBe(applyPending(synced, survivors).length);
    model.files.set(path, { synced, pending: survivors });
  }
  for (const path of model.files.keys()) expect(sim.disk.peek(path)).toBe(model.current(path));
  expect(sim.disk.paths()).toEqual([...model.files.keys()].sort());
}

describe('a crash keeps exactly the synced bytes', () => {
  it('over random operation sequences of two processes, each crash drops exactly its own volatile writes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.array(opArb, { maxLength: 40 }),
        fc.constantFrom(0, 500, 1000),
        ownerArb,
        async (seed, ops, tearPer1000, firstVictim) => {
          const sim = makeSim(sql, seed);
          sim.disk.faults = { ...sim.disk.faults, tearPer1000, backgroundSyncPer1000: 0, fsyncLatencyMsMax: 10 };
          sim.spawn('w1', idleMain);
          sim.spawn('w2', idleMain);
          const model = new DiskModel();
          let atMs = 10;
          for (const op of ops) {
            if (!model.apply(op)) continue;
            // Operations 20 ms apart: each fsync (at most 10 ms) completes before the next operation.
            sim.at(atMs, () => perform(sim, op));
            atMs += 20;
          }
          const secondVictim = firstVictim === 'w1' ? 'w2' : 'w1';
          const checks: string[] = [];
          for (const [victim, offsetMs] of [[firstVictim, 100], [secondVictim, 200]] as const) {
            sim.at(atMs + offsetMs, () => {
              for (const path of model.files.keys()) expect(sim.disk.peek(path)).toBe(model.current(path));
              const crashIndex = sim.trace.length - 1;
              sim.kill(victim);
              checkCrash(sim, model, victim, crashIndex, tearPer1000);
              checks.push(victim);
            });
          }
          await sim.run();
          sim.dispose();
          expect(checks).toEqual([firstVictim, secondVictim]);
          // With both writers dead, what is left is exactly what was synced (plus torn prefixes).
          for (const path of model.files.keys()) expect(sim.disk.peek(path)).toBe(sim.disk.peekSynced(path));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('fsync and background writeback', () => {
  /** One incarnation that writes, then a kill, then a restart that reads back what survived. */
  async function writeKillRead(
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
      sim.kill('p');
      sim.restart('p', 10);
    });
    await sim.run();
    sim.dispose();
    return [sim, readBack];
  }

  it('keeps data whose fsync completed and loses data written after it', async () => {
    const [, readBack] = await writeKillRead(
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
    const [withWriteback, kept] = await writeKillRead((sim) => {
      sim.disk.faults = { ...sim.disk.faults, backgroundSyncPer1000: 1000, backgroundSyncDelayMsMax: 50 };
    }, body);
    expect(kept[0]).toBe('written back');
    expect(eventsOfKind(withWriteback, 'disk.sync').map((event) => event.fields.reason)).toEqual(['writeback']);

    const [without, lost] = await writeKillRead((sim) => {
      sim.disk.faults = { ...sim.disk.faults, backgroundSyncPer1000: 0 };
    }, body);
    expect(lost[0]).toBe('');
    expect(eventsOfKind(without, 'disk.sync')).toHaveLength(0);
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
    expect(sim.disk.peek('/f')).toBe('');
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

// The disk's synchronous calls (readNow, writeNow, appendNow: a real module's readFileSync and friends, sim/real)
// take effect at once and take no simulated time, under the same durability rules as the asynchronous ones: volatile
// until an fsync, kept by a SIGKILL of the writer (the page cache), dropped by a power loss, inert for a dead
// incarnation.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { idleMain, incarnationOf, makeSim } from './support.ts';

const sql = await loadSqlJs();

describe('synchronous disk calls', () => {
  it('apply at once without moving the clock, stay volatile until fsync, survive a kill and vanish in a power loss', async () => {
    const sim = makeSim(sql, 'sync-disk');
    sim.spawn('p', idleMain);
    await sim.run();
    const owner = incarnationOf(sim, 'p');
    const before = sim.clock.nowMs();
    sim.disk.writeNow(owner, '/f', 'a\n');
    sim.disk.appendNow(owner, '/f', 'b\n');
    expect(sim.disk.readNow(owner, '/f')).toBe('a\nb\n');
    expect(sim.clock.nowMs()).toBe(before);
    expect(sim.disk.peekSynced('/f')).toBe('');
    sim.kill('p');
    expect(sim.disk.peek('/f')).toBe('a\nb\n');
    sim.disk.appendNow(owner, '/f', 'c\n');
    expect(sim.disk.peek('/f')).toBe('a\nb\n');
    sim.powerLoss([]);
    expect(sim.disk.peek('/f')).toBe('');
    expect(sim.disk.readNow(owner, '/f')).toBeUndefined();
    sim.dispose();
  });
});

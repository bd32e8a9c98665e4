// The real pi SessionManager (@mariozechner/pi-coding-agent 0.73.1) loaded through sim/real: it writes the simulated
// disk (never the real one), its ids come from the run's PRNG and its timestamps from the simulated clock, the disk's
// durability rules apply to what it writes (it never fsyncs, so a kill drops what no writeback has synced, and may
// tear the oldest unsynced append), and the same seed gives the same trace in this process and in a fresh one.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ProcessContext } from '../../src/ports.ts';
import { simEpochMs } from '../../src/pi-format.ts';
import type { SessionEntry } from '../../src/session-manager.ts';
import type { SessionManagerPort } from '../../src/session-manager-port.ts';
import { repairSessionFileIfNeeded, type SessionFileRepair } from '../../src/session-file-repair.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { runDifferential } from '../../sim/real/differential.ts';
import { piSessionManagerFactory } from '../../sim/real/pi-session-manager.ts';
import { operationsFor } from './fixtures/operations.ts';
import { piMissing, realPi, sql } from './support.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const path = '/data/sessions/s.jsonl';

/** Run `body` in one simulated process with the pi factory; returns the simulation after the run. */
async function withPi(seed: string, body: (ctx: ProcessContext, open: () => Promise<SessionManagerPort>, sim: Simulation) => Promise<void>, tearPer1000 = 0): Promise<Simulation> {
  const sim = new Simulation({ seed, sql });
  sim.disk.faults = { ...sim.disk.faults, tearPer1000 };
  const factory = piSessionManagerFactory(sim, realPi());
  sim.spawn('runner', (ctx) => body(ctx, () => factory(ctx, path), sim));
  await sim.run();
  sim.dispose();
  expect(sim.processes.crashes).toEqual([]);
  return sim;
}

function linesOf(text: string | undefined): Record<string, unknown>[] {
  return (text ?? '').split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.skipIf(piMissing)('the real pi SessionManager under simulation', () => {
  it('writes the simulated disk with simulated time and PRNG ids, and nothing before the first assistant message', async () => {
    let afterUser: string | undefined = 'unset';
    let userEntry: SessionEntry | undefined;
    const sim = await withPi('disk-1', async (ctx, open, world) => {
      await ctx.timers.sleep(90_061_001);
      const session = await open();
      userEntry = await session.appendMessage({ role: 'user', content: 'hello' }, 't1');
      afterUser = world.disk.peek(path);
      await session.appendMessage({ role: 'assistant', content: 'hi' }, 't1');
    });
    expect(afterUser).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    const [header, user, assistant] = linesOf(sim.disk.peek(path));
    // pi's clock is the simulated clock from simEpochMs (2026-01-01), as the model's timestamps are.
    expect(header).toMatchObject({ type: 'session', version: 3, cwd: '/work', timestamp: '2026-01-02T01:01:01.001Z' });
    expect(userEntry?.timestamp).toBe(90_061_001);
    // uuid v7: the first 48 bits are the (simulated) wall-clock milliseconds.
    expect(String(header?.id).replace(/-/g, '').slice(0, 12)).toBe((simEpochMs + 90_061_001).toString(16).padStart(12, '0'));
    expect(user).toMatchObject({ type: 'message', parentId: null, timestamp: '2026-01-02T01:01:01.001Z', message: { role: 'user', content: 'hello', turnId: 't1' } });
    expect(assistant).toMatchObject({ parentId: user?.id, message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }], stopReason: 'stop' } });
    expect(String(user?.id)).toMatch(/^[0-9a-f]{8}$/);
  });

  it('never fsyncs: a SIGKILL keeps its lines in the page cache, a power loss before the writeback loses them all, a writeback keeps them', async () => {
    const killed = await withPi('disk-2', async (ctx, open) => {
      const session = await open();
      await session.appendMessage({ role: 'user', content: 'u' }, 't1');
      await session.appendMessage({ role: 'assistant', content: 'a' }, 't1');
      ctx.supervisor.kill(ctx.name);
    });
    expect(linesOf(killed.disk.peek(path))).toHaveLength(3);
    expect(killed.disk.peekSynced(path)).toBe('');
    const lost = await withPi('disk-2', async (ctx, open, sim) => {
      const session = await open();
      await session.appendMessage({ role: 'user', content: 'u' }, 't1');
      await session.appendMessage({ role: 'assistant', content: 'a' }, 't1');
      sim.powerLoss([ctx.name]);
    });
    expect(lost.disk.peek(path)).toBe('');
    const kept = await withPi('disk-2', async (ctx, open, sim) => {
      const session = await open();
      await session.appendMessage({ role: 'user', content: 'u' }, 't1');
      await session.appendMessage({ role: 'assistant', content: 'a' }, 't1');
      await ctx.disk.fsync(path);
      sim.powerLoss([ctx.name]);
    });
    expect(linesOf(kept.disk.peek(path))).toHaveLength(3);
  });

  it('a power loss may tear the oldest unsynced append; pi skips the torn line and the repair step drops it', async () => {
    let repair: SessionFileRepair | undefined;
    let branches: string[][] = [];
    await withPi('tear-3', async (ctx, open, sim) => {
      const first = await open();
      await first.appendMessage({ role: 'user', content: 'u' }, 't1');
      await first.appendMessage({ role: 'assistant', content: 'a' }, 't1');
      await ctx.disk.fsync(path);
      await first.appendMessage({ role: 'user', content: 'a longer second user message' }, 't2');
      // The disk alone loses power (the process goes on, to reload what is left).
      sim.disk.powerLoss();
      const contents = (session: SessionManagerPort) => session.activeBranch().map((entry) => String(entry.message.content));
      const unrepaired = contents(await open());
      repair = await repairSessionFileIfNeeded(ctx.disk, path, ctx.incarnation, ctx.clock.nowMs());
      branches = [unrepaired, contents(await open())];
    }, 1000);
    expect(repair).toMatchObject({ repaired: true, droppedLines: 1 });
    expect(branches).toEqual([['u', 'a'], ['u', 'a']]);
  });

  const seeds = ['det-a', 'det-b', 'det-c', 'det-d', 'det-e'];

  it('gives the same trace hash and files for the same seed, twice in one process', async () => {
    for (const seed of seeds) {
      const first = await runDifferential(sql, realPi(), seed, operationsFor(seed), { tearPer1000: 500 });
      const second = await runDifferential(sql, realPi(), seed, operationsFor(seed), { tearPer1000: 500 });
      expect(second.traceHash).toBe(first.traceHash);
      expect(second.steps).toEqual(first.steps);
    }
    const hashes = new Set<string>();
    for (const seed of seeds) hashes.add((await runDifferential(sql, realPi(), seed, operationsFor('det-a'), { tearPer1000: 500 })).traceHash);
    expect(hashes.size).toBe(seeds.length);
  });

  it('gives the same trace hash and files for the same seed in a fresh process', { timeout: 120_000 }, async () => {
    const here: Record<string, { traceHash: string; file: string[] }> = {};
    for (const seed of seeds) {
      const result = await runDifferential(sql, realPi(), seed, operationsFor(seed), { tearPer1000: 500 });
      here[seed] = { traceHash: result.traceHash, file: result.steps.at(-1)?.pi.file ?? [] };
    }
    const { stdout } = await run('npx', ['tsx', 'test/real/fixtures/pi-hashes.ts', ...seeds], { cwd: repoRoot });
    expect(JSON.parse(stdout)).toEqual(here);
  });
});

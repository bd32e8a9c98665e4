// The benchmark's peer (bench/peer): the plain fast-check property, with fast-check's scheduler and no simulated
// network, disk or kill, that an engineer would write without gatesim. It must hold on the fixed model (or the
// peer's "found" figures would be false alarms) and must catch a bug that needs no fault (send-flag).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { peerHunt } from '../../bench/peer/hunt.ts';
import { peerPlanArb, peerRun } from '../../bench/peer/property.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';

describe('the peer property', () => {
  it('holds on the fixed model', async () => {
    const sql = await loadSqlJs();
    const property = fc.asyncProperty(fc.scheduler(), peerPlanArb, async (s, plan) => (await peerRun(s, plan, [], sql)) === undefined);
    await fc.assert(property, { seed: 7, numRuns: 8 });
  }, 120_000);

  it("holds on the fixed model over the bench's own campaigns (a /clear moves a key's rows and entries to a new session)", async () => {
    // Before the peer read a key's whole family, these campaigns raised 'reply not persisted' at a median of run 5.
    const result = await peerHunt([], [1, 2, 3], 12, await loadSqlJs());
    expect(result.found).toBe(0);
  }, 120_000);

  it('holds on the fixed model when a session gets /clear twice (each has its own canned reply)', async () => {
    const sql = await loadSqlJs();
    const plan = {
      sessions: 1,
      seed: 3,
      steps: [
        { kind: 'clear' as const, atMs: 1_000, session: 0 },
        { kind: 'clear' as const, atMs: 30_000, session: 0 },
      ],
    };
    const failures: string[] = [];
    const property = fc.asyncProperty(fc.scheduler(), async (s) => {
      const failure = await peerRun(s, plan, [], sql);
      if (failure !== undefined) failures.push(failure);
      return failure === undefined;
    });
    await fc.check(property, { seed: 7, numRuns: 3 });
    expect(failures).toEqual([]);
  }, 120_000);

  it('finds send-flag, which needs no fault', async () => {
    const sql = await loadSqlJs();
    const failures: string[] = [];
    const property = fc.asyncProperty(fc.scheduler(), peerPlanArb, async (s, plan) => {
      const failure = await peerRun(s, plan, ['send-flag'], sql);
      if (failure !== undefined) failures.push(failure);
      return failure === undefined;
    });
    const outcome = await fc.check(property, { seed: 1, numRuns: 40, endOnFailure: true });
    expect(outcome.failed).toBe(true);
    expect(failures[0]).toMatch(/^lost reply/);
  }, 120_000);
});

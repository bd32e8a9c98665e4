// A SIGKILL keeps the page cache, so a runner killed between a transcript append and its fsync leaves the entries
// readable but not durable until the kernel writes them back (30 s). The restarted runner resumes the turn from
// state.db, finds the entries on the JSONL branch and sends the reply; a power loss 4 s later took the entries back,
// leaving a reply the user saw with no transcript entry and three accepted messages off the branch (`fuzz --scenario
// chaos --runs 2000 --seed 3`, shrunk). The fixed runner fsyncs the session file when it opens it for an attempt.
// The shape needs the campaign's plan, so its shrunk plan is replayed and checked first.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.465729115.0-28-4-7-7-10-4-4-4-11-11-11-8-7-9-9-10-9-10-11-11-11-11-12-13-12-13-13.0_1_0-4f551d.2e71f23f (chaos before it offered an action on the world); its plan is frozen.
const plan = 'resumed-turn-syncs-appended';
const file = '/data/sessions/agent%3Amain%3Achat%3A2.jsonl';

describe('a turn resumed after its runner was killed between an append and its fsync', () => {
  it('syncs the session file before it acts, so the power loss that follows keeps the entries', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const events = result.sim.trace.events;
      // The shape: an append to the file, the runner killed at the same instant, a power loss within 30 s.
      const append = events.findIndex((event) => event.kind === 'disk.append' && event.fields.path === file);
      const kill = events.findIndex((event, index) => index > append && event.kind === 'proc.kill' && event.fields.name === 'runner');
      expect(append).toBeGreaterThan(-1);
      expect(events[kill]?.timeMs).toBe(events[append]?.timeMs);
      const powerLoss = events.find((event) => event.kind === 'fault' && event.fields.kind === 'power-loss');
      expect((powerLoss?.timeMs ?? 0) - (events[append]?.timeMs ?? 0)).toBeLessThan(30_000);
      // The restarted runner synced the file before the power loss.
      expect(events.some((event) => event.kind === 'disk.sync' && event.fields.path === file && event.fields.reason === 'fsync' && event.timeMs > (events[kill]?.timeMs ?? 0) && event.timeMs < (powerLoss?.timeMs ?? 0))).toBe(true);
      expect(result.violations).toEqual([]);
    });
  });
});

// A /clear waits for every message before it that still wants a run (src/claims.ts fetchBatch), but not for a heartbeat
// row the gateway holds for its own run (src/heartbeat-run.ts, the knob heartbeatRun `gateway`): that row is released
// only by the gateway's retry of a failed run, and the retry waits while the lane has a request in flight, so a /clear
// waiting for it waited for good. Chaos seed 161 (fixed model, no fault step, only fault rates): a heartbeat run for
// run-1's exec events failed with every model, a /clear came next, and neither it nor any later message of the
// session ever ran (5 x no-lost-user-message, 6 x every-inbound-answered); the plan is frozen.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { notes, withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:1';

describe('a /clear after a heartbeat row the gateway holds (chaos seed 161, frozen)', () => {
  it('runs before the held row is released, and the session goes on', async () => {
    await withFrozenPlan(sql, 'clear-after-a-held-heartbeat-row', (result) => {
      const failed = notes(result, 'heartbeat-run-failed').filter((note) => note.fields.session === session);
      expect(failed.length).toBeGreaterThan(0);
      const clearTurn = notes(result, 'turn-start').find((note) => note.fields.session === session && note.fields.kind === 'command');
      expect(clearTurn).toBeDefined();
      const released = notes(result, 'heartbeat-run-released').filter((note) => note.fields.session === session);
      expect(released.length).toBeGreaterThan(0);
      expect(clearTurn?.timeMs).toBeLessThan(released[0]?.timeMs ?? 0);
      expect(result.violations).toEqual([]);
    });
  });
});

// The host's sweep kills a runner whose claim went stale, then resets the claimed rows (tries and backoff, in
// inbound.db) and deletes their claims (processing_ack, in outbound.db). The reset's write can stall for seconds
// (issue 48 item 4), and the restarted runner may claim the row again meanwhile; deleting every processing claim then
// took the new one too, and the new turn, hung on a poison message, held no claim the sweep could find stale, so it
// was never killed and the message waited until the faults ended. The sweep deletes only the claims it judged (each
// by its row and the time it was made). Found by a chaos campaign with every run send-heavy (seed 12, run 1320:
// answered-in-time, m10 answered 67 min late); its plan is frozen.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();
const row = 'in:d10';

describe("the sweep's claim reset", () => {
  it('leaves a claim the restarted runner made while the reset was stalled', async () => {
    await withFrozenPlan(sql, 'poison-message-reclaimed-during-a-stalled-claim-reset', (result) => {
      expect(result.violations).toEqual([]);
      const events = result.sim.trace.events;
      const of = (kind: string) => events.filter((event) => event.kind === kind && (event.fields.message === row || event.fields.turn === row));
      // The shape: a sweep kill over the row, the runner's turn on it starting again before the reset was noted.
      const kills = of('model.sweep-kill');
      const resets = of('model.claim-reset');
      const starts = of('model.turn-start');
      const raced = kills.find((kill) => {
        const reset = resets.find((candidate) => candidate.index > kill.index);
        return reset !== undefined && starts.some((start) => start.index > kill.index && start.index < reset.index);
      });
      expect(raced).toBeDefined();
      // The new turn's claim survived: the sweep found it stale and killed the turn again, and the row was given up
      // (claimTriesMax) and answered with the error reply, about a minute later.
      const later = kills.find((kill) => kill.index > (raced?.index ?? Infinity));
      expect(later).toBeDefined();
      expect(of('model.claim-failed').length).toBe(1);
      const error = result.ledger.shown.find((fact) => fact.text.startsWith('Sorry') && fact.atMs > (later?.timeMs ?? Infinity));
      expect((error?.atMs ?? Infinity) - (raced?.timeMs ?? 0)).toBeLessThan(3 * 60_000);
    });
  });
});

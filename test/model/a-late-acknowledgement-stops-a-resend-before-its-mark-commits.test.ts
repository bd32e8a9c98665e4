// On a platform that ignores idempotency keys, the gateway sends a row again only when it cannot know the first send
// landed. An acknowledgement that comes after its 5 s wait timed out still marks the row delivered; until that write
// commits, the gateway remembers the key, so a poller pass in between does not send the row again (chaos campaign
// `fuzz --scenario chaos --runs 2000 --seed 7` found the fast poller resending a row 2 ms after its late
// acknowledgement: no-duplicate-visible-reply). The shape needs the campaign's plan, so its shrunk plan is
// replayed and the shape checked first.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.1266714317.0-17-4-4-3-8-8-9-22-10-11-10-11-11-11-12-10-10-10-10-15-10-10-11-13-13.0_1_0-4f551d.0a039938 (chaos before it offered an action on the world); its plan is frozen.
const plan = 'late-acknowledgement-stops-resend';
const key = 'in:d10:result:b1eb359b';

describe('a late acknowledgement', () => {
  it('keeps the row from being sent again while its delivered mark is written', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const events = result.sim.trace.events;
      // The shape: the row's send and the platform's showing of it, its acknowledgement back more than 5 s after the
      // send, and a poller pass over the session right after it.
      const attempt = events.find((event) => event.kind === 'model.deliver-attempt' && event.fields.key === key);
      expect(attempt).toBeDefined();
      const acks = events.filter((event) => event.kind === 'net.deliver' && event.fields.from === 'platform' && event.fields.to === 'gateway' && event.timeMs > (attempt?.timeMs ?? 0) + 5_000);
      expect(acks.length).toBeGreaterThan(0);
      // Sent once, shown once, and marked delivered.
      expect(events.filter((event) => event.kind === 'model.deliver-attempt' && event.fields.key === key)).toHaveLength(1);
      expect(result.ledger.shown.filter((fact) => fact.text === 'answer 8608 [a01f89146]')).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });
});

// On a platform that ignores idempotency keys, the gateway sends a row again only when it cannot know an earlier send
// landed. A poller picks its rows, then bumps each row's attempt count before the send; that write can stall for
// seconds (issue 48 item 4). An acknowledgement that arrives meanwhile (here of the network's replay of the row's
// first send, which a power loss had left unmarked) says the platform has the row, so the poller must not send it
// once its bump lands. Found by a chaos campaign with every run send-heavy (seed 9, run 1208: the user saw the reply a
// third time, no-duplicate-visible-reply); its plan is frozen.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:2';
const key = 'in:d5:result:9e107f74';
const outboundDb = '/data/sessions/agent%3Amain%3Achat%3A2/outbound.db';

describe('a late acknowledgement during a stalled attempt write', () => {
  it('keeps the poller from sending the row again once the write lands', async () => {
    await withFrozenPlan(sql, 'late-ack-during-a-stalled-attempt-write', (result) => {
      const events = result.sim.trace.events;
      // The shape: the gateway's write to the session's outbound.db stalls; while it does, the network replays the
      // row's first send, the platform shows it and acknowledges it to the restarted gateway.
      const stall = events.find((event) => event.kind === 'fault' && event.fields.kind === 'write-stall' && event.fields.path === outboundDb && event.fields.process === 'gateway');
      const stallEnd = events.find((event) => event.kind === 'sql.stall-end' && event.fields.path === outboundDb && event.fields.stall === stall?.fields.stall);
      expect(stall).toBeDefined();
      expect(stallEnd?.fields.landed).toBe(true);
      const replay = events.find((event) => event.kind === 'net.duplicate' && event.fields.from === 'gateway' && event.fields.to === 'platform' && event.index > (stall?.index ?? Infinity) && event.index < (stallEnd?.index ?? -1));
      expect(replay).toBeDefined();
      // The row was sent once by the gateway; the user saw it twice (its send, the network's replay), not three times.
      expect(events.filter((event) => event.kind === 'model.deliver-attempt' && event.fields.key === key)).toHaveLength(1);
      expect(result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text === 'dentist at 9:00 [e0ffc5270]')).toHaveLength(2);
      expect(result.violations).toEqual([]);
    });
  });
});

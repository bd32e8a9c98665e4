// A send's answer belongs to that send (src/delivery.ts, issue 48): the gateway names each send of a part
// (`OutboundSend.attempt`) and the platform's refusal names the send it refuses, as an HTTP response belongs to its
// request. Found by a fixed-model chaos campaign drawing the platform (seed 24, run 1803, frozen as
// `a-copy-of-an-old-refusal-while-the-next-send-waits`): a part refused by flood control (retry after 13 s) was sent
// again; while that send waited for its answer, the network delivered a copy of the old refusal, the gateway took it
// for the new send's answer and, 13 s later, sent the part a third time although the platform had taken the second
// (one-send-in-flight: sent again after its acknowledgement had reached the gateway). Now the old refusal is ignored.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

describe('a copy of an old refusal', () => {
  it('is not taken for the answer to a later send of the same part', async () => {
    await withFrozenPlan(sql, 'a-copy-of-an-old-refusal-while-the-next-send-waits', (result) => {
      const events = result.sim.trace.events;
      const refusals = new Set(events.filter((event) => event.kind === 'net.send' && event.fields.kind === 'send.refused').map((event) => event.fields.id));
      // The shape: the network delivers a copy of a refusal after a later send of its part left.
      const copy = events.find((event) => event.kind === 'net.duplicate' && refusals.has(event.fields.id));
      expect(copy).toBeDefined();
      const copyAt = copy?.timeMs ?? 0;
      // The gateway heeds no refusal at the copy's instant, and sends no part twice while its answer is known.
      expect(events.filter((event) => event.kind === 'model.send-refused' && event.timeMs === copyAt)).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });
});

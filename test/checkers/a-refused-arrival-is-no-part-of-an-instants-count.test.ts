// The checkers pair the platform's attempts and showings with the sends that arrived there by count, per instant
// (in-flight.ts `attempts`, at-least-once.ts `carriers`); when the counts differ the pairing is unknown and no send of
// the instant can be excused as a resend the sender could not avoid. A send the platform refused (issue 48) arrives,
// but is no attempt and shows nothing: it is left out of the count (`refusedArrivals`, read from the world's
// `send-refused` fault, which the platform records as it answers). Found by a fixed-model chaos campaign (seed 25, run
// 1500, frozen as `interim-update-shown-again-seed-25`): the slow poller's resend of a row after its acknowledgement
// was lost arrived in the millisecond another session's send was refused by flood control; on a key-less platform the
// user saw the row again, and the resend, with no carrier, was called a duplicate (no-duplicate-visible-reply).
// Without the refusal's fault event the same run is judged a duplicate again.
import { describe, expect, it } from 'vitest';
import { refusedArrivals } from '../../sim/checkers/in-flight.ts';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

describe('a send the platform refused', () => {
  it('is no part of the instant it arrived in, so a resend beside it is still excused', async () => {
    await withFrozenPlan(sql, 'interim-update-shown-again-seed-25', (result) => {
      expect(result.violations).toEqual([]);
      // The shape: a refused arrival and a taken one in the same millisecond.
      const events = result.sim.trace.events;
      const refused = [...refusedArrivals(events)];
      expect(refused.some((step) => events.some((other, j) => j !== step && other.kind === 'net.deliver' && other.fields.to === 'platform' && other.timeMs === events[step]?.timeMs))).toBe(true);
    });
  });

  it('is counted as an arrival without its fault event, and the resend is called a duplicate again', async () => {
    await withFrozenPlan(sql, 'interim-update-shown-again-seed-25', (result) => {
      const againOf = (withFaults: boolean) => {
        const o = observationsOf(result, session, (seen) => (withFaults ? seen : { ...seen, events: seen.events.filter((event) => !(event.kind === 'fault' && event.fields.kind === 'send-refused')) }));
        return (attributeAll(o).get(session)?.unexplained ?? []).filter((entry) => entry.reason === 'shown-again').map((entry) => entry.shown.text);
      };
      expect(againOf(true)).toEqual([]);
      expect(againOf(false)).toContain('interim update');
    });
  });
});

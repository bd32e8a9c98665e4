// Attribution on a key-less platform (sim/checkers/attribution.ts, exception 1): a showing that may be a repeat does
// not take a slot that a later showing of its text, one that is no repeat, would then lack. The slots counted for the
// later showing are those state.db shows some sign of (a carrier, a result or a final row): a slot with none would
// leave that showing a row-less one. Send-heavy chaos seed 1, run 7,899: a power loss struck as the third occurrence of
// task t0 sent "on it - looking at your calendar"; the restarted gateway resent an older occurrence's result row of that
// text, and the link replayed it; both were possible repeats and took the third occurrence's slot, counting on the
// first occurrence's slot of the same phrase for the third occurrence's own showing. That occurrence had given up and
// its call's carrier was lost in an earlier power loss, so the showing went to a slot with no row
// (one-assistant-row-per-visible-reply).
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:1';
const stock = 'on it - looking at your calendar';

describe('a possible repeat and the slot a later showing needs', () => {
  it('is taken for a repeat rather than leave the later showing only a slot with no row', async () => {
    await withFrozenPlan(sql, 'task-tool-message-without-its-row-send-heavy', (result) => {
      expect(result.violations).toEqual([]);
      const o = observationsOf(result, session);
      // The first occurrence's call of the phrase has no carrier row; the third occurrence's has.
      const carriers = new Set(o.durable.rows.flatMap((row) => row.toolCallIds));
      expect(carriers.has('toolu_4b4f8e95_0')).toBe(false);
      expect(carriers.has('toolu_d4c119d6_0')).toBe(true);
      const attribution = attributeAll(o).get(session);
      expect(attribution?.unexplained).toEqual([]);
      const shown = result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text === stock && fact.atMs > 3_770_000);
      // The resend after the power loss and the link's replay of it, then the third occurrence's own showing.
      expect(shown.map((fact) => fact.atMs)).toEqual([3_776_300, 3_796_269, 3_840_749]);
      expect(shown.map((fact) => attribution?.slotOf.get(fact)?.toolCalls.map((call) => call.id) ?? null)).toEqual([null, null, ['toolu_d4c119d6_0']]);
    });
  });
});

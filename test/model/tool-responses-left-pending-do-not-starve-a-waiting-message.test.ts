// Rows left pending by design (issue 48 item 6, src/late-responses.ts, src/claims.ts fetchBatch). Tool responses the
// host writes after their tool gave up stay pending in inbound.db for good, and no poll takes them. The fixed poll
// drops them before it takes the newest 10 due rows (`filter-first`); nanoclaw at 0683c6ec5 takes the newest 10 in SQL
// and drops them after (`limit-first`), so ten of them written above a waiting message hide it from every later poll:
// it is never answered, and every-inbound-answered says so.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { defaultKnobs, defaultTimers, type PollOrder } from '../../src/index.ts';
import { answersTo, delayRequestsFor, handPlan, invariants, notes, user, visible, withRun } from './support.ts';

const sql = await loadSqlJs();

/**
 * m0 at 1 s, its answer 10 s late; m1 at 5 s waits behind m0's turn; at 6 s the host writes `count` late tool
 * responses (seq 3 and up, above m1's 2).
 */
function plan(count: number, pollOrder?: PollOrder): Plan {
  return { ...handPlan([user(1_000, 'first'), user(5_000, 'second')]), lateResponses: [{ session: 0, atMs: 6_000, count }], ...(pollOrder === undefined ? {} : { pollOrder }) };
}

describe('tool responses left pending do not starve a waiting message', () => {
  it('the fixed poll order is filter-first', () => {
    expect(defaultKnobs.pollOrder).toBe('filter-first');
    expect(defaultKnobs.lateResponses).toEqual([]);
  });

  it('filter-first: the message behind ten skipped rows is fetched and answered, noted as beyond a limit-first window', async () => {
    await withRun(sql, { bugs: [], plan: plan(10), prepare: delayRequestsFor(0, 10_000) }, (result) => {
      expect(notes(result, 'late-responses').map((note) => note.fields.inserted)).toEqual([10]);
      expect(answersTo(result, 1)).toHaveLength(1);
      const skipped = notes(result, 'poll-skipped');
      expect(skipped).toHaveLength(1);
      expect(skipped[0]?.fields).toMatchObject({ turn: 'in:d1', skipped: 10, beyondWindow: true });
      const counted = (row: 'poll-skipped-rows' | 'poll-window-filled') => Object.values(result.coverage[row]).reduce((sum, count) => sum + count, 0);
      expect([counted('poll-skipped-rows'), counted('poll-window-filled')]).toEqual([1, 1]);
      expect(visible(result)).toHaveLength(2);
      expect(result.violations).toEqual([]);
    });
  });

  it('limit-first (nanoclaw as released): ten skipped rows fill the window and the message is never fetched', async () => {
    await withRun(sql, { bugs: [], plan: plan(10, 'limit-first'), prepare: delayRequestsFor(0, 10_000) }, (result) => {
      expect(answersTo(result, 0)).toHaveLength(1);
      expect(answersTo(result, 1)).toHaveLength(0);
      expect(invariants(result)).toContain('every-inbound-answered');
    });
  });

  it('limit-first with nine skipped rows: the window still holds the message, and it is answered', async () => {
    await withRun(sql, { bugs: [], plan: plan(9, 'limit-first'), prepare: delayRequestsFor(0, 10_000) }, (result) => {
      expect(answersTo(result, 1)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('limit-first with acknowledged rows only: ten rows of a finished batch, unsynced, hide the two older messages until the sweep syncs them', async () => {
    // m0 slow (20 s); m1-m12 arrive meanwhile; the second batch is m3-m12, and m1 and m2 wait for the batch after.
    const workload = Array.from({ length: 13 }, (_, index) => user(index === 0 ? 1_000 : 5_000 + index * 1_000, `question ${index}`));
    const started = async (pollOrder?: PollOrder) => {
      let atMs: number | undefined;
      let later: number | undefined;
      await withRun(sql, { bugs: [], plan: { ...handPlan(workload), ...(pollOrder === undefined ? {} : { pollOrder }) }, prepare: delayRequestsFor(0, 20_000, true) }, (result) => {
        const starts = notes(result, 'turn-start');
        later = starts.find((note) => note.fields.turn === 'in:d3')?.timeMs;
        atMs = starts.find((note) => note.fields.turn === 'in:d1')?.timeMs;
        expect(result.violations).toEqual([]);
      });
      return { second: later ?? Number.NaN, third: atMs ?? Number.NaN };
    };
    const fixed = await started();
    const released = await started('limit-first');
    expect(fixed.third - fixed.second).toBeLessThan(5_000);
    expect(released.third - released.second).toBeGreaterThan(5_000);
    expect(released.third - released.second).toBeLessThanOrEqual(defaultTimers.sweepEveryMs + 5_000);
  });
});

// An error reply ends its turn, so it is not the reply of a subject whose turn went on after it was shown
// (sim/checkers/attribution.ts, `wentOnAfter`): state.db got a row of that subject's last answer later (its final row,
// or a tool row of one of its calls). Found by a fixed-model chaos campaign (seed 26, run 834, frozen as
// `error-reply-taken-by-a-command-of-a-heartbeat-run`; it failed on the code before this stop too): two chat turns gave
// up after LLM outages and wrote their error replies; the gateway's heartbeat run for command run-0 had its answer at
// 9 min 18 s and made its tool calls until 9 min 50 s. The first error reply, shown at 9 min 23 s, went to run-0 (the
// earliest arrival among subjects whose last answer was not shown yet), and run-0's booking at 9 min 32 s was judged an
// action after its failure notice (effect-at-most-once). Now the error replies go to the messages whose turns gave up.
// Without the rows written after the showing, the same reading gives the reply to run-0 again.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

describe('an error reply', () => {
  it('is not taken by a command whose heartbeat turn was still making its tool calls', async () => {
    await withFrozenPlan(sql, 'error-reply-taken-by-a-command-of-a-heartbeat-run', (result) => {
      expect(result.violations).toEqual([]);
      const attribution = attributeAll(observationsOf(result, session)).get(session);
      expect(attribution?.cannedFor.has('run:run-0')).toBe(false);
      expect([...(attribution?.cannedFor.keys() ?? [])].sort()).toEqual(['[m1]', '[m2]', '[m3]']);
    });
  });

  it('goes to that command when state.db shows its turn did not go on', async () => {
    await withFrozenPlan(sql, 'error-reply-taken-by-a-command-of-a-heartbeat-run', (result) => {
      const firstShownMs = result.ledger.shown.find((fact) => fact.text.startsWith('Sorry') && fact.atMs > 500_000)?.atMs ?? 0;
      const o = observationsOf(result, session, (seen) => ({ ...seen, durable: { ...seen.durable, rows: seen.durable.rows.filter((row) => row.timestamp <= firstShownMs) } }));
      expect(attributeAll(o).get(session)?.cannedFor.has('run:run-0')).toBe(true);
    });
  });
});

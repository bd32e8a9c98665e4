// The fault-coverage report counts the faults the world's LLM API injects (transient errors and slow responses),
// which it marks on the trace itself: the model's own notes carry no latency or error, as a real client's would not.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { handPlan, user, withRun } from '../model/support.ts';

const sql = await loadSqlJs();

const total = (counts: Record<string, number>): number => Object.values(counts).reduce((sum, count) => sum + count, 0);

describe('fault coverage of the LLM API', () => {
  it('counts transient errors and slow responses while the fault phase lasts, at the model-call phase', async () => {
    const plan = handPlan([user(1_000, 'hello'), user(30_000, 'again')]);
    const faulty = { ...plan, faultKnobs: { ...plan.faultKnobs, modelErrorPer1000: 500, modelSlowPer1000: 500 } };
    await withRun(sql, { bugs: [], plan: faulty }, (result) => {
      const errors = result.coverage['model-error'];
      const slow = result.coverage['model-slow'];
      expect(total(errors) + total(slow)).toBeGreaterThan(0);
      expect(total(errors) + total(slow)).toBe(errors['model-call'] + slow['model-call']);
      const marked = result.sim.trace.events.filter((event) => event.kind === 'fault' && (event.fields.kind === 'model-error' || event.fields.kind === 'model-slow'));
      expect(marked).toHaveLength(total(errors) + total(slow));
    });
  });

  it('counts none without those faults', async () => {
    await withRun(sql, { bugs: [], plan: handPlan([user(1_000, 'hello')]) }, (result) => {
      expect(total(result.coverage['model-error']) + total(result.coverage['model-slow'])).toBe(0);
    });
  });
});

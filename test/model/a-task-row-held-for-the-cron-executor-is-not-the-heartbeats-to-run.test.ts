// The gateway's own heartbeat run (heartbeat-run.ts) and the cron executor (cron-executor.ts) both hold rows of
// messages_in out of the runner's reach (process_after = heldRowDueMs). At a gateway start the heartbeat run finishes
// a held row its last incarnation left; it must take only its own (heartbeat prompts, kind 'system'). Found by the
// first chaos campaign that drew the cron executor (seed 1 run 23, frozen as
// cron-attempt-request-judged-against-a-later-durable-answer): the heartbeat took a task occurrence held for the
// executor and asked the LLM with it at 257 ms, 9.6 s before it was due, so the request carried a task that had not
// yet fallen due (context-holds-durable-turns).
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

describe('a task row held for the cron executor', () => {
  it('is run by the executor once due, not by the heartbeat at a gateway start', async () => {
    await withFrozenPlan(sql, 'cron-attempt-request-judged-against-a-later-durable-answer', (result) => {
      expect(result.violations).toEqual([]);
      const plan = result.spec.plan;
      expect(plan.cron).toBeDefined();
      expect(plan.heartbeatRun).toBeDefined();
      // Every request carrying a task occurrence is made at or after its due time.
      const dueOf = new Map((plan.tasks ?? []).map((task, index) => [`[t${index}]`, task.firstDueMs]));
      const taskRequests = result.ledger.requests.filter((request) => [...dueOf.keys()].some((marker) => request.prompt.includes(marker)));
      expect(taskRequests.length).toBeGreaterThan(0);
      for (const request of taskRequests) {
        const marker = [...dueOf.keys()].find((candidate) => request.prompt.includes(candidate)) as string;
        expect(request.atMs, `${marker} asked at ${request.atMs} ms`).toBeGreaterThanOrEqual(dueOf.get(marker) as number);
      }
      // The executor made them: its attempts are in the trace.
      expect(result.sim.trace.events.some((event) => event.kind === 'model.cron-attempt')).toBe(true);
    });
  });
});

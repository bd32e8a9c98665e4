// Work that overlaps (issue 48 item 5, src/cron-executor.ts, Plan.cron). The gateway's cron executor runs a scheduled
// task's occurrence outside the chat lane: each attempt waits timeoutMs for the LLM, then counts as failed, and a
// retry starts after the backoff while the timed-out request still runs (OpenClaw 2026.7.1's cron races the job's core
// against its timeout and retries a timed-out run without asking whether the core still runs: openclaw/openclaw#137215).
// The fixed executor lets the first answer, from whichever attempt, release the occurrence to the runner and withdraws
// the requests still out; the sabotage `retry-blind` lets each attempt's answer be a run of its own, so the task's
// output lands twice: no-double-ingestion (the occurrence in two user rows) and no-duplicate-visible-reply catch it.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { BuiltModel } from '../../src/index.ts';
import { defaultKnobs } from '../../src/index.ts';
import { LlmAbortedError } from '../../src/ports.ts';
import type { World } from '../../sim/world/index.ts';
import type { Plan, TaskPlan } from '../../sim/run/plan.ts';
import { overlappingWork } from '../../scenarios/overlapping-work.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { handPlan, invariants, notes, stateRows, visible, withRun } from './support.ts';

const sql = await loadSqlJs();

/** One digest, once, due at 10 s; the executor times an attempt out after 5 s and retries 2 s later, 3 attempts. */
const digest: TaskPlan = { session: 0, prompt: 'Post the digest', firstDueMs: 10_000, everyMs: null, count: 1 };
const withCron = (mode: 'fixed' | 'retry-blind', attemptsMax = 3): Plan => ({
  ...handPlan([]),
  tasks: [digest],
  cron: { mode, timeoutMs: 5_000, backoffMs: [2_000], attemptsMax },
});

/**
 * A `prepare` hook: the nth request (0-based) whose prompt carries the task's marker waits `delaysMs[n]` before the API
 * answers it (a withdrawn request fails at once when the wait is over; the API's own latency follows).
 */
function slowTaskRequests(delaysMs: readonly number[]): (sim: Simulation, model: BuiltModel, world: World) => void {
  return (_sim, _model, world) => {
    const api = world.modelApi;
    const complete = api.complete.bind(api);
    let seen = 0;
    api.complete = async (request, timers, abort) => {
      if (request.prompt.includes('[t0]')) {
        const delayMs = delaysMs[seen++] ?? 0;
        if (delayMs > 0) await timers.sleep(delayMs);
        if (abort?.aborted === true) throw new LlmAbortedError();
      }
      return complete(request, timers, abort);
    };
  };
}

const digestRows = (result: Parameters<typeof invariants>[0]): number => stateRows(result).filter((row) => row.role === 'user' && row.content.includes('[t0]')).length;
const total = (result: Parameters<typeof invariants>[0], row: 'cron-retry-overlapped' | 'cron-late-completion' | 'cron-answer-reconciled' | 'cron-handed-over'): number =>
  Object.values(result.coverage[row]).reduce((sum, count) => sum + count, 0);

describe('a cron retry that overlaps the attempt it replaces lands the task output once', () => {
  it('is off by default: the chat lane runs task rows', () => {
    expect(defaultKnobs.cron).toBeNull();
  });

  it('an attempt answered in time releases the occurrence; the runner uses its answer and asks nothing more', async () => {
    await withRun(sql, { bugs: [], plan: withCron('fixed') }, (result) => {
      expect(notes(result, 'cron-attempt')).toHaveLength(1);
      expect(notes(result, 'cron-released').map((note) => note.fields.late)).toEqual([false]);
      expect(notes(result, 'heartbeat-answer-used')).toHaveLength(1);
      expect(result.ledger.requests.filter((request) => request.prompt.includes('[t0]'))).toHaveLength(1);
      expect(digestRows(result)).toBe(1);
      expect(visible(result)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  // Attempt 1 (at 10 s) takes 20 s; it times out at 15 s, attempt 2 starts at 17 s beside it and answers first.
  const retryFirst = slowTaskRequests([20_000]);

  it('fixed: the retry answers first, the original still running is withdrawn, and the output lands once', async () => {
    await withRun(sql, { bugs: [], plan: withCron('fixed'), prepare: retryFirst }, (result) => {
      expect(notes(result, 'cron-attempt').map((note) => [note.fields.attempt, note.fields.overlapping])).toEqual([
        [1, 0],
        [2, 1],
      ]);
      expect(notes(result, 'cron-released').map((note) => note.fields.attempt)).toEqual([2]);
      expect(notes(result, 'cron-withdrawn').map((note) => note.fields.attempts)).toEqual(['1']);
      expect(total(result, 'cron-retry-overlapped')).toBe(1);
      expect(total(result, 'cron-answer-reconciled')).toBe(1);
      expect(digestRows(result)).toBe(1);
      expect(visible(result)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('retry-blind: the original finishes after its retry was answered, runs again, and the user sees the output twice', async () => {
    await withRun(sql, { bugs: [], plan: withCron('retry-blind'), prepare: retryFirst }, (result) => {
      expect(notes(result, 'cron-answer-run-again').map((note) => [note.fields.attempt, note.fields.late])).toEqual([[1, true]]);
      expect(digestRows(result)).toBe(2);
      expect(visible(result)).toHaveLength(2);
      expect(invariants(result)).toEqual(expect.arrayContaining(['no-double-ingestion', 'no-duplicate-visible-reply']));
    });
  });

  // Attempt 1 takes 9 s: it times out at 15 s, attempt 2 starts at 17 s and takes 20 s; attempt 1 answers at ~19 s.
  const originalFirst = slowTaskRequests([9_000, 20_000]);

  it('fixed: the caller was told the original failed, its work came later and is the output; the retry is withdrawn', async () => {
    await withRun(sql, { bugs: [], plan: withCron('fixed'), prepare: originalFirst }, (result) => {
      expect(notes(result, 'cron-timeout').map((note) => note.fields.attempt)).toEqual([1]);
      expect(notes(result, 'cron-released').map((note) => [note.fields.attempt, note.fields.late])).toEqual([[1, true]]);
      expect(notes(result, 'cron-withdrawn').map((note) => note.fields.attempts)).toEqual(['2']);
      expect(total(result, 'cron-late-completion')).toBe(1);
      expect(digestRows(result)).toBe(1);
      expect(visible(result)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('retry-blind: the retry, still running when the late original released the occurrence, lands the output again', async () => {
    await withRun(sql, { bugs: [], plan: withCron('retry-blind'), prepare: originalFirst }, (result) => {
      expect(notes(result, 'cron-answer-run-again').map((note) => note.fields.attempt)).toEqual([2]);
      expect(visible(result)).toHaveLength(2);
      expect(invariants(result)).toEqual(expect.arrayContaining(['no-double-ingestion', 'no-duplicate-visible-reply']));
    });
  });

  it('fixed: every attempt timed out, the occurrence goes to the chat lane and its late answers are withdrawn', async () => {
    await withRun(sql, { bugs: [], plan: withCron('fixed', 2), prepare: slowTaskRequests([30_000, 30_000]) }, (result) => {
      expect(notes(result, 'cron-handed-over').map((note) => note.fields.attempts)).toEqual([2]);
      expect(notes(result, 'cron-withdrawn').map((note) => note.fields.attempts)).toEqual(['1,2']);
      expect(total(result, 'cron-handed-over')).toBe(1);
      expect(digestRows(result)).toBe(1);
      expect(visible(result)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it("the scenario's plans: the fixed executor holds every invariant, retry-blind is caught", async () => {
    const plans = fc.sample(overlappingWork.plan, { seed: 48, numRuns: 12 });
    let caught = 0;
    for (const [index, plan] of plans.entries()) {
      const fixed = await runSpec({ scenario: 'overlapping-work', bugs: [], seed: 500 + index, plan }, { sql });
      fixed.sim.dispose();
      expect(fixed.violations.map((violation) => violation.message)).toEqual([]);
      const blind = await runSpec({ scenario: 'overlapping-work', bugs: [], seed: 500 + index, plan: { ...plan, cron: { ...(plan.cron as NonNullable<Plan['cron']>), mode: 'retry-blind' } } }, { sql });
      blind.sim.dispose();
      const found = blind.violations.map((violation) => violation.invariant);
      if (found.some((name) => ['no-double-ingestion', 'no-duplicate-visible-reply', 'effect-at-most-once'].includes(name))) caught++;
    }
    expect(caught).toBeGreaterThan(0);
  }, 300_000);
});

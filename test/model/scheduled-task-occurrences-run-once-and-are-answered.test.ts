// Scheduled tasks (issue 24 item 2, plan.tasks): nanoclaw v2 stores a task as a due `messages_in` row of kind `task`;
// the runner's poll loop runs each due occurrence as a turn, and the host's sweep fans out a recurring task's next
// occurrence after syncing the completion (src/modules/scheduling/recurrence.ts handleRecurrence). The world's ledger
// records every occurrence the schedule makes due, a subject owed one turn and one reply like a message the user
// typed, so the existing invariants judge it from the ledger and the durable transcripts alone. The sabotage is
// nanoclaw's fanout as written (`two-step`: the next occurrence inserted under a fresh id, then the completed row's
// recurrence cleared by a second statement): a gateway restart between the two makes the next sweep clone the
// occurrence again, and no-double-ingestion catches the second run.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { Plan, TaskPlan } from '../../sim/run/plan.ts';
import { handPlan, invariants, notes, stateRows, user, visible, withRun } from './support.ts';

const sql = await loadSqlJs();

afterEach(() => vi.restoreAllMocks());

/** A digest every minute from 10 s, three times, beside one chat message; faults stop at 8 min. */
const digest: TaskPlan = { session: 0, prompt: 'Post the digest', firstDueMs: 10_000, everyMs: 60_000, count: 3 };
const withTasks = (tasks: TaskPlan[], recurrence: Plan['recurrence'] = 'atomic'): Plan => ({ ...handPlan([user(30_000, 'can you check calendar?')]), faultPhaseMs: 480_000, tasks, recurrence });

const total = (row: Record<string, number>): number => Object.values(row).reduce((sum, count) => sum + count, 0);
const userRowsOfTask = (result: Parameters<typeof invariants>[0]): string[] => stateRows(result).filter((row) => row.role === 'user' && row.content.includes('[t0]')).map((row) => row.content);
/** For each of the digest's three occurrences, how many user rows of state.db carry it (by its `<task time=…>` line). */
const rowsPerOccurrence = (result: Parameters<typeof invariants>[0]): number[] =>
  ['00:00:10', '00:01:10', '00:02:10'].map((time) => userRowsOfTask(result).filter((content) => content.includes(`<task time="2026-01-01T${time}.000Z">`)).length);

/** A `prepare` hook: kill `process` (restarted after 1 s) when the first trace event `kind` is recorded (optionally with a delay). */
function killOn(kind: string, process: 'gateway' | 'runner', delayMs = 0): (sim: Simulation) => void {
  return (sim) => {
    let fired = false;
    sim.trace.onEvent((event) => {
      if (fired || event.kind !== kind) return;
      fired = true;
      sim.scheduler.schedule(delayMs, () => {
        if (sim.kill(process)) sim.restart(process, 1_000);
      });
    });
  };
}

describe('scheduled tasks', () => {
  it('run each occurrence as a turn at its due time, answered once, the next fanned out by the sweep', async () => {
    await withRun(sql, { bugs: [], plan: withTasks([digest]) }, (result) => {
      const due = result.ledger.userMessages.filter((message) => message.task !== undefined).map((message) => message.task?.dueMs);
      expect(due).toEqual([10_000, 70_000, 130_000]);
      const runs = notes(result, 'task-run');
      expect(runs.map((note) => note.fields.occurrences)).toEqual(['task:t0@10000', 'task:t0@70000', 'task:t0@130000']);
      // The first at its due time; the others once the sweep (every 60 s) had fanned them out, late by under a sweep.
      expect(runs[0]?.timeMs).toBeLessThan(10_100);
      runs.forEach((note, index) => expect(note.timeMs - (due[index] ?? 0)).toBeLessThan(60_000));
      expect(userRowsOfTask(result)).toEqual([
        '<task time="2026-01-01T00:00:10.000Z">Instructions:\nPost the digest [t0]</task>',
        '<task time="2026-01-01T00:01:10.000Z">Instructions:\nPost the digest [t0]</task>',
        '<task time="2026-01-01T00:02:10.000Z">Instructions:\nPost the digest [t0]</task>',
      ]);
      expect(visible(result)).toHaveLength(4);
      expect(result.violations).toEqual([]);
    });
  });

  it('run a one-shot task once and fan out nothing', async () => {
    await withRun(sql, { bugs: [], plan: withTasks([{ ...digest, everyMs: null, count: 1 }]) }, (result) => {
      expect(notes(result, 'task-run')).toHaveLength(1);
      expect(notes(result, 'task-recurrence')).toEqual([]);
      expect(userRowsOfTask(result)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('run an occurrence whose runner was SIGKILLed mid-turn again, once in the transcripts and once on screen', async () => {
    await withRun(sql, { bugs: [], plan: withTasks([digest]), prepare: killOn('model.model-call', 'runner', 5) }, (result) => {
      const runs = notes(result, 'task-run').map((note) => note.fields.occurrences);
      expect(runs.slice(0, 2)).toEqual(['task:t0@10000', 'task:t0@10000']);
      expect(rowsPerOccurrence(result)).toEqual([1, 1, 1]);
      expect(total(result.coverage['task-kill'])).toBe(1);
      expect(total(result.coverage['task-repoll'])).toBe(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('let a stalled runner holding an occurrence be killed by the sweep, and the next runner take the same occurrence', async () => {
    const stall = (sim: Simulation): void => {
      let fired = false;
      sim.trace.onEvent((event) => {
        if (fired || event.kind !== 'model.model-call') return;
        fired = true;
        sim.scheduler.schedule(5, () => {
          sim.stop('runner');
          sim.scheduler.schedule(150_000, () => sim.cont('runner'));
        });
      });
    };
    await withRun(sql, { bugs: [], plan: withTasks([digest]), prepare: stall }, (result) => {
      expect(result.sim.trace.events.some((event) => event.kind === 'fault' && event.fields.kind === 'supervisor-kill' && event.fields.target === 'runner')).toBe(true);
      // The restarted runner's turn for m0 took the stalled turn's occurrence over (merged into its prompt).
      expect(notes(result, 'merge').map((note) => note.fields.merged)).toContain('task:t0@10000');
      expect(total(result.coverage['task-repoll'])).toBeGreaterThanOrEqual(1);
      expect(rowsPerOccurrence(result)).toEqual([1, 1, 1]);
      expect(result.violations).toEqual([]);
    });
  });

  it('survive a gateway restart between an occurrence run and the fanout of the next', async () => {
    await withRun(sql, { bugs: [], plan: withTasks([digest]), prepare: killOn('model.turn-completed', 'gateway') }, (result) => {
      expect(total(result.coverage['task-fanout-restart'])).toBe(1);
      expect(notes(result, 'task-run')).toHaveLength(3);
      expect(rowsPerOccurrence(result)).toEqual([1, 1, 1]);
      expect(result.violations).toEqual([]);
    });
  });

  it("catch nanoclaw's two-step fanout: a gateway restart between its insert and its clear runs an occurrence twice", async () => {
    // The kill lands as the host notes the fanout: after the fixed model's one transaction, between the sabotage's two statements.
    const plan = (recurrence: Plan['recurrence']): Plan => withTasks([digest], recurrence);
    await withRun(sql, { bugs: [], plan: plan('atomic'), prepare: killOn('model.task-recurrence', 'gateway') }, (result) => {
      expect(rowsPerOccurrence(result)).toEqual([1, 1, 1]);
      expect(result.violations).toEqual([]);
    });
    await withRun(sql, { bugs: [], plan: plan('two-step'), prepare: killOn('model.task-recurrence', 'gateway') }, (result) => {
      const second = '<task time="2026-01-01T00:01:10.000Z">Instructions:\nPost the digest [t0]</task>';
      expect(userRowsOfTask(result).filter((content) => content.includes(second))).toHaveLength(2);
      expect(invariants(result)).toContain('no-double-ingestion');
      const double = result.violations.find((violation) => violation.invariant === 'no-double-ingestion');
      expect(double?.message).toContain('the occurrence of task t0 due at 70000 ms is in 2 user rows of state.db');
    });
  });
});

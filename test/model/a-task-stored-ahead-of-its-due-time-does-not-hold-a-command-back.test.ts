// OpenClaw's heartbeat runner skips (`requests-in-flight`) while the session's lane has work queued or running, and
// the wake layer retries a second later. The model's gateway took every pending row with trigger=1 that the runner had
// not acknowledged for such work, and a scheduled task's occurrence is stored in messages_in when the gateway starts,
// long before it is due (nanoclaw's task rows). So a command's exec events waited, their wake retried every second,
// until the last occurrence stored ahead had run: a clean chaos run (seed 3, run 6143) answered a command that
// finished at 660 s only at 8,297 s, after two tasks due at 6,880 s and 7,970 s (`answered-in-time`). A scheduled job
// enters OpenClaw's lane when it is due, as nanoclaw's runner fetches a task row only once its process_after has
// passed; the fixed gateway counts an occurrence as the lane's work only from its due time.
import { describe, expect, it } from 'vitest';
import { triggerWaiting } from '../../src/claims.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { notes, withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.2091241147.0p0E21D30112C33843C447433oo3h4C3pC.0_1_0-a8dd6b.b48fbe07; its plan is frozen.
const plan = 'node-host-partition-command-answered-late';
const session = 'agent:main:chat:0';

describe('a scheduled task stored ahead of its due time and a command that finished before it', () => {
  it('lets the heartbeat take the command up once the lane is idle, not once the task has run', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const ofSession = (kind: string) => notes(result, kind).filter((note) => note.fields.session === session);
      // The shape: the command's completion was queued while every occurrence of the session's tasks was still ahead.
      const finished = ofSession('system-event').find((note) => note.fields.run === 'run-1' && note.fields.event === 'exec.finished' && note.fields.queued === true);
      expect(finished).toBeDefined();
      const finishedAtMs = finished?.timeMs ?? 0;
      const dues = ofSession('task-stored').map((note) => Number(note.fields.dueMs));
      expect(dues.length).toBeGreaterThan(0);
      const firstDueMs = Math.min(...dues);
      expect(firstDueMs).toBeGreaterThan(finishedAtMs);
      // The completion reaches a heartbeat row before any task was due: the lane held only the chat turn that was
      // running when it came (about 30 s of retries against a locked database), not the tasks stored ahead.
      const ingested = ofSession('exec-ingest').find((note) => String(note.fields.runs).split(',').includes('exec:run-1'));
      expect(ingested).toBeDefined();
      expect(ingested?.timeMs ?? Number.POSITIVE_INFINITY).toBeLessThan(firstDueMs);
      expect((ingested?.timeMs ?? Number.POSITIVE_INFINITY) - finishedAtMs).toBeLessThan(120_000);
      expect(result.violations).toEqual([]);
    });
  });

  it('counts an occurrence as the lane\'s work from its due time on, a message always', () => {
    const task = { id: 'task:t0@5000', kind: 'task', created_at: 5_000 };
    const message = { id: 'in:d0', kind: 'chat', created_at: 9_000 };
    const none = new Set<string>();
    // Stored ahead: not yet work; due (or backing off after a stuck claim, its due time passed): work.
    expect(triggerWaiting([task], none, 4_999)).toBe(false);
    expect(triggerWaiting([task], none, 5_000)).toBe(true);
    expect(triggerWaiting([task], none, 60_000)).toBe(true);
    // A message is work whatever its timestamp says, until the runner acknowledged it.
    expect(triggerWaiting([message], none, 0)).toBe(true);
    expect(triggerWaiting([task, message], new Set(['in:d0']), 4_999)).toBe(false);
    expect(triggerWaiting([task, message], new Set(['in:d0']), 5_000)).toBe(true);
  });
});

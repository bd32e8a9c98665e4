// Scheduled tasks, as nanoclaw v2 keeps them (qwibitai/nanoclaw at 0683c6ec5, src/modules/scheduling): a task is a
// `messages_in` row of kind `task` in its session's inbound.db, due at `process_after`, with a `recurrence` while more
// occurrences follow and a `series_id` shared by every occurrence of one task. The runner's poll loop takes a due task
// row like any due message (claims.ts fetchBatch: process_after has passed, no processing_ack) and runs it as a turn,
// so a task occurrence is claimed, retried, re-formed after a SIGKILL and answered as a message is. The host's sweep
// syncs a completed claim into messages_in (host-sweep.ts); then the recurrence fanout (nanoclaw handleRecurrence,
// run from the sweep) finds each completed row that still has a recurrence, inserts the series' next occurrence and
// clears the recurrence of the completed row, so the next sweep does not clone it again. The fixed host fans out an
// occurrence once it is due rather than once its run completed, so a series does not wait for a run stuck in retries.
//
// The model's departures, each stated in docs/MODEL.md: the recurrence is a fixed interval in ms (nanoclaw: a cron
// expression) and a series ends after its stated count (nanoclaw: until cancel_task); a missed slot is run late, not
// skipped (nanoclaw's cron next() skips what passed while the host was down), so the schedule alone says which
// occurrences are owed; an occurrence row's timestamp is its due time (nanoclaw: the insert time), and it is rendered
// as nanoclaw's formatter renders a task, `<task time="...">Instructions:\n<prompt></task>`.
//
// The fixed fanout inserts the next occurrence under an id derived from the series and the due time (INSERT OR IGNORE)
// and clears the recurrence in the same transaction: a SIGKILL or a busy database between the two cannot leave a
// completed row that is cloned again. nanoclaw's own fanout (`two-step`, a sabotage for tests) runs the insert (a
// fresh random id) and the clear as two statements and logs a failure: a restart or a busy error between them makes
// the next sweep insert the same occurrence a second time, which then runs twice.
import { assert, assertNonNegativeInteger } from './assert.ts';
import { ignoreBusy, isBusy, retryBusy } from './busy.ts';
import type { ModelConfig, ScheduledTask } from './config.ts';
import { isoAt } from './pi-format.ts';
import type { ProcessContext, SqlDatabase, SqlTransaction } from './ports.ts';
import type { SessionDbs } from './session-dbs.ts';
import { heldRowDueMs } from './heartbeat-run.ts';

/** A series never fans out more occurrences than this in one sweep (catch-up after a long outage is bounded). */
export const fanoutPerSweepMax = 100;

/** The due times of a task's occurrences, in order. */
export function taskDueTimes(task: ScheduledTask): number[] {
  assert(task.count >= 1, `task ${task.id} has at least one occurrence, not ${task.count}`);
  assert(task.everyMs === null ? task.count === 1 : task.everyMs > 0, `task ${task.id}: a one-shot task has one occurrence, a recurring one a positive interval`);
  return Array.from({ length: task.count }, (_, index) => task.firstDueMs + index * (task.everyMs ?? 0));
}

/** An occurrence as the runner's prompt shows it (nanoclaw formatTaskMessage; the time is the due time, in UTC). */
export function taskOccurrenceText(prompt: string, dueMs: number): string {
  assertNonNegativeInteger(dueMs, 'a task occurrence due time');
  return `<task time="${isoAt(dueMs)}">Instructions:\n${prompt}</task>`;
}

/** The fixed model's id of an occurrence row: the series and the due time (so a second insert is a no-op). */
export function occurrenceId(taskId: string, dueMs: number): string {
  return `task:${taskId}@${dueMs}`;
}

export class TaskScheduler {
  private readonly tasks: readonly ScheduledTask[];
  /** Occurrences are stored held for the gateway's cron executor (the knob `cron`, cron-executor.ts), not due for the runner. */
  private readonly held: boolean;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly config: ModelConfig,
    private readonly dbs: SessionDbs,
  ) {
    this.tasks = config.knobs.tasks;
    this.held = config.knobs.cron !== null;
    for (const task of this.tasks) assert(config.sessions.includes(task.sessionKey), `task ${task.id} belongs to an unknown session ${task.sessionKey}`);
  }

  /** For every session, the recurrence fanout (run by the sweep after its sync). */
  async fanoutAll(): Promise<void> {
    for (const sessionKey of this.config.sessions) await this.fanout(sessionKey);
  }

  /** Store every task's first occurrence (nanoclaw insertTask); idempotent, so each gateway start does it. */
  async seed(): Promise<void> {
    for (const task of this.tasks) {
      const inbound = await this.dbs.inboundDb(task.sessionKey);
      const dueMs = task.firstDueMs;
      const inserted = await retryBusy(this.ctx, () =>
        inbound.transaction((tx) => {
          // A series already stored (this is a restart) is left as it is.
          if (tx.query("SELECT id FROM messages_in WHERE series_id = ? AND kind = 'task' LIMIT 1", [task.id]).length > 0) return 0;
          return insertOccurrence(tx, task, occurrenceId(task.id, dueMs), dueMs, recurrenceAfter(task, dueMs), this.held);
        }),
      );
      if (inserted > 0) this.ctx.note('task-stored', { session: task.sessionKey, task: task.id, dueMs });
    }
  }

  /**
   * nanoclaw handleRecurrence: an occurrence with a recurrence gets its successor(s), and its recurrence is cleared;
   * nanoclaw takes completed occurrences, the fixed host every occurrence that is due.
   */
  async fanout(sessionKey: string): Promise<void> {
    if (!this.tasks.some((task) => task.sessionKey === sessionKey)) return;
    const inbound = await this.dbs.inboundDb(sessionKey);
    // nanoclaw clones a completed row only, so a series waits for its last run (retries, backoff) and then for a sweep;
    // the fixed host fans out once an occurrence is due, whatever its run's state (the session's lane still runs the
    // series in order): after an LLM outage the next occurrence was answered past the bench's bound (docs/MODEL.md).
    const whenDue = this.config.knobs.recurrence === 'two-step' ? "status = 'completed'" : 'created_at <= ?';
    const rows = await ignoreBusy(
      inbound.query(`SELECT id, series_id, created_at FROM messages_in WHERE kind = 'task' AND recurrence IS NOT NULL AND ${whenDue} ORDER BY seq`, this.config.knobs.recurrence === 'two-step' ? [] : [this.ctx.clock.nowMs()]),
    );
    for (const row of rows ?? []) {
      const task = this.tasks.find((candidate) => candidate.id === row.series_id);
      assert(task !== undefined, `task row ${String(row.id)} names an unknown series ${String(row.series_id)}`);
      const slots = nextSlots(task, Number(row.created_at), this.ctx.clock.nowMs());
      if (this.config.knobs.recurrence === 'two-step') await this.fanoutTwoStep(inbound, task, row.id as string, slots);
      else await this.fanoutAtomic(inbound, task, row.id as string, slots);
    }
  }

  private async fanoutAtomic(inbound: SqlDatabase, task: ScheduledTask, occurrenceRowId: string, slots: readonly number[]): Promise<void> {
    const inserted = await ignoreBusy(
      inbound.transaction((tx) => {
        let count = 0;
        for (const dueMs of slots) count += insertOccurrence(tx, task, occurrenceId(task.id, dueMs), dueMs, dueMs === slots.at(-1) ? recurrenceAfter(task, dueMs) : null, this.held);
        const cleared = tx.run('UPDATE messages_in SET recurrence = NULL WHERE id = ?', [occurrenceRowId]).changes;
        assert(cleared === 1, `the fanout clears the recurrence of ${occurrenceRowId}, one row, not ${cleared}`);
        return count;
      }),
    );
    // A busy database leaves both undone; the next sweep tries again.
    if (inserted === undefined) return;
    assert(inserted <= slots.length, `the fanout after ${occurrenceRowId} inserted ${inserted} rows for ${slots.length} slots`);
    this.ctx.note('task-recurrence', { session: task.sessionKey, task: task.id, after: occurrenceRowId, inserted, next: slots.join(',') });
  }

  /** nanoclaw's fanout as written (sabotage for tests): insert with a fresh id, then clear, two statements; errors logged. */
  private async fanoutTwoStep(inbound: SqlDatabase, task: ScheduledTask, occurrenceRowId: string, slots: readonly number[]): Promise<void> {
    try {
      for (const dueMs of slots) {
        const freshId = `task-${this.ctx.clock.nowMs()}-${this.ctx.random.int(0, 2_176_782_335).toString(36)}`;
        await inbound.transaction((tx) => insertOccurrence(tx, task, freshId, dueMs, dueMs === slots.at(-1) ? recurrenceAfter(task, dueMs) : null, this.held));
      }
      this.ctx.note('task-recurrence', { session: task.sessionKey, task: task.id, after: occurrenceRowId, inserted: slots.length, next: slots.join(',') });
      await inbound.run('UPDATE messages_in SET recurrence = NULL WHERE id = ?', [occurrenceRowId]);
    } catch (error) {
      if (!isBusy(error)) throw error;
      this.ctx.note('task-recurrence-failed', { session: task.sessionKey, task: task.id, after: occurrenceRowId });
    }
  }
}

function insertOccurrence(tx: SqlTransaction, task: ScheduledTask, id: string, dueMs: number, recurrence: number | null, held: boolean): number {
  assertNonNegativeInteger(dueMs, `the due time of ${id}`);
  const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_in')[0]?.next ?? 1);
  const changes = tx.run(
    'INSERT OR IGNORE INTO messages_in(id, seq, kind, process_after, content, created_at, recurrence, series_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [id, seq, 'task', held ? heldRowDueMs : dueMs, taskOccurrenceText(task.prompt, dueMs), dueMs, recurrence, task.id],
  ).changes;
  assert(changes === 0 || changes === 1, `occurrence ${id} is one row, not ${changes}`);
  return changes;
}

/** The recurrence an occurrence at dueMs carries: the interval while later occurrences follow, else none. */
function recurrenceAfter(task: ScheduledTask, dueMs: number): number | null {
  const last = taskDueTimes(task).at(-1) as number;
  return task.everyMs !== null && dueMs < last ? task.everyMs : null;
}

/**
 * The occurrences that follow the one due at `dueMs`: the next, and every later one already due by `nowMs` (a missed
 * slot runs late, not skipped), within the series.
 */
function nextSlots(task: ScheduledTask, dueMs: number, nowMs: number): number[] {
  const later = taskDueTimes(task).filter((slot) => slot > dueMs);
  assert(later.length > 0, `occurrence of ${task.id} at ${dueMs} ms carries a recurrence but is the series' last`);
  const due = later.filter((slot) => slot <= nowMs);
  const slots = [...due, ...later.filter((slot) => slot > nowMs).slice(0, 1)].slice(0, fanoutPerSweepMax);
  assert(slots.length > 0 && slots.every((slot, index) => index === 0 || (slots[index - 1] as number) < slot), `the next slots of ${task.id} are in order`);
  return slots;
}

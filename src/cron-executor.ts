// Scheduled work run outside the chat lane (issue 48 item 5; the knob `cron`): OpenClaw's cron service runs an isolated
// job's agent turn in the gateway, apart from the chat's lane, under a wall-clock timeout of its own, and retries a
// failed run after a backoff. Read in OpenClaw 2026.7.1 (dist/server-cron-DlkxL-F-.js, regions src/cron/service/timer.ts,
// timeout-policy.ts; dist/jobs-C-TqRCwf.js, src/cron/service/jobs.ts; docs/MODEL.md "Work that overlaps" has the
// details): `executeJobCoreWithTimeout` races the job's core against a timeout; when the timeout wins it aborts the
// run's signal, waits for the cleanup at most 20 s (`CRON_TIMEOUT_CLEANUP_GUARD_MS`) and returns an error outcome,
// while the core itself goes on (its rejection after the abort is only logged); the timeout's text is a transient
// error (`TRANSIENT_PATTERNS.timeout`), so a one-shot job is retried after 30 s, 1 min, 5 min (at most 3 times,
// `DEFAULT_MAX_TRANSIENT_RETRIES`), and the retry does not ask whether the timed-out run is still going
// (openclaw/openclaw#137215: "the original execution and retry overlap or produce duplicate side effects").
//
// The model: with the knob on, a scheduled task's occurrence row is stored held (never due for the runner,
// heartbeat-run.ts `heldRowDueMs`) and this executor, a task of the gateway, runs it once it is due: an attempt asks
// the LLM the occurrence's prompt and waits timeoutMs for the answer; at the timeout the attempt counts as failed and a
// retry starts after the backoff, but the request is not withdrawn (the original still runs, and its answer may come
// later). A transient error fails the attempt at once. The first answer to come, from whichever attempt, releases the
// row to the runner with that answer (one transaction, `releaseHeldRow`: only a row still held is released), and the
// runner persists it, makes its tool calls and delivers its text as for any turn. The fixed executor reconciles the
// other attempts with the occurrence: once the row has left its hands it withdraws the requests still out (note
// `cron-withdrawn`; the world then never hands their answers over), and an answer that still finds the row released
// is dropped (note `cron-answer-dropped`). After attemptsMax failed attempts the row is released without an answer
// (its requests withdrawn first), and the chat lane runs it as it runs any due task row (its retries, its error reply).
// A gateway restart forgets the attempts of the dead incarnation (a kill fences their answers) and starts the held due
// rows again. The attempt asks with the session's history from state.db, as the runner would.
//
// The sabotage (`retry-blind`, tests only): every answer is the output of a run of its own, as OpenClaw's late core and
// its retry each are: an answer that finds the occurrence already released is run again, as a copy of the occurrence
// with that answer, so the task's output (and whatever its tools do) lands twice.
import { assert, assertNonNegativeInteger } from './assert.ts';
import { isBusy, retryBusy } from './busy.ts';
import type { ModelConfig } from './config.ts';
import type { CronKnobs } from './cron-knobs.ts';
import { heldRowDueMs, releaseHeldRow, storeHeartbeatAnswer } from './heartbeat-run.ts';
import type { LlmAnswer, LlmApi, LlmContextMessage, ProcessContext, TimerHandle } from './ports.ts';
import { SessionDb } from './session-db.ts';
import { LlmAbort, LlmAbortedError, LlmTransientError } from './ports.ts';
import type { SessionDbs } from './session-dbs.ts';

export { type CronKnobs, type CronMode, cronModes } from './cron-knobs.ts';

/** How long the executor sleeps at most between two looks at the held rows. */
export const cronPollMaxMs = 5_000;

/** What the executor knows of one occurrence in this incarnation. */
interface Occurrence {
  sessionKey: string;
  rowId: string;
  prompt: string;
  attempts: number;
  /** Attempts whose request has not come back (answer or error). */
  outstanding: number;
  /** The row left the executor's hands: released with an answer, or handed to the chat lane. */
  settled: boolean;
  retry: TimerHandle | undefined;
  /** The requests still out, by attempt: the fixed executor withdraws them once the occurrence has left its hands. */
  requests: Map<number, LlmAbort>;
}

export class CronExecutor {
  private readonly occurrences = new Map<string, Occurrence>();
  private sessionDb: SessionDb | undefined;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly config: ModelConfig,
    private readonly dbs: SessionDbs,
    private readonly llm: LlmApi,
    private readonly knobs: CronKnobs,
    private readonly wakeRunner: () => void,
  ) {
    assert(knobs.timeoutMs > 0, `a cron attempt times out after a positive time, not ${knobs.timeoutMs} ms`);
    assert(knobs.attemptsMax >= 1, `the cron executor makes at least one attempt, not ${knobs.attemptsMax}`);
    assert(knobs.backoffMs.length > 0 && knobs.backoffMs.every((ms) => Number.isSafeInteger(ms) && ms >= 0), 'the cron backoff is a list of waits');
  }

  /** The executor's loop: start every held occurrence that is due, then sleep until the next is due (at most 5 s). */
  async loop(): Promise<void> {
    const sessions = this.config.sessions.filter((sessionKey) => this.config.knobs.tasks.some((task) => task.sessionKey === sessionKey));
    for (;;) {
      let nextDueMs = this.ctx.clock.nowMs() + cronPollMaxMs;
      for (const sessionKey of sessions) {
        const inbound = await this.dbs.inboundDb(sessionKey);
        let rows;
        try {
          rows = await inbound.query("SELECT id, content, created_at FROM messages_in WHERE kind = 'task' AND status = 'pending' AND process_after = ? ORDER BY seq", [heldRowDueMs]);
        } catch (error) {
          if (!isBusy(error)) throw error;
          continue;
        }
        const nowMs = this.ctx.clock.nowMs();
        for (const row of rows) {
          const rowId = String(row.id);
          const dueMs = Number(row.created_at);
          if (dueMs > nowMs) {
            nextDueMs = Math.min(nextDueMs, dueMs);
            continue;
          }
          if (this.occurrences.has(rowId)) continue;
          const occurrence: Occurrence = { sessionKey, rowId, prompt: String(row.content), attempts: 0, outstanding: 0, settled: false, retry: undefined, requests: new Map() };
          this.occurrences.set(rowId, occurrence);
          this.startAttempt(occurrence);
        }
      }
      await this.ctx.timers.sleep(Math.max(1, nextDueMs - this.ctx.clock.nowMs()));
    }
  }

  private startAttempt(occurrence: Occurrence): void {
    assert(!occurrence.settled, `occurrence ${occurrence.rowId} is attempted only while the executor holds it`);
    const attempt = ++occurrence.attempts;
    // A retry that starts while an earlier attempt's request still runs: the work overlaps.
    this.ctx.note('cron-attempt', { session: occurrence.sessionKey, row: occurrence.rowId, attempt, overlapping: occurrence.outstanding });
    occurrence.outstanding++;
    const abort = new LlmAbort();
    occurrence.requests.set(attempt, abort);
    let timedOut = false;
    const timeout = this.ctx.timers.setTimer(this.knobs.timeoutMs, () => {
      // An attempt withdrawn (its occurrence left the executor's hands) no longer times out.
      if (occurrence.settled && abort.aborted) return;
      timedOut = true;
      this.ctx.note('cron-timeout', { session: occurrence.sessionKey, row: occurrence.rowId, attempt });
      this.failed(occurrence, attempt);
    });
    this.ctx.spawnTask('cron-attempt', async () => {
      let answer: LlmAnswer;
      try {
        const context = await this.context(occurrence.sessionKey);
        answer = await this.llm.complete({ sessionKey: occurrence.sessionKey, prompt: occurrence.prompt, context }, this.ctx.timers, abort);
      } catch (error) {
        // Withdrawn: the occurrence left the executor's hands (released with another attempt's answer, or handed over).
        if (error instanceof LlmAbortedError && abort.aborted) {
          occurrence.outstanding--;
          timeout.cancel();
          return;
        }
        if (!(error instanceof LlmTransientError)) throw error;
        occurrence.requests.delete(attempt);
        occurrence.outstanding--;
        timeout.cancel();
        if (timedOut) return;
        this.ctx.note('cron-attempt-failed', { session: occurrence.sessionKey, row: occurrence.rowId, attempt });
        this.failed(occurrence, attempt);
        return;
      }
      occurrence.requests.delete(attempt);
      occurrence.outstanding--;
      timeout.cancel();
      await this.answered(occurrence, attempt, answer, timedOut);
    });
  }

  /**
   * The conversation the attempt is asked with: the session's history in state.db as the runner would send it (its
   * user and assistant rows, without tool rows and without the unanswered user rows at its end).
   */
  private async context(sessionKey: string): Promise<LlmContextMessage[]> {
    this.sessionDb ??= await SessionDb.open(this.ctx.sqlite);
    const db = this.sessionDb;
    const rows = await retryBusy(this.ctx, async () => db.messages(await db.currentSessionId(sessionKey)));
    const history = rows.filter((row) => row.role !== 'tool' && row.content.length > 0).map((row) => ({ role: row.role as 'user' | 'assistant', content: row.content }));
    while (history.at(-1)?.role === 'user') history.pop();
    return history;
  }

  /** An attempt failed (its timeout, or an error): the next attempt after the backoff, or the chat lane after the last. */
  private failed(occurrence: Occurrence, attempt: number): void {
    if (occurrence.settled || attempt !== occurrence.attempts) return;
    if (attempt >= this.knobs.attemptsMax) {
      this.ctx.spawnTask('cron-hand-over', () => this.handOver(occurrence));
      return;
    }
    const backoffMs = this.knobs.backoffMs[Math.min(attempt - 1, this.knobs.backoffMs.length - 1)] as number;
    assertNonNegativeInteger(backoffMs, 'a cron retry backoff');
    occurrence.retry = this.ctx.timers.setTimer(backoffMs, () => {
      occurrence.retry = undefined;
      if (!occurrence.settled) this.startAttempt(occurrence);
    });
  }

  /** The answer of an attempt, perhaps long after its timeout: the first releases the row; a later one is reconciled. */
  private async answered(occurrence: Occurrence, attempt: number, answer: LlmAnswer, late: boolean): Promise<void> {
    const inbound = await this.dbs.inboundDb(occurrence.sessionKey);
    const nowMs = this.ctx.clock.nowMs();
    const released = await retryBusy(this.ctx, () => inbound.transaction((tx) => releaseHeldRow(tx, occurrence.rowId, occurrence.prompt, answer, nowMs)));
    if (released) {
      occurrence.settled = true;
      occurrence.retry?.cancel();
      occurrence.retry = undefined;
      this.withdraw(occurrence);
      this.ctx.note('cron-released', { session: occurrence.sessionKey, row: occurrence.rowId, attempt, late, outstanding: occurrence.outstanding });
      this.wakeRunner();
      return;
    }
    if (this.knobs.mode === 'fixed') {
      // The occurrence has its output already (another attempt's answer, or the chat lane runs it): not run again.
      this.ctx.note('cron-answer-dropped', { session: occurrence.sessionKey, row: occurrence.rowId, attempt, late });
      return;
    }
    // retry-blind (tests only): this answer is a run of its own, and its output goes out as well.
    const copyId = `${occurrence.rowId}~${attempt}`;
    await retryBusy(this.ctx, () =>
      inbound.transaction((tx) => {
        const original = tx.query('SELECT created_at, series_id FROM messages_in WHERE id = ?', [occurrence.rowId])[0];
        if (original === undefined) return;
        const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_in')[0]?.next ?? 1);
        tx.run("INSERT OR IGNORE INTO messages_in(id, seq, kind, process_after, content, created_at, series_id) VALUES (?, ?, 'task', ?, ?, ?, ?)", [copyId, seq, nowMs, occurrence.prompt, original.created_at ?? null, original.series_id ?? null]);
        storeHeartbeatAnswer(tx, copyId, occurrence.prompt, answer);
      }),
    );
    this.ctx.note('cron-answer-run-again', { session: occurrence.sessionKey, row: occurrence.rowId, copy: copyId, attempt, late });
    this.wakeRunner();
  }

  /**
   * The fixed executor withdraws the requests still out once the occurrence has left its hands: their answers are
   * not needed (the occurrence has its output, or the chat lane asks again). retry-blind leaves them running.
   */
  private withdraw(occurrence: Occurrence): void {
    if (this.knobs.mode !== 'fixed') return;
    const withdrawn = [...occurrence.requests.keys()];
    for (const abort of occurrence.requests.values()) abort.abort();
    occurrence.requests.clear();
    if (withdrawn.length > 0) this.ctx.note('cron-withdrawn', { session: occurrence.sessionKey, row: occurrence.rowId, attempts: withdrawn.join(',') });
  }

  /** Every attempt failed: the chat lane runs the occurrence as it runs any due task row. */
  private async handOver(occurrence: Occurrence): Promise<void> {
    // Its requests still out are withdrawn first: the chat lane may ask a prompt of its own (the occurrence merged
    // with other rows), and an answer of the executor's that came after would be an answer no one shows.
    occurrence.settled = true;
    this.withdraw(occurrence);
    const inbound = await this.dbs.inboundDb(occurrence.sessionKey);
    const nowMs = this.ctx.clock.nowMs();
    const changes = await retryBusy(this.ctx, () => inbound.run('UPDATE messages_in SET process_after = ? WHERE id = ? AND process_after = ?', [nowMs, occurrence.rowId, heldRowDueMs]));
    if (changes.changes === 0) return;
    this.ctx.note('cron-handed-over', { session: occurrence.sessionKey, row: occurrence.rowId, attempts: occurrence.attempts, outstanding: occurrence.outstanding });
    this.wakeRunner();
  }
}

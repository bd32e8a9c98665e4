// Seed 000 (exec-replay): the node host reports `exec.started` for run-0, then `exec.finished` 5 s later, over its
// reconnecting link; the gateway turns each into a system event, drains it into a heartbeat prompt row and only then
// acknowledges the event. Here the connection is reset right after one of those prompt rows was persisted, so its
// acknowledgement is lost, and the node host (reconnect backoff 51 s) resends the event about 51 s after the first
// copy, long after it was drained. With the bug the system-event queue dedupes only against the last text, which the
// drain forgot, so the replay becomes a second, identical user turn; the fixed gateway recognises the event by its
// durable key (`<sessionKey>::<runId>` for the finish, with `::started` for the start).
import { describe, expect, it } from 'vitest';
import { type BugId, inboundPath } from '../../src/index.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import type { FaultStep } from '../../sim/run/plan.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { handPlan, invariants, llmPrompts, notes, seenByTurn, session0, stateRows, withRun } from './support.ts';

const sql = await loadSqlJs();

const reconnectBackoffMs = 51_000;
const execLine = /Exec finished \(node=node-1 id=run-0, code 1\)\nSystem \(untrusted\): boom/;
const startLine = /Exec started \(node=node-1 id=run-0\): \S/;
/**
 * ingest-phase events, in order: the start's system-event (nth 0) and prompt row (exec-ingest, nth 1), then the
 * finish's system-event (nth 2) and prompt row (nth 3). The reset lands right after the chosen prompt row commits.
 */
const resetAfterPromptRow = (nth: number): FaultStep => ({ kind: 'reset-at-phase', phase: 'ingest', nth, delayMs: 0, link: 1 });
const planResetAfter = (nth: number) => handPlan([{ kind: 'exec', atMs: 1_000, session: 0, durationMs: 5_000, exitCode: 1, output: 'boom' }], [resetAfterPromptRow(nth)]);
const input = (bugs: BugId[], nth: number) => ({
  bugs,
  plan: planResetAfter(nth),
  prepare: (sim: Simulation) => sim.network.configure('node-host', 'gateway', { reconnectDelayMs: reconnectBackoffMs }),
});

/** Times at which the gateway received the node event behind the nth system event (original and resend share an id). */
function replayedDeliveries(result: RunResult, nth: number): number[] {
  const events = result.sim.trace.events;
  const deliveries = events.filter((event) => event.kind === 'net.deliver' && event.fields.from === 'node-host' && event.fields.to === 'gateway');
  // The message the system event came from: the node-host delivery just before it.
  const enqueue = events.filter((event) => event.kind === 'model.system-event')[nth];
  const original = deliveries.filter((event) => event.index < (enqueue?.index ?? 0)).at(-1);
  expect(events.some((event) => event.kind === 'net.resend' && event.fields.id === original?.fields.id)).toBe(true);
  return deliveries.filter((event) => event.fields.id === original?.fields.id).map((event) => event.timeMs);
}

function systemRows(result: RunResult): { id: string; content: string; createdAt: number }[] {
  return result.sim.sqlite
    .inspect(inboundPath(session0), "SELECT id, content, created_at FROM messages_in WHERE kind = 'system' ORDER BY seq")
    .map((row) => ({ id: String(row.id), content: String(row.content), createdAt: Number(row.created_at) }));
}

function expectAbout51s(gapMs: number): void {
  expect(gapMs).toBeGreaterThanOrEqual(50_500);
  expect(gapMs).toBeLessThanOrEqual(52_000);
}

describe('the same exec.finished delivered twice about 51 s apart (a reconnect resend after the drain)', () => {
  it('with exec-replay on: two identical user turns in state.db, each answered', async () => {
    await withRun(sql, input(['exec-replay'], 3), (result) => {
      const [first, second, ...more] = replayedDeliveries(result, 1);
      expect(more).toEqual([]);
      expectAbout51s((second ?? 0) - (first ?? 0));
      // The first copy had been drained into a prompt row, and that turn answered, before the replay arrived.
      const firstDone = notes(result, 'turn-completed')[1];
      expect(firstDone?.timeMs).toBeLessThan(second ?? 0);

      // The start's own prompt row, then the finish's two.
      const [started, ...finished] = systemRows(result);
      expect(startLine.test(started?.content ?? '')).toBe(true);
      const rows = finished;
      expect(rows).toHaveLength(2);
      expect(rows.every((row) => execLine.test(row.content))).toBe(true);
      expectAbout51s((rows[1]?.createdAt ?? 0) - (rows[0]?.createdAt ?? 0));

      const users = stateRows(result).filter((row) => row.role === 'user' && row.turnId !== started?.id);
      expect(users.map((row) => row.turnId)).toEqual(rows.map((row) => row.id));
      expect(users.every((row) => execLine.test(row.content))).toBe(true);
      // Identical but for the enqueue timestamp the system-event line carries.
      const strip = (text: string) => text.replace(/^System \(untrusted\): \[\d+\] /, '');
      expect(strip(users[1]?.content ?? '')).toBe(strip(users[0]?.content ?? ''));
      expect(seenByTurn(result).map(([turn]) => turn)).toEqual(rows.map((row) => row.id));

      expect(invariants(result)).toEqual(['no-double-ingestion']);
      // Caught in both durable transcripts: state.db and the JSONL each hold the run as two user turns.
      expect(result.violations.map((violation) => violation.message)).toEqual([
        `${session0}: command run-0 is in 2 user rows of state.db`,
        `${session0}: command run-0 is in 2 user entries of its JSONL file`,
      ]);
      // The LLM was asked twice, once per copy, and each prompt names the run (after the start's own prompt).
      const prompts = llmPrompts(result).filter((prompt) => !startLine.test(prompt));
      expect(prompts).toHaveLength(2);
      expect(prompts.every((prompt) => execLine.test(prompt))).toBe(true);
    });
  });

  it('with exec-replay off: the replay arrives just the same but is dropped; one user turn, one reply', async () => {
    await withRun(sql, input([], 3), (result) => {
      const [first, second, ...more] = replayedDeliveries(result, 1);
      expect(more).toEqual([]);
      expectAbout51s((second ?? 0) - (first ?? 0));
      const dropped = notes(result, 'exec-duplicate-dropped');
      expect(dropped.map((note) => note.fields.run)).toEqual(['run-0']);
      // Dropped on arrival (after the durable-key lookup), not queued.
      expect(dropped[0]?.timeMs).toBeGreaterThanOrEqual(second ?? 0);
      expect(dropped[0]?.timeMs).toBeLessThan((second ?? 0) + 1_000);

      const [started, ...rows] = systemRows(result);
      expect(rows).toHaveLength(1);
      const users = stateRows(result).filter((row) => row.role === 'user');
      expect(users.map((row) => row.turnId)).toEqual([started?.id, rows[0]?.id]);
      expect(execLine.test(users[1]?.content ?? '')).toBe(true);
      // The start's heartbeat was answered HEARTBEAT_OK: only the finish's reply was shown.
      expect(seenByTurn(result).map(([turn]) => turn)).toEqual([rows[0]?.id]);
      expect(result.violations).toEqual([]);
    });
  });
});

describe('the same exec.started delivered twice about 51 s apart: a start is a report of its own', () => {
  it('with exec-replay on: the start becomes two user turns, which no-double-ingestion reports as the start', async () => {
    await withRun(sql, input(['exec-replay'], 1), (result) => {
      const [first, second, ...more] = replayedDeliveries(result, 0);
      expect(more).toEqual([]);
      expectAbout51s((second ?? 0) - (first ?? 0));
      const rows = systemRows(result);
      expect(rows.map((row) => [startLine.test(row.content), execLine.test(row.content)])).toEqual([
        [true, false],
        [false, true],
        [true, false],
      ]);
      expect(invariants(result)).toEqual(['no-double-ingestion']);
      // The command's finish was taken up once; only its start twice.
      expect(result.violations.map((violation) => violation.message)).toEqual([
        `${session0}: the start of command run-0 is in 2 user rows of state.db`,
        `${session0}: the start of command run-0 is in 2 user entries of its JSONL file`,
      ]);
    });
  });

  it('with exec-replay off: the replayed start is dropped by its durable key; the finish still gets its turn', async () => {
    await withRun(sql, input([], 1), (result) => {
      const [, second] = replayedDeliveries(result, 0);
      const dropped = notes(result, 'exec-duplicate-dropped');
      expect(dropped.map((note) => [note.fields.run, note.fields.event])).toEqual([['run-0', 'exec.started']]);
      expect(dropped[0]?.timeMs).toBeGreaterThanOrEqual(second ?? 0);
      const rows = systemRows(result);
      expect(rows.map((row) => [startLine.test(row.content), execLine.test(row.content)])).toEqual([
        [true, false],
        [false, true],
      ]);
      expect(result.violations).toEqual([]);
    });
  });
});

// Seed 000 (exec-replay): the node host reports `exec.finished` for run-0 over its reconnecting link; the gateway
// turns it into a system event, drains it into a heartbeat prompt row and only then acknowledges the event. Here the
// connection is reset right after that prompt row was persisted, so the acknowledgement is lost, and the node host
// (reconnect backoff 51 s) resends the event about 51 s after the first copy, long after it was drained. With the
// bug the system-event queue dedupes only against the last text, which the drain forgot, so the replay becomes a
// second, identical user turn; the fixed gateway recognises the run by its durable (sessionKey, runId) key.
import { describe, expect, it } from 'vitest';
import { type BugId, inboundPath } from '../../src/index.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import type { FaultStep } from '../../sim/run/plan.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { handPlan, invariants, llmPrompts, notes, seenByTurn, session0, stateRows, withRun } from './support.ts';

const sql = await loadSqlJs();

const reconnectBackoffMs = 51_000;
const execLine = /Exec finished \(node=node-1 id=run-0, code 1\)\nboom/;
/** ingest-phase events: system-event (the enqueue) is nth 0, exec-ingest (the prompt row committed) is nth 1. */
const resetAfterPromptRow: FaultStep = { kind: 'reset-at-phase', phase: 'ingest', nth: 1, delayMs: 0, link: 1 };
const plan = handPlan([{ kind: 'exec', atMs: 1_000, session: 0, durationMs: 5_000, exitCode: 1, output: 'boom' }], [resetAfterPromptRow]);
const input = (bugs: BugId[]) => ({
  bugs,
  plan,
  prepare: (sim: Simulation) => sim.network.configure('node-host', 'gateway', { reconnectDelayMs: reconnectBackoffMs }),
});

/** Times at which the gateway received the exec.finished message (original and resend share one message id). */
function execFinishedDeliveries(result: RunResult): number[] {
  const events = result.sim.trace.events;
  const deliveries = events.filter((event) => event.kind === 'net.deliver' && event.fields.from === 'node-host' && event.fields.to === 'gateway');
  // The message the first system event came from: the node-host delivery just before it.
  const firstEnqueue = events.find((event) => event.kind === 'model.system-event');
  const original = deliveries.filter((event) => event.index < (firstEnqueue?.index ?? 0)).at(-1);
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
    await withRun(sql, input(['exec-replay']), (result) => {
      const [first, second, ...more] = execFinishedDeliveries(result);
      expect(more).toEqual([]);
      expectAbout51s((second ?? 0) - (first ?? 0));
      // The first copy had been drained into a prompt row, and that turn answered, before the replay arrived.
      const firstDone = notes(result, 'turn-completed')[0];
      expect(firstDone?.timeMs).toBeLessThan(second ?? 0);

      const rows = systemRows(result);
      expect(rows).toHaveLength(2);
      expect(rows.every((row) => execLine.test(row.content))).toBe(true);
      expectAbout51s((rows[1]?.createdAt ?? 0) - (rows[0]?.createdAt ?? 0));

      const users = stateRows(result).filter((row) => row.role === 'user');
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
      // The LLM was asked twice, once per copy, and each prompt names the run.
      const prompts = llmPrompts(result);
      expect(prompts).toHaveLength(2);
      expect(prompts.every((prompt) => execLine.test(prompt))).toBe(true);
    });
  });

  it('with exec-replay off: the replay arrives just the same but is dropped; one user turn, one reply', async () => {
    await withRun(sql, input([]), (result) => {
      const [first, second, ...more] = execFinishedDeliveries(result);
      expect(more).toEqual([]);
      expectAbout51s((second ?? 0) - (first ?? 0));
      const dropped = notes(result, 'exec-duplicate-dropped');
      expect(dropped.map((note) => note.fields.run)).toEqual(['run-0']);
      // Dropped on arrival (after the durable-key lookup), not queued.
      expect(dropped[0]?.timeMs).toBeGreaterThanOrEqual(second ?? 0);
      expect(dropped[0]?.timeMs).toBeLessThan((second ?? 0) + 1_000);

      const rows = systemRows(result);
      expect(rows).toHaveLength(1);
      const users = stateRows(result).filter((row) => row.role === 'user');
      expect(users.map((row) => row.turnId)).toEqual([rows[0]?.id]);
      expect(execLine.test(users[0]?.content ?? '')).toBe(true);
      expect(seenByTurn(result).map(([turn]) => turn)).toEqual([rows[0]?.id]);
      expect(result.violations).toEqual([]);
    });
  });
});

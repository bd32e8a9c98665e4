// The seeds' own fixes, run exactly as their documents propose them (switchable variants), next to the fixed model,
// each on the fault that shows where it falls short:
// - exec-dedupe-memory (seed 000's fix: exec.finished deduped by (sessionKey, runId) in memory for 10 minutes): the
//   gateway is SIGKILLed right after it committed the exec prompt and before the node host saw the acknowledgement;
//   the node host resends on reconnect, the new gateway's memory is empty, and the replay becomes a second turn.
//   The fixed gateway keeps the key durably, in the prompt row's transaction, and drops the replay. The fix keys
//   exec.finished only: a replayed exec.started becomes a second turn for the run's start even with the gateway up;
//   the fixed gateway keeps a durable key for the start too.
// - sent-payloads-pr2531 (seed 001's fix as merged: one shared turn_sent_payloads row cleared at four boundaries):
//   the runner is SIGKILLed after the turn's final row is durable and before it dispatches the closing text; the
//   cold-start clear at the top of the poll loop wipes the record of the payload the tool already sent, but the
//   resumed turn replays its (idempotent) tool call first, as a retry that asks the LLM again would, so the record
//   is rebuilt and the repeat suppressed: the fix holds on this fault. Where it falls short, if anywhere, the
//   campaigns in docs/MODEL.md say.
// - cursor-realign-gateway (seed 004's first option: realign the cached agent's cursor to the turn's history in the
//   gateway path), over Hermes' flush as the seed describes it (a commit per row, the cursor moved after the loop, a
//   write error logged): a "database is locked" error on the turn's last flush is logged and the turn goes on, so the
//   user sees a reply that state.db never gets. The fixed flush moves the cursor per message and lets the error end
//   the attempt; the retried turn writes the row before the reply leaves.
import { describe, expect, it } from 'vitest';
import { type BugId, stateDbPath } from '../../src/index.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { FaultStep } from '../../sim/run/plan.ts';
import { handPlan, invariants, notes, reply, session0, user, visible, withRun } from '../model/support.ts';

const sql = await loadSqlJs();

describe('exec-dedupe-memory: seed 000 fix as proposed', () => {
  // ingest-phase events: the start's system-event (nth 0) and prompt row (exec-ingest, nth 1), then the finish's
  // system-event (nth 2) and prompt row (nth 3).
  const killGatewayAfterPromptRow = (nth: number): FaultStep => ({ kind: 'kill-at-phase', phase: 'ingest', nth, delayMs: 0, process: 'gateway', restartAfterMs: 2_000 });
  const planWith = (fault: FaultStep) => handPlan([{ kind: 'exec', atMs: 1_000, session: 0, durationMs: 5_000, exitCode: 1, output: 'boom' }], [fault]);
  const promptRows = (result: Parameters<typeof notes>[0]) => notes(result, 'exec-ingest').filter((note) => note.fields.row !== null);
  const doubleIngestion = (result: Parameters<typeof notes>[0]) => result.violations.filter((violation) => violation.invariant === 'no-double-ingestion').map((violation) => violation.message);

  it('falls short: after a gateway SIGKILL the node host resends exec.finished and the run becomes a second turn', async () => {
    await withRun(sql, { bugs: ['exec-dedupe-memory'], plan: planWith(killGatewayAfterPromptRow(3)) }, (result) => {
      expect(promptRows(result)).toHaveLength(3);
      expect(invariants(result)).toContain('no-double-ingestion');
      expect(doubleIngestion(result)).toContain(`${session0}: command run-0 is in 2 user rows of state.db`);
    });
  });

  it('the fixed gateway drops the resend by its durable key: one turn, no violation', async () => {
    await withRun(sql, { bugs: [], plan: planWith(killGatewayAfterPromptRow(3)) }, (result) => {
      expect(promptRows(result)).toHaveLength(2);
      expect(notes(result, 'exec-duplicate-dropped').map((note) => note.fields.event)).toEqual(['exec.finished']);
      expect(result.violations).toEqual([]);
    });
  });

  it('holds for exec.finished when the gateway stays up: the replay within 10 minutes is dropped from memory', async () => {
    const resetAfterPromptRow: FaultStep = { kind: 'reset-at-phase', phase: 'ingest', nth: 3, delayMs: 0, link: 1 };
    await withRun(sql, { bugs: ['exec-dedupe-memory'], plan: planWith(resetAfterPromptRow), prepare: (sim: Simulation) => sim.network.configure('node-host', 'gateway', { reconnectDelayMs: 51_000 }) }, (result) => {
      expect(notes(result, 'exec-duplicate-dropped').map((note) => [note.fields.event, note.fields.memory])).toEqual([['exec.finished', true]]);
      expect(result.violations).toEqual([]);
    });
  });

  it('falls short for exec.started, which it does not key: a replayed start becomes a second turn even with the gateway up', async () => {
    const resetAfterStartRow: FaultStep = { kind: 'reset-at-phase', phase: 'ingest', nth: 1, delayMs: 0, link: 1 };
    const input = (bugs: BugId[]) => ({ bugs, plan: planWith(resetAfterStartRow), prepare: (sim: Simulation) => sim.network.configure('node-host', 'gateway', { reconnectDelayMs: 51_000 }) });
    await withRun(sql, input(['exec-dedupe-memory']), (result) => {
      expect(notes(result, 'exec-duplicate-dropped')).toEqual([]);
      expect(doubleIngestion(result)).toEqual([
        `${session0}: the start of command run-0 is in 2 user rows of state.db`,
        `${session0}: the start of command run-0 is in 2 user entries of its JSONL file`,
      ]);
    });
    await withRun(sql, input([]), (result) => {
      expect(notes(result, 'exec-duplicate-dropped').map((note) => [note.fields.event, note.fields.memory])).toEqual([['exec.started', false]]);
      expect(result.violations).toEqual([]);
    });
  });
});

describe('sent-payloads-pr2531: seed 001 fix as merged', () => {
  const plan = (faults: FaultStep[]) => handPlan([user(1_000, 'send "interim update", then say so')], faults);
  const script = () => ({ toolCalls: [{ name: 'send_message' as const, text: 'interim update' }], result: reply('interim update') });
  // flush-phase events of the turn: the tool-call carrier (nth 0), then the final assistant row (nth 1).
  const killRunnerAfterFinalRow: FaultStep = { kind: 'kill-at-phase', phase: 'flush', nth: 1, delayMs: 0, process: 'runner', restartAfterMs: 1_000 };
  const shown = (texts: string[]) => texts.map((text) => text.replace(/\s+/g, ' ').trim());

  it('holds on a kill after the final row: the cold start clears the row, but the resumed turn replays its tool call and re-records the payload', async () => {
    await withRun(sql, { bugs: ['sent-payloads-pr2531'], plan: plan([killRunnerAfterFinalRow]), script }, (result) => {
      expect(notes(result, 'turn-start').length).toBeGreaterThanOrEqual(2);
      expect(notes(result, 'tool-sent').length).toBeGreaterThanOrEqual(2);
      expect(shown(visible(result).map((message) => message.text))).toEqual(['interim update']);
      expect(result.violations).toEqual([]);
    });
  });

  it('the fixed runner keeps the turn-keyed record across the restart: shown once', async () => {
    await withRun(sql, { bugs: [], plan: plan([killRunnerAfterFinalRow]), script }, (result) => {
      expect(notes(result, 'turn-start').length).toBeGreaterThanOrEqual(2);
      expect(shown(visible(result).map((message) => message.text))).toEqual(['interim update']);
      expect(result.violations).toEqual([]);
    });
  });

  it('holds without a kill: the repeat is suppressed, once', async () => {
    await withRun(sql, { bugs: ['sent-payloads-pr2531'], plan: plan([]), script }, (result) => {
      expect(shown(visible(result).map((message) => message.text))).toEqual(['interim update']);
      expect(result.violations).toEqual([]);
    });
  });
});

describe('orphan-rewrite-inplace: seed 003 fix direction as written', () => {
  // prompt-persisted phase events: turn-start then prompt-persisted per turn, so nth 3 is in:d1's prompt-persisted,
  // right after its user entry reached the .jsonl and before the model answered; in:d2 arrives before the retry.
  const killAfterUserEntry: FaultStep = { kind: 'kill-at-phase', phase: 'prompt-persisted', nth: 3, delayMs: 0, process: 'runner', restartAfterMs: 0 };
  const plan = handPlan([user(1_000, 'first'), user(10_000, 'second'), user(14_000, 'third')], [killAfterUserEntry]);
  const repairs = (result: Parameters<typeof notes>[0]) => notes(result, 'orphan-repair').map((note) => [note.fields.persisted, note.fields.backup === null ? 'no backup' : 'backup']);

  it('removes the orphan through the rewrite hook, in place and without a backup, and holds on this fault', async () => {
    await withRun(sql, { bugs: ['orphan-rewrite-inplace'], plan }, (result) => {
      expect(repairs(result)).toEqual([[true, 'no backup']]);
      expect(result.sim.disk.paths().some((path) => path.includes('.bak-'))).toBe(false);
      expect(result.violations).toEqual([]);
    });
  });

  it('the fixed repair writes a backup and renames a temporary file over the transcript', async () => {
    await withRun(sql, { bugs: [], plan }, (result) => {
      expect(repairs(result)).toEqual([[true, 'backup']]);
      expect(result.sim.disk.paths().some((path) => path.includes('.bak-'))).toBe(true);
      expect(result.violations).toEqual([]);
    });
  });
});

describe('cursor-realign-gateway: seed 004 fix as proposed', () => {
  const plan = handPlan([user(1_000, 'book the room')]);
  const script = () => ({ toolCalls: [{ name: 'send_message' as const, text: 'booking it now' }], result: reply('the room is booked') });
  /**
   * "database is locked" on the turn's last flush (the tool row, then the final reply): the busy fault is switched on
   * when the tool's transcript entry is synced, right before that flush, and off again at the first write it fails.
   */
  const busyOnLastFlush = (sim: Simulation): void => {
    let toolSent = false;
    let armed = false;
    sim.trace.onEvent((event) => {
      if (event.kind === 'model.tool-sent') toolSent = true;
      if (toolSent && !armed && event.kind === 'disk.sync' && String(event.fields.path).endsWith('.jsonl')) {
        armed = true;
        sim.sqlite.faults = { ...sim.sqlite.faults, busyPer1000: 1_000 };
      }
      if (event.kind === 'sql.busy') {
        expect(event.fields.path).toBe(stateDbPath);
        sim.sqlite.faults = { ...sim.sqlite.faults, busyPer1000: 0 };
      }
    });
  };
  const shown = (result: Parameters<typeof visible>[0]) => visible(result).map((message) => message.text);

  it('falls short: the flush logs the error, the turn dispatches its reply, and state.db never gets the row', async () => {
    await withRun(sql, { bugs: ['cursor-realign-gateway'], plan, script, prepare: busyOnLastFlush }, (result) => {
      expect(notes(result, 'flush').map((note) => note.fields.error !== null)).toEqual([false, true]);
      expect(notes(result, 'turn-transient')).toEqual([]);
      expect(shown(result)).toEqual(['booking it now', 'the room is booked']);
      expect(invariants(result)).toEqual(['one-assistant-row-per-visible-reply']);
      expect(result.violations.map((violation) => violation.message)).toEqual([expect.stringMatching(/the user saw "the room is booked" \(closing text .*\), but state\.db has 0 assistant rows for it$/)]);
    });
  });

  it('the fixed flush lets the error end the attempt; the retried turn writes the row, then replies: no violation', async () => {
    await withRun(sql, { bugs: [], plan, script, prepare: busyOnLastFlush }, (result) => {
      expect(notes(result, 'turn-transient').map((note) => note.fields.error)).toEqual([`database is locked: ${stateDbPath}`]);
      expect(shown(result)).toEqual(['booking it now', 'the room is booked']);
      expect(result.violations).toEqual([]);
    });
  });

  it('holds without a write error: the realigned cursor writes every row of every turn', async () => {
    await withRun(sql, { bugs: ['cursor-realign-gateway'], plan: handPlan([user(1_000, 'book the room'), user(20_000, 'and lunch')]), script }, (result) => {
      expect(notes(result, 'prompt-persisted').map((note) => note.fields.reused)).toEqual([false, true]);
      expect(result.violations).toEqual([]);
    });
  });
});

// A turn whose final row is durable resumes from it after a kill, replaying the answer's durable tool calls first
// (each is idempotent and re-records its payload, so the closing text is judged against it). Here in:d0's answer
// sends "on it - looking at your calendar" through send_message and the runner is SIGKILLed right after the send;
// in:d1 arrives while it is down, and the re-formed turn's new answer closes with that same phrase. The runner is
// killed again right after the new answer's final row is flushed, before its result is dispatched. The restarted
// runner resumes the turn: the answer it resumes is the one after the turn's last user row (in:d1 joined it), so the
// superseded answer's carrier, which state.db holds before that row, is not replayed. Replaying it recorded its
// payload as sent by the resumed answer, whose closing text, equal to it, was then suppressed and never shown
// (`fuzz --scenario chaos --runs 2000 --seed 14` stopped at run 105 on this shape, there through a busy outbound.db).
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { FaultStep } from '../../sim/run/plan.ts';
import { invariants, notes, sendThenKill, visible, withRun } from './support.ts';

const sql = await loadSqlJs();

const { interim, plan, script } = sendThenKill;

/** The second flush of the run writes the re-formed turn's final row (the first wrote in:d0's carrier). */
const killAfterFinalRow: FaultStep = { kind: 'kill-at-phase', phase: 'flush', nth: 1, delayMs: 0, process: 'runner', restartAfterMs: 8_000 };

describe('a resumed answer', () => {
  it("replays only its own tool calls, not a superseded answer's, and its closing text is shown", async () => {
    await withRun(sql, { bugs: [], plan: { ...plan, faults: [...plan.faults, killAfterFinalRow] }, script }, (result) => {
      // The shape: two kills, and the second attempt at the re-formed turn resumed from its durable final row.
      expect(result.sim.trace.events.filter((event) => event.kind === 'proc.kill' && event.fields.name === 'runner')).toHaveLength(2);
      const answers = notes(result, 'answer');
      expect(answers.map((note) => note.fields.resumed)).toEqual([false, false, true]);
      // The resumed answer has no tool calls of its own: the superseded answer's send is not replayed.
      expect(answers.at(-1)?.fields.toolCalls).toBe(0);
      // The user saw the interim message from the first answer's call, then the new answer's closing text.
      expect(visible(result).map((message) => message.text)).toEqual([interim, interim]);
      expect(invariants(result)).toEqual([]);
    });
  });
});

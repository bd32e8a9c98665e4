// Seed 001 (send-stale): turn_sent_payloads lives in SQLite, so a SIGKILL of the runner after a mid-turn send and
// before the result leaves the killed turn's payloads behind. Without the cold-start clear at poll-loop start, the
// next query compares its result against them. Here the runner is killed right after the tool server recorded
// send_message("on it - looking at your calendar") for turn in:d0 and comes back 8 s later; meanwhile the user's
// next message (in:d1) arrived. The restarted runner clears its stale claims and fetches what is pending, as
// nanoclaw does: in:d0 and in:d1, one batch, so the LLM is asked a new prompt carrying both. Its reply is exactly
// the earlier payload: with the bug it is suppressed and the user gets no answer to in:d1; fixed, it is delivered.
//
// The oracle judges per LLM answer: the first answer (its closing text was never dispatched) is superseded by the
// second, whose prompt carries both messages, so only the second answer's reply counts as lost, and [m0] counts as
// answered by the interim message the user did see.
import { describe, expect, it } from 'vitest';
import { type BugId, outboundPath } from '../../src/index.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, llmPrompts, marker, notes, outboundRows, seenByTurn, sendThenKill, session0, stateRows, withRun } from './support.ts';

const sql = await loadSqlJs();

const { interim, plan, script } = sendThenKill;

function input(bugs: BugId[], atNewTurn: string[]) {
  return {
    bugs,
    plan,
    script,
    prepare: (sim: Simulation) => {
      // What turn_sent_payloads holds when the turn starts again with both messages.
      sim.trace.onEvent((event) => {
        if (event.kind !== 'model.turn-start' || event.fields.members !== 2) return;
        for (const row of sim.sqlite.inspect(outboundPath(session0), "SELECT value FROM session_state WHERE key = 'turn_sent_payloads'")) atNewTurn.push(String(row.value));
      });
    },
  };
}

/** The kill landed after the send was recorded and before in:d0 produced a result; in:d1 then joined its batch. */
function expectKillBetweenSendAndResult(result: RunResult): void {
  const kinds = result.sim.trace.events
    .filter((event) => (event.kind === 'proc.kill' && event.fields.name === 'runner') || (event.fields.turn === 'in:d0' && (event.kind === 'model.tool-sent' || event.kind === 'model.result')))
    .map((event) => event.kind);
  expect(kinds).toEqual(['model.tool-sent', 'proc.kill', 'model.result']);
  expect(notes(result, 'turn-start').map((note) => [note.fields.turn, note.fields.members])).toEqual([
    ['in:d0', 1],
    ['in:d0', 2],
  ]);
  // The LLM was asked in:d0 alone, then the batch that gained in:d1.
  expect(llmPrompts(result)).toEqual([`am I free tomorrow? ${marker(0)}`, `am I free tomorrow? ${marker(0)}\nwhat are you doing right now? ${marker(1)}`]);
  // state.db keeps the first prompt's row and one more user row of the same turn for the message that joined it.
  const users = stateRows(result).filter((row) => row.role === 'user');
  expect(users.map((row) => [row.turnId, row.content])).toEqual([
    ['in:d0', `am I free tomorrow? ${marker(0)}`],
    ['in:d0', `what are you doing right now? ${marker(1)}`],
  ]);
}

describe('a runner SIGKILL between a mid-turn send and the result, then a new turn whose reply equals that payload', () => {
  it('with send-stale on: the killed turn\'s payload is still recorded and the new turn\'s reply is suppressed', async () => {
    const atNewTurn: string[] = [];
    await withRun(sql, input(['send-stale'], atNewTurn), (result) => {
      expectKillBetweenSendAndResult(result);
      expect(atNewTurn.map((value) => JSON.parse(value) as unknown)).toEqual([{ turnId: 'in:d0', payloads: [interim] }]);
      expect(outboundRows(result).filter((row) => row.source === 'result')).toEqual([]);
      expect(seenByTurn(result)).toEqual([['in:d0', interim]]);
      expect(invariants(result)).toEqual(['every-inbound-answered', 'no-lost-reply']);
      expect(result.violations.find((violation) => violation.invariant === 'no-lost-reply')?.message).toContain(`"${interim}" the LLM produced for ${marker(0)} ${marker(1)} was never shown`);
      expect(result.violations.find((violation) => violation.invariant === 'every-inbound-answered')?.message).toContain(`message ${marker(1)} (delivery d1) got no reply`);
    });
  });

  it('with send-stale off: the new turn\'s reply is delivered although it equals the killed turn\'s payload', async () => {
    await withRun(sql, input([], []), (result) => {
      expectKillBetweenSendAndResult(result);
      const rows = outboundRows(result).filter((row) => row.source === 'result');
      expect(rows.map((row) => [row.inReplyTo, row.text, row.delivered])).toEqual([['in:d0', interim, true]]);
      // The turn's own payload record was dropped when its batch grew: the new answer is not a repeat of the old one.
      expect(notes(result, 'payloads-forgotten')).toHaveLength(1);
      expect(seenByTurn(result)).toEqual([
        ['in:d0', interim],
        ['in:d0', interim],
      ]);
      expect(result.violations).toEqual([]);
    });
  });
});

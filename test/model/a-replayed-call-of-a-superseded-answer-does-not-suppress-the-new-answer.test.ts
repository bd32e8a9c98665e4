// The fixed runner keeps one turn_sent_payloads record per turn and forgets it when the turn's batch grows (a new
// prompt gets a new answer). Here in:d0's answer sends "on it - looking at your calendar" through send_message, the
// runner is SIGKILLed right after the send, and in:d1 arrives while it is down: the restarted runner re-forms in:d0
// with both messages and the LLM's new answer closes with that same phrase. While the new answer is being asked for,
// the runner -> tool-server link replays the old call (a duplicate of a delivered message, as chaos's links do). Its
// outbound row is already there, so nothing is sent again, but the tool server records its payload in in:d0's record
// once more. Judging the new answer's closing text by that record would suppress it: the user would never get the
// answer to in:d1 (campaign `fuzz --scenario chaos --seed 99` stopped at run 274 on this, with no-lost-reply). The
// record names the call that sent each payload, and an answer is judged only by its own calls.
import { describe, expect, it } from 'vitest';
import { type BuiltModel, outboundPath, parseTurnSentPayloads, turnSentPayloadsKeyFor } from '../../src/index.ts';
import type { World } from '../../sim/world/index.ts';
import type { ToolCallMessage } from '../../src/tool-server.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { delayRequestsFor, notes, outboundRows, seenByTurn, sendThenKill, session0, withRun } from './support.ts';

const sql = await loadSqlJs();

const { interim, plan, script } = sendThenKill;

/** Replays in:d0's first tool call to the tool server once the re-formed turn has forgotten its earlier answer. */
function replayOldCallAfterForget(sim: Simulation, recordAtResult: string[]): void {
  let oldCall: ToolCallMessage | undefined;
  sim.trace.onEvent((event) => {
    if (event.kind === 'model.tool-call' && oldCall === undefined) {
      const field = (name: string): string => String(event.fields[name]);
      oldCall = { type: 'tool.call', callId: field('call'), sessionKey: field('session'), turnId: field('turn'), name: field('tool') as ToolCallMessage['name'], text: field('text') };
    }
    if (event.kind === 'model.payloads-forgotten') {
      const replayed = oldCall;
      expect(replayed).toBeDefined();
      sim.at(event.timeMs + 100, () => {
        const runner = sim.processes.current('runner');
        expect(runner).toBeDefined();
        if (runner !== undefined && replayed !== undefined) sim.network.send(runner, 'tool-server', replayed);
      });
    }
    if (event.kind === 'model.result') {
      const key = turnSentPayloadsKeyFor('in:d0', false);
      for (const row of sim.sqlite.inspect(outboundPath(session0), `SELECT value FROM session_state WHERE key = '${key}'`)) recordAtResult.push(String(row.value));
    }
  });
}

describe('a replayed tool call of a superseded answer, after its turn re-formed with a new prompt', () => {
  it("lands in the turn's payload record but does not suppress the new answer's closing text", async () => {
    const recordAtResult: string[] = [];
    const input = {
      bugs: [],
      plan,
      script,
      prepare: (sim: Simulation, model: BuiltModel, world: World) => {
        // The new prompt (it carries [m1]) waits 3 s for its answer, so the replay lands while the answer is awaited.
        delayRequestsFor(1, 3_000)(sim, model, world);
        replayOldCallAfterForget(sim, recordAtResult);
      },
    };
    await withRun(sql, input, (result) => {
      expect(notes(result, 'payloads-forgotten')).toHaveLength(1);
      const forgotAtMs = notes(result, 'payloads-forgotten')[0]?.timeMs ?? 0;
      // The replay reached the tool server after the forget and wrote no second row.
      const replays = notes(result, 'tool-sent').filter((note) => note.timeMs > forgotAtMs);
      expect(replays.map((note) => [note.fields.turn, note.fields.text, note.fields.inserted])).toEqual([['in:d0', interim, 0]]);
      // At the result, the record holds the old call's payload again, named by that call (not one of the new answer's).
      expect(recordAtResult).toHaveLength(1);
      const record = parseTurnSentPayloads(recordAtResult[0]);
      expect(record.payloads).toEqual([interim]);
      expect(record.calls?.map((call) => call.text)).toEqual([interim]);
      // The new answer's closing text is dispatched and delivered; the user sees the phrase for each answer.
      const rows = outboundRows(result).filter((row) => row.source === 'result');
      expect(rows.map((row) => [row.inReplyTo, row.text, row.delivered])).toEqual([['in:d0', interim, true]]);
      expect(seenByTurn(result)).toEqual([
        ['in:d0', interim],
        ['in:d0', interim],
      ]);
      expect(result.violations).toEqual([]);
    });
  });
});

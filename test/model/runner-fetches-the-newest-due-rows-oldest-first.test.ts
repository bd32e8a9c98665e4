// nanoclaw's poll loop fetches due rows in batches (container/agent-runner/src/db/messages-in.ts
// getPendingMessages): the newest 10 pending rows that are not already being processed, returned oldest first, and
// runs one query for them only if one has trigger=1 (poll-loop.ts). Here the first turn's LLM call takes 40 s, and
// twelve more messages arrive meanwhile: the next batch is the newest ten of them, oldest first, in one prompt; the
// two oldest wait for the batch after. Context rows (trigger=0, a group message that does not mention the agent)
// start no run of their own and ride along with the next message that does.
import { describe, expect, it } from 'vitest';
import { inboundPath, maxMessagesPerPrompt, outboundPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { BuiltModel } from '../../src/index.ts';
import type { World } from '../../sim/world/index.ts';
import { contextMessage, handPlan, llmPrompts, marker, notes, session0, user, withRun } from './support.ts';

const sql = await loadSqlJs();

/** The LLM takes 40 s to answer the first message (within the sweep's 60 s claim tolerance). */
function slowFirstAnswer(_sim: Simulation, _model: BuiltModel, world: World): void {
  const api = world.modelApi;
  const complete = api.complete.bind(api);
  api.complete = async (request, timers) => {
    if (request.prompt === `question 0 ${marker(0)}`) await timers.sleep(40_000);
    return complete(request, timers);
  };
}

const text = (index: number) => `question ${index} ${marker(index)}`;
const lines = (indices: number[]) => indices.map(text).join('\n');
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe("nanoclaw's batch of due rows", () => {
  it(`takes the newest ${maxMessagesPerPrompt} due rows, oldest first, in one prompt; the older rows wait for the next batch`, async () => {
    const workload = range(0, 12).map((index) => user(index === 0 ? 1_000 : 5_000 + index * 1_000, `question ${index}`));
    await withRun(sql, { bugs: [], plan: handPlan(workload), prepare: slowFirstAnswer }, (result) => {
      expect(llmPrompts(result)).toEqual([text(0), lines(range(3, 12)), lines([1, 2])]);
      expect(notes(result, 'turn-start').map((note) => [note.fields.turn, note.fields.members])).toEqual([
        ['in:d0', 1],
        ['in:d3', 10],
        ['in:d1', 2],
      ]);
      // Every claim was completed; the host synced each row to completed; nothing is left processing.
      expect(result.sim.sqlite.inspect(outboundPath(session0), "SELECT COUNT(*) AS n FROM processing_ack WHERE status = 'completed'")[0]?.n).toBe(13);
      expect(result.sim.sqlite.inspect(inboundPath(session0), "SELECT COUNT(*) AS n FROM messages_in WHERE status = 'completed'")[0]?.n).toBe(13);
      expect(result.violations).toEqual([]);
    });
  });

  it('starts no run for context rows alone; they ride along, oldest first, with the next message that mentions the agent', async () => {
    const context = contextMessage;
    const plan = handPlan([context(1_000, 'we could go on friday'), context(3_000, 'or saturday'), user(20_000, 'which day suits you?')]);
    await withRun(sql, { bugs: [], plan }, (result) => {
      const triggers = result.sim.sqlite.inspect(inboundPath(session0), 'SELECT trigger FROM messages_in ORDER BY seq').map((row) => Number(row.trigger));
      expect(triggers).toEqual([0, 0, 1]);
      expect(result.ledger.requests.map((request) => request.atMs >= 20_000)).toEqual([true]);
      expect(llmPrompts(result)).toEqual([`we could go on friday ${marker(0)}\nor saturday ${marker(1)}\nwhich day suits you? ${marker(2)}`]);
      expect(result.violations).toEqual([]);
    });
  });
});

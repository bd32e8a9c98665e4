// A partial stream (the LLM API's connection breaks after the whole closing text has streamed) under Hermes' gateway:
// the agent's recovery takes the streamed text as its final response and appends no assistant message, so the run's
// new messages carry no reply and the gateway backfills it to state.db with skip_db off (#44100), before the reply is
// sent. The checkers see one assistant row for the visible reply. Hermes' gateway before that fix (`no-backfill`)
// leaves the visible reply with no row in state.db, which `one-assistant-row-per-visible-reply` catches. A runner
// killed between the backfill and the dispatch resumes from the backfilled row and sends the reply once. The
// recovered reply's JSONL entry follows its backfilled row: when the backfill fails and a message joins the retried
// turn, the new answer's entry is the turn's (an entry written first stood for the replaced answer, chaos seed 5).
import { describe, expect, it, vi } from 'vitest';
import type { BuiltModel, GatewayAppendMode } from '../../src/index.ts';
import type { DbMessage } from '../../src/session-db.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { Plan } from '../../sim/run/plan.ts';
import type { World } from '../../sim/world/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { interim, secondReply, twoTurns, twoTurnScript } from '../checkers/support.ts';
import { invariants, marker, notes, rowWriteBusyOnce, seenByTurn, session0, stateRows, transcript, withRun, withoutTrailer } from './support.ts';

const sql = await loadSqlJs();

function withAppend(gatewayAppend: GatewayAppendMode): Plan {
  return { ...twoTurns, secondWriters: { deliveryMirror: 'off', gatewayAppend } };
}

/** A `prepare` hook: the first answer to a prompt carrying message 1's marker comes by a stream cut after its text. */
function cutStreamFor1(sim: Simulation, _model: BuiltModel, world: World, killAfterBackfill = false): void {
  const api = world.modelApi;
  const complete = api.complete.bind(api);
  let cut = false;
  api.complete = async (request, timers) => {
    const answer = await complete(request, timers);
    if (cut || !request.prompt.includes(marker(1))) return answer;
    cut = true;
    return { ...answer, streamCut: true };
  };
  if (!killAfterBackfill) return;
  let killed = false;
  sim.trace.onEvent((event) => {
    if (killed || event.kind !== 'model.gateway-append' || event.fields.backfilled !== 1) return;
    killed = true;
    sim.scheduler.schedule(0, () => {
      if (sim.kill('runner')) sim.restart('runner', 2_000);
    });
  });
}

/** The final assistant rows (no tool calls) of turn in:d1 in state.db. */
function finalRowsOfSecondTurn(result: Parameters<typeof stateRows>[0]): string[] {
  return stateRows(result)
    .filter((row) => row.turnId === 'in:d1' && row.role === 'assistant' && row.toolCalls === null)
    .map((row) => withoutTrailer(row.content));
}

describe("a partial stream's recovered reply under Hermes' gateway", () => {
  it('is backfilled to state.db by the gateway before it is sent: one row, no violation', async () => {
    await withRun(sql, { bugs: [], plan: withAppend('skip-db'), script: twoTurnScript, prepare: (sim, model, world) => cutStreamFor1(sim, model, world) }, (result) => {
      expect(notes(result, 'stream-recovered').map((note) => note.fields.turn)).toEqual(['in:d1']);
      const appends = notes(result, 'gateway-append');
      expect(appends.map((note) => [note.fields.path, note.fields.toDb, note.fields.backfilled])).toEqual([
        ['run', 0, 0],
        ['run', 1, 1],
      ]);
      // The backfill is durable before the result is dispatched (Hermes appends before its adapter sends).
      const backfillAt = result.sim.trace.events.findIndex((event) => event.kind === 'model.gateway-append' && event.fields.backfilled === 1);
      const resultAt = result.sim.trace.events.findIndex((event) => event.kind === 'model.result' && event.fields.turn === 'in:d1');
      expect(backfillAt).toBeGreaterThan(-1);
      expect(resultAt).toBeGreaterThan(backfillAt);
      expect(finalRowsOfSecondTurn(result)).toEqual([`<message to="user">${secondReply}</message>`]);
      expect(Object.values(result.coverage['append-backfill']).reduce((sum, count) => sum + count, 0)).toBe(1);
      expect(seenByTurn(result).filter(([turn]) => turn === 'in:d1').map(([, text]) => text)).toEqual([interim, secondReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it('without the backfill (Hermes before #44100) the visible reply has no row: one-assistant-row-per-visible-reply', async () => {
    await withRun(sql, { bugs: [], plan: withAppend('no-backfill'), script: twoTurnScript, prepare: (sim, model, world) => cutStreamFor1(sim, model, world) }, (result) => {
      expect(notes(result, 'stream-recovered')).toHaveLength(1);
      expect(finalRowsOfSecondTurn(result)).toEqual([]);
      expect(seenByTurn(result).filter(([turn]) => turn === 'in:d1').map(([, text]) => text)).toEqual([interim, secondReply]);
      expect(invariants(result)).toEqual(['one-assistant-row-per-visible-reply']);
    });
  });

  it('survives a runner kill between the backfill and the dispatch: the restarted runner resumes from the row', async () => {
    await withRun(sql, { bugs: [], plan: withAppend('skip-db'), script: twoTurnScript, prepare: (sim, model, world) => cutStreamFor1(sim, model, world, true) }, (result) => {
      expect(result.sim.trace.events.filter((event) => event.kind === 'proc.kill' && event.fields.name === 'runner')).toHaveLength(1);
      // The resumed turn asked the LLM nothing more: its answer is the backfilled row.
      expect(notes(result, 'answer').filter((note) => note.fields.turn === 'in:d1').map((note) => note.fields.resumed)).toEqual([false, true]);
      expect(finalRowsOfSecondTurn(result)).toEqual([`<message to="user">${secondReply}</message>`]);
      expect(seenByTurn(result).filter(([turn]) => turn === 'in:d1').map(([, text]) => text)).toEqual([interim, secondReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it("when the backfill fails and a message joins the retry, the new answer's entry is on the JSONL branch", async () => {
    // m1's first answer comes by a stream cut; the gateway's backfill of it finds state.db locked, so the attempt
    // fails, and m2 arrives while the turn waits to retry (interrupt mode: it joins the retried turn). The LLM is asked
    // a new prompt, and its answer is the one shown. Had the recovered reply's entry gone to the JSONL before its row,
    // the turn's branch would hold the replaced answer's entry and none for the reply the user saw.
    const plan = { ...twoTurns, queueModes: ['interrupt' as const], secondWriters: { deliveryMirror: 'off' as const, gatewayAppend: 'skip-db' as const } };
    const backfillBusyOnce = (sim: Simulation, model: BuiltModel, world: World): void => {
      cutStreamFor1(sim, model, world);
      const backfill = (row: DbMessage): boolean => row.role === 'assistant' && row.toolCalls === null && row.content.includes(secondReply);
      rowWriteBusyOnce(backfill, () => sim.scheduler.schedule(500, () => world.platform.userSays(session0, 'd2', `and a third ${marker(2)}`, marker(2))))(sim, model, world);
    };
    try {
      await withRun(sql, { bugs: [], plan, script: twoTurnScript, prepare: backfillBusyOnce }, (result) => {
        expect(notes(result, 'stream-recovered')).toHaveLength(1);
        // The retried turn asked a prompt carrying both messages; its answer is the one shown for them.
        const joint = result.ledger.answers.filter((answer) => answer.prompt.includes(marker(1)) && answer.prompt.includes(marker(2)));
        expect(joint).toHaveLength(1);
        const finals = transcript(result).filter((entry) => entry.turnId === 'in:d1' && entry.message.role === 'assistant' && entry.message.toolCalls === undefined);
        expect(finals.map((entry) => entry.message.content)).toEqual([joint[0]?.result]);
        expect(result.violations).toEqual([]);
      });
    } finally {
      vi.restoreAllMocks();
    }
  });
});

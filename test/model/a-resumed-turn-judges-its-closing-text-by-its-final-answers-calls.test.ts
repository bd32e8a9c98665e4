// A retry asks the LLM the same prompt again and may get another answer. Here in:d18's second attempt got an answer
// whose first call, send_message("Looking it up"), was sent and shown before the attempt failed; its third attempt got
// a new answer (one send_file call) closing with "Looking it up", committed that final row, and failed before it
// dispatched it. Every later attempt resumes from the durable final row and replays the durable calls between the
// prompt and the final: the superseded answer's send_message too (idempotent by its call id). The record used to be
// read with every replayed call as the final's own, so the closing text was dropped as a repeat of a payload only the
// superseded answer sent, and the new answer's text was never shown (no-lost-reply; chaos with send-heavy runs, seed 1
// run 52, and seed 2 run 12,778 on the same kind). The new answer now names its calls in the turn's record before its
// final row is committed, when a superseded answer left durable calls beside them, and a resumed turn judges its
// closing text by those. The user sees the phrase once for each answer.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

describe("a resumed turn's closing text", () => {
  it("is judged by its final answer's calls, not a superseded answer's replayed call", async () => {
    await withFrozenPlan(sql, 'closing-text-left-out-as-an-earlier-attempts-payload', (result) => {
      expect(result.violations).toEqual([]);
      const events = result.sim.trace.events;
      const ofTurn = (kind: string) => events.filter((event) => event.kind === kind && event.fields.turn === 'in:d18');
      // The new answer named its one call; one superseded call was durable beside it.
      const kept = ofTurn('model.answer-calls-kept');
      expect(kept.map((event) => [event.fields.calls, event.fields.superseded])).toEqual([[1, 1]]);
      const keptAt = kept[0]?.index ?? Infinity;
      // A resumed attempt then replayed the superseded answer's send_message of the closing text's phrase.
      const resumed = ofTurn('model.answer').filter((event) => event.index > keptAt && event.fields.resumed === true);
      expect(resumed.length).toBeGreaterThan(0);
      const replayed = ofTurn('model.tool-call').filter((event) => event.index > keptAt && event.fields.tool === 'send_message');
      expect(replayed.map((event) => event.fields.text)).toContain('Looking it up');
      // The closing text is dispatched, and the user sees the phrase for each answer: the call's and the result's.
      const results = ofTurn('model.result');
      expect(results.map((event) => event.fields.kept)).toEqual([JSON.stringify(['Looking it up'])]);
      const shown = result.ledger.shown.filter((fact) => fact.sessionKey === 'agent:main:chat:0' && fact.text === 'Looking it up' && fact.atMs >= (ofTurn('model.turn-start')[0]?.timeMs ?? Infinity));
      expect(shown.length).toBe(2);
      expect(shown.every((fact) => fact.kind === 'chat')).toBe(true);
    });
  });

  it('is dispatched on the second plan of the kind too', async () => {
    await withFrozenPlan(sql, 'closing-text-left-out-as-an-earlier-attempts-payload-seed-2', (result) => {
      expect(result.violations).toEqual([]);
      expect(result.sim.trace.events.filter((event) => event.kind === 'model.answer-calls-kept').length).toBeGreaterThan(0);
    });
  });
});

// Hermes' processing mode (issue 24 item 7, plan.processing 'hermes'): the gateway runs one platform message per run;
// the agent retries a failed LLM call within its run (run_agent.py: max_retries 3, jittered backoff from 2 s); a run
// that still fails ends at that first failure and the gateway answers it with the error (gateway/run.py: a failed
// result with no final response becomes an error reply). nanoclaw's runner, the default, runs the whole turn again
// instead, and batches the due messages. The sabotage is Hermes before it surfaced a failed run's error
// ('hermes-silent': the run ends and nothing is sent), caught by every-inbound-answered, which reads only the ledger.
import { describe, expect, it } from 'vitest';
import { errorReply, LlmTransientError, type BuiltModel } from '../../src/index.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { Plan } from '../../sim/run/plan.ts';
import type { World } from '../../sim/world/index.ts';
import { llmPrompts, handPlan, invariants, marker, notes, user, visible, withRun } from './support.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';

const sql = await loadSqlJs();

/**
 * A `prepare` hook: the first `count` requests carrying message `index` fail (a 503 after 500 ms; Infinity: every one),
 * before the LLM API sees them (the ledger records none of them); `asked` collects every prompt carrying it.
 */
function failRequestsFor(index: number, count: number, asked: string[] = []): (sim: Simulation, model: BuiltModel, world: World) => void {
  return (_sim, _model, world) => {
    const api = world.modelApi;
    const complete = api.complete.bind(api);
    let failed = 0;
    api.complete = async (request, timers) => {
      if (request.prompt.includes(marker(index))) asked.push(request.prompt);
      if (failed >= count || !request.prompt.includes(marker(index))) return complete(request, timers);
      failed++;
      await timers.sleep(500);
      throw new LlmTransientError('503 overloaded');
    };
  };
}

const hermes = (plan: Plan, processing: Plan['processing'] = 'hermes'): Plan => ({ ...plan, processing });
const one = handPlan([user(1_000, 'can you check calendar?')]);
const shown = (result: Parameters<typeof invariants>[0]): string[] => visible(result).map((message) => message.text);

describe("Hermes' processing mode", () => {
  it('retries a failed LLM call within the run, and the run answers', async () => {
    const asked: string[] = [];
    await withRun(sql, { bugs: [], plan: hermes(one), prepare: failRequestsFor(0, 2, asked) }, (result) => {
      expect(notes(result, 'agent-retry').map((note) => note.fields.retry)).toEqual([1, 2]);
      // One run, asked three times (the same prompt), never run again by the runner.
      expect(notes(result, 'turn-start').map((note) => note.fields.attempt)).toEqual([1]);
      expect(asked).toHaveLength(3);
      expect(new Set(asked).size).toBe(1);
      expect(notes(result, 'turn-failed-first')).toEqual([]);
      expect(shown(result)).not.toContain(errorReply);
      expect(Object.values(result.coverage['agent-retry']).reduce((sum, count) => sum + count, 0)).toBe(2);
      expect(result.violations).toEqual([]);
    });
  });

  it('ends the run at the first failure the agent cannot retry, answered once with the error reply and never asked again', async () => {
    const asked: string[] = [];
    await withRun(sql, { bugs: [], plan: hermes(one), prepare: failRequestsFor(0, Infinity, asked) }, (result) => {
      // The first call and the agent's three retries, then the run is over: the gateway answers with the error.
      expect(asked).toHaveLength(4);
      expect(notes(result, 'turn-failed-first')).toHaveLength(1);
      expect(notes(result, 'turn-start').map((note) => note.fields.attempt)).toEqual([1, 2]);
      expect(shown(result)).toEqual([errorReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it("nanoclaw's runner, the default, runs the failing turn five times before the error reply", async () => {
    const asked: string[] = [];
    await withRun(sql, { bugs: [], plan: one, prepare: failRequestsFor(0, Infinity, asked) }, (result) => {
      expect(notes(result, 'agent-retry')).toEqual([]);
      expect(asked).toHaveLength(5);
      expect(shown(result)).toEqual([errorReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it('runs one platform message per run where nanoclaw batches the due ones', async () => {
    const two = handPlan([user(1_000, 'can you check calendar?'), user(1_001, 'and the weather?')]);
    const markersPerPrompt = (result: Parameters<typeof invariants>[0]): number[] => llmPrompts(result).map((prompt) => (prompt.match(/\[m\d+\]/g) ?? []).length);
    await withRun(sql, { bugs: [], plan: two }, (result) => {
      expect(markersPerPrompt(result)).toEqual([2]);
      expect(result.violations).toEqual([]);
    });
    await withRun(sql, { bugs: [], plan: hermes(two) }, (result) => {
      expect(markersPerPrompt(result)).toEqual([1, 1]);
      expect(result.violations).toEqual([]);
    });
  });

  it('a run that ends at its failure without telling the user leaves the message unanswered: every-inbound-answered fires', async () => {
    await withRun(sql, { bugs: [], plan: hermes(one, 'hermes-silent'), prepare: failRequestsFor(0, Infinity) }, (result) => {
      expect(notes(result, 'turn-failed-first')).toHaveLength(1);
      expect(shown(result)).toEqual([]);
      expect(invariants(result)).toContain('every-inbound-answered');
    });
  });
});

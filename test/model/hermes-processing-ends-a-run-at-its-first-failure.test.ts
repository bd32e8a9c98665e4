// Hermes' processing mode (issue 24 item 7, plan.processing 'hermes'): the gateway runs one platform message per run;
// the agent retries a failed LLM call within its run (run_agent.py: max_retries 3, jittered backoff from 2 s); a run
// that still fails ends at that first failure and the gateway answers it with the error (gateway/run.py: a failed
// result with no final response becomes an error reply). nanoclaw's runner, the default, runs the whole turn again
// instead, and batches the due messages. The sabotage is Hermes before it surfaced a failed run's error
// ('hermes-silent': the run ends and nothing is sent), caught by every-inbound-answered, which reads only the ledger.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorReply, LlmTransientError, type BuiltModel } from '../../src/index.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { Plan } from '../../sim/run/plan.ts';
import type { World } from '../../sim/world/index.ts';
import { forMessage, llmPrompts, handPlan, invariants, marker, notes, reply, rowWriteBusyOnce, user, visible, withRun } from './support.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';

const sql = await loadSqlJs();

afterEach(() => vi.restoreAllMocks());

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
      expect(Object.values(result.coverage['first-failure-end']).reduce((sum, count) => sum + count, 0)).toBe(1);
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

  const finalRowOfM0 = (row: { role: string; toolCalls: string | null; content: string }): boolean => row.role === 'assistant' && row.toolCalls === null && row.content.includes('on it');

  it("sends a failed run's error reply before the next message's run asks the LLM", async () => {
    // m0's answer is all in its tool message (its closing text repeats it); the write of its final row is busy, so the
    // run ends at that first failure. m1 came meanwhile; the platform's link is held while m0's error reply is on its
    // way. Hermes' adapter sends a run's response before the chat's pending message runs (base.py), so m1's run waits
    // for the delivery (before it did not, and chaos seed 101 run 205 met the race the attribution then misread).
    const script = forMessage({ 0: { toolCalls: [{ name: 'send_message', text: 'on it' }], result: reply('on it') }, 1: { toolCalls: [], result: reply('sunny') } });
    // The platform's link is held from 2.9 s to 3.7 s: the error reply waits on it while m1's request is in flight.
    const plan = hermes(handPlan([user(1_000, 'can you check calendar?'), user(2_000, 'and the weather?')], [{ kind: 'hold', atMs: 2_900, link: 0, releaseAfterMs: 800 }]));
    await withRun(sql, { bugs: [], plan, script, prepare: rowWriteBusyOnce(finalRowOfM0) }, (result) => {
      expect(notes(result, 'turn-failed-first')).toHaveLength(1);
      expect(shown(result)).toEqual(['on it', errorReply, 'sunny']);
      const errorShownAtMs = result.ledger.shown.find((fact) => fact.text === errorReply)?.atMs ?? 0;
      const m1Asked = result.ledger.requests.find((request) => request.prompt.includes(marker(1)));
      expect(m1Asked?.atMs).toBeGreaterThan(errorShownAtMs);
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

// context-holds-durable-turns (sim/checkers/context.ts, issue 44 item 5): Hermes' dashboard, a second writer of state.db,
// appends a turn to the session between two chat turns; the runner's cached agent must be rebuilt (the session's message
// count changed) or its next request replays the stale history. With the fake LLM's history-naming answers on, the stale
// answer says so in the durable transcript as well. Able to pass (the fixed cache's count check) and able to fail (the
// sabotage `agentCacheCoherence: 'none'`, Hermes before #46095).
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Plan, WorkloadStep } from '../../sim/run/plan.ts';
import { contextToken } from '../../sim/world/index.ts';
import { handPlan, invariants, notes, session0, stateRows, user, withFrozenPlan, withRun } from '../model/support.ts';

const sql = await loadSqlJs();

const dashboardTurn: WorkloadStep = { kind: 'dashboard', atMs: 30_000, session: 0, text: 'note on the calendar' };

/** A chat turn, a dashboard turn, then a second chat turn on the same cached agent. */
function plan(coherence?: 'none'): Plan {
  return { ...handPlan([user(1_000, 'first question'), dashboardTurn, user(60_000, 'second question')]), contextAnswers: true, ...(coherence === undefined ? {} : { agentCacheCoherence: coherence }) };
}

describe('every request context holds the durable turns committed before it was built', () => {
  it('passes the fixed cache: the dashboard turn makes the cached agent rebuild, and the next answer names it', async () => {
    await withRun(sql, { bugs: [], plan: plan() }, (result) => {
      expect(result.violations).toEqual([]);
      const dashboard = result.ledger.dashboardTurns[0];
      expect(dashboard?.shownAtMs).not.toBeNull();
      expect(notes(result, 'agent-rebuilt').map((note) => note.fields.reason)).toEqual(['another-writer']);
      const second = result.ledger.requests.find((request) => request.prompt.includes('[m2]'));
      expect(second?.context.map((message) => message.content)).toContain(dashboard?.answer);
      // The second turn's durable answer names the newest answer it saw: the dashboard's.
      const rows = stateRows(result, session0).filter((row) => row.role === 'assistant').map((row) => row.content);
      expect(rows.at(-1)).toContain(`after ${contextToken([{ role: 'assistant', content: dashboard?.answer ?? '' }])})`);
    });
  });

  it('fails a cached agent that skips the rebuild (Hermes before #46095): the stale context is caught, and the answer names the stale turn', async () => {
    await withRun(sql, { bugs: [], plan: plan('none') }, (result) => {
      expect(invariants(result)).toEqual(['context-holds-durable-turns']);
      expect(result.violations[0]?.message).toMatch(/built after dashboard turn \[w1\] was durable .* lacks its answer \("note \d+ \[c[0-9a-f]{8}\]"\)/);
      expect(notes(result, 'agent-rebuilt')).toEqual([]);
      const first = result.ledger.answers.find((answer) => answer.prompt.includes('[m0]'));
      const rows = stateRows(result, session0).filter((row) => row.role === 'assistant').map((row) => row.content);
      expect(rows.at(-1)).toContain(`after ${contextToken([{ role: 'assistant', content: first?.result ?? '' }])})`);
    });
  });

  it('leaves every answer as before when the plan does not ask for history-naming answers', async () => {
    await withRun(sql, { bugs: [], plan: { ...plan(), contextAnswers: false } }, (result) => {
      expect(result.violations).toEqual([]);
      expect(result.ledger.answers.every((answer) => /\n\(reply [0-9a-f]{8}\)$/.test(answer.result))).toBe(true);
    });
  });

  // Chaos seed 3, run 2332 (fixed model, frozen): an answer's closing text repeated its own send_message payload
  // ("interim update"); the tool message was shown at 25.6 s, before the final row was written, and was taken for the
  // final row's commit, so a dashboard request built at 50.3 s was judged to lack it. A block equal to a tool payload
  // (the answer's own included) bounds no commit.
  it('takes no showing of a tool payload for the commit of a closing text that repeats it (chaos seed 3, run 2332)', async () => {
    await withFrozenPlan(sql, 'closing-text-repeats-its-own-tool-payload-with-the-dashboard', (result) => {
      const repeated = result.ledger.answers.find((answer) => answer.result.includes('<message to="user">interim update</message>') && answer.toolCalls.some((call) => call.text === 'interim update'));
      expect(repeated).toBeDefined();
      expect(result.ledger.dashboardTurns.length).toBeGreaterThan(0);
      expect(result.violations).toEqual([]);
    });
  });
});

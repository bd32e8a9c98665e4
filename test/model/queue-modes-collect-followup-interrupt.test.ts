// OpenClaw's per-session queue modes for messages that arrive while a run is active (docs/MODEL.md). m0's model call
// is slow (10 s); m1 and m2 arrive during it.
// - collect (the default): the queued m1 and m2 are merged into one next run;
// - followup: each gets a run of its own, in order;
// - interrupt: m1 aborts m0's run once its answer is in (OpenClaw aborts the call at once; the model's runner drops
//   the answer at its next step); the aborted run emits nothing of its own, and one new run answers all three.
import { describe, expect, it } from 'vitest';
import { clearedReply } from '../../src/index.ts';
import type { QueueMode } from '../../sim/run/plan.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { delayRequestsFor, handPlan, invariants, marker, reply, user, withRun } from './support.ts';

const sql = await loadSqlJs();

const plan = (mode: QueueMode) => ({ ...handPlan([user(1_000, 'first question'), user(3_000, 'second question'), user(4_000, 'third question')]), queueModes: [mode] });

/** Every answer names the messages its prompt carried. */
const script = (request: { prompt: string }) => {
  const carried = [0, 1, 2].filter((index) => request.prompt.includes(marker(index)));
  return { toolCalls: [], result: reply(`answer to ${carried.map((index) => `m${index}`).join('+')}`) };
};

/** m0's first model call takes 10 s. */
const slowFirst = delayRequestsFor(0, 10_000, true);

const carriedBy = (prompts: readonly string[]) => prompts.map((prompt) => [0, 1, 2].filter((index) => prompt.includes(marker(index))).map((index) => `m${index}`).join('+'));

describe('queue modes', () => {
  it('collect merges the messages queued behind a run into the next run', async () => {
    await withRun(sql, { bugs: [], plan: plan('collect'), script, prepare: slowFirst }, (result) => {
      expect(carriedBy(result.ledger.requests.map((request) => request.prompt))).toEqual(['m0', 'm1+m2']);
      expect(result.ledger.shown.map((fact) => fact.text)).toEqual(['answer to m0', 'answer to m1+m2']);
      expect(result.violations).toEqual([]);
    });
  });

  it('followup gives each queued message a run of its own, in order', async () => {
    await withRun(sql, { bugs: [], plan: plan('followup'), script, prepare: slowFirst }, (result) => {
      expect(carriedBy(result.ledger.requests.map((request) => request.prompt))).toEqual(['m0', 'm1', 'm2']);
      expect(result.ledger.shown.map((fact) => fact.text)).toEqual(['answer to m0', 'answer to m1', 'answer to m2']);
      expect(result.violations).toEqual([]);
    });
  });

  it('interrupt aborts the active run, which shows nothing, and one new run answers every message', async () => {
    await withRun(sql, { bugs: [], plan: plan('interrupt'), script, prepare: slowFirst }, (result) => {
      expect(carriedBy(result.ledger.requests.map((request) => request.prompt))).toEqual(['m0', 'm0+m1+m2']);
      // The aborted run's answer came back, and the user never saw it.
      expect(result.ledger.answers.map((answer) => answer.result.split('\n')[0])).toEqual([reply('answer to m0'), reply('answer to m0+m1+m2')]);
      expect(result.ledger.shown.map((fact) => fact.text)).toEqual(['answer to m0+m1+m2']);
      expect(result.sim.trace.events.filter((event) => event.kind === 'model.turn-aborted')).toHaveLength(1);
      expect(result.coverage['interrupt-abort'].abort).toBe(1);
      expect(invariants(result)).toEqual([]);
    });
  });

  it('interrupt does not abort a run for a message behind a /clear (it waits for the /clear, which waits for the run)', async () => {
    // Aborting for m2 would re-form m0's turn without it (the batch stops at the command) and abort it again, for ever.
    const behindClear = { ...handPlan([user(1_000, 'first question'), { kind: 'clear' as const, atMs: 3_000, session: 0 }, user(4_000, 'third question')]), queueModes: ['interrupt' as const] };
    await withRun(sql, { bugs: [], plan: behindClear, script, prepare: slowFirst }, (result) => {
      expect(result.ledger.shown.map((fact) => fact.text)).toEqual(['answer to m0', clearedReply, 'answer to m2']);
      expect(result.sim.trace.events.filter((event) => event.kind === 'model.turn-aborted')).toHaveLength(0);
      expect(invariants(result)).toEqual([]);
    });
  });

  it('interrupt leaves a run alone when nothing new arrives', async () => {
    const quiet = { ...handPlan([user(1_000, 'first question'), user(60_000, 'second question')]), queueModes: ['interrupt' as const] };
    await withRun(sql, { bugs: [], plan: quiet, script, prepare: slowFirst }, (result) => {
      expect(result.ledger.shown.map((fact) => fact.text)).toEqual(['answer to m0', 'answer to m1']);
      expect(result.sim.trace.events.filter((event) => event.kind === 'model.turn-aborted')).toHaveLength(0);
      expect(result.coverage['interrupt-abort'].abort).toBe(0);
    });
  });
});

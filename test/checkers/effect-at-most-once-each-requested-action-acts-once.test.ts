// effect-at-most-once (issue 23 item 3): the agent's create_event tool acts on a calendar of the world, which records
// every effect in the ledger. Each action the LLM requested takes effect at most once, and never after the user was
// shown the error reply for the request that asked for it.
// - scripted: an event created twice (under two keys) is caught; once is clean; an event created two minutes after
//   the error reply for its message is caught, the same event created before the showing passes;
// - model runs: the fixed tool server passes the API's tool-call id to the calendar as its idempotency key, so a
//   call the runner replays after a crash (the runner killed the moment the calendar confirmed) acts once; a tool path
//   that re-executes the resumed call under a fresh key (as nanoclaw's MCP tools draw a new id per execution) creates
//   the event twice and is caught.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { checkEffects } from '../../sim/checkers/effects.ts';
import { Placement } from '../../sim/checkers/placement.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { forMessage, handPlan, invariants, reply, user, withRun } from '../model/support.ts';
import { KeylessHistory, session } from './keyless-history.ts';
import type { Prepare } from './support.ts';

const sql = await loadSqlJs();
const errorReply = 'Sorry, something went wrong. Please try again.';
const event = 'team sync at 10:00 [e1]';

function judge(history: KeylessHistory): Violation[] {
  const o = history.observations();
  const out: Violation[] = [];
  checkEffects(o, attributeAll(o), out, new Placement(o));
  return out;
}

/** m1 asks for a booking; the LLM answers with a create_event call at 1.5 s. */
function asked(): KeylessHistory {
  const history = new KeylessHistory();
  history.userTypes(1_000, 'm1', 'book the team sync');
  const request = history.ledger.requestReceived(session, 'book the team sync <m1>', 1_100);
  history.ledger.answerReturned(request, { toolCalls: [{ id: 'toolu_1', name: 'create_event', text: event }], result: reply(event) }, 1_500);
  return history;
}

function effect(history: KeylessHistory, atMs: number, key: string): void {
  history.ledger.effectTaken({ sessionKey: session, service: 'calendar', key, text: event, atMs });
}

describe('effect-at-most-once (scripted)', () => {
  it('passes one effect per requested action', () => {
    const history = asked();
    effect(history, 1_600, 'toolu_1');
    history.sendsAndShows(2_000, event);
    expect(judge(history)).toEqual([]);
  });

  it('catches an action that took effect twice, under two keys', () => {
    const history = asked();
    effect(history, 1_600, 'toolu_1');
    effect(history, 9_000, 'toolu_1#2');
    const violations = judge(history);
    expect(violations.map((violation) => violation.invariant)).toEqual(['effect-at-most-once']);
    expect(violations[0]?.message).toContain('took effect 2 times');
    expect(violations[0]?.timeMs).toBe(9_000);
  });

  it('catches an effect no tool call requested', () => {
    const history = asked();
    history.ledger.effectTaken({ sessionKey: session, service: 'calendar', key: 'k', text: 'dentist at 9:00 [e2]', atMs: 1_600 });
    effect(history, 1_700, 'toolu_1');
    expect(judge(history).map((violation) => violation.message)).toEqual([expect.stringContaining('which no LLM tool call requested')]);
  });

  it('catches an action that took effect after the user was shown the error reply for its message', () => {
    const history = asked();
    history.sendsAndShows(30_000, errorReply);
    effect(history, 150_000, 'toolu_1');
    const violations = judge(history);
    expect(violations).toHaveLength(1);
    expect(violations[0]?.message).toContain('error reply for message <m1>');
    expect(violations[0]?.timeMs).toBe(150_000);
  });

  it('passes the same action taken before the error reply was shown', () => {
    const history = asked();
    effect(history, 29_000, 'toolu_1');
    history.sendsAndShows(30_000, errorReply);
    expect(judge(history)).toEqual([]);
  });
});

/** m0 at 1 s asks for a booking: the LLM creates the event and confirms it in its closing text. */
const booking: Plan = { ...handPlan([user(1_000, 'book the team sync')]), model: { ...handPlan([]).model, effectToolPer1000: 0 } };
const script = forMessage({ 0: { toolCalls: [{ name: 'create_event', text: event }], result: reply(event) } });

/** The runner is killed the moment the calendar confirms the first event (restarted 1 s later): the turn resumes. */
const killRunnerAtFirstEffect: Prepare = (sim) => {
  const send = sim.network.send.bind(sim.network);
  let done = false;
  sim.network.send = (sender, to, payload) => {
    send(sender, to, payload);
    if (done || (payload as { type?: unknown }).type !== 'event.created') return;
    done = true;
    sim.processes.kill('runner');
    sim.processes.restart('runner', 1_000);
  };
};

/** A tool path that re-executes a call under a fresh key each time (nanoclaw's MCP tools draw a new id per execution). */
const freshKeyPerExecution: Prepare = (sim) => {
  const send = sim.network.send.bind(sim.network);
  let executions = 0;
  sim.network.send = (sender, to, payload) => {
    // The service's confirmation names the key it was sent; the tool path maps it back to its call.
    const message = payload as { type?: unknown; key?: unknown };
    if (message.type === 'event.create') send(sender, to, { ...message, key: `${String(message.key)}#${++executions}` });
    else if (message.type === 'event.created') send(sender, to, { ...message, key: String(message.key).replace(/#\d+$/, '') });
    else send(sender, to, payload);
  };
};

describe('an action on the world in the attribution', () => {
  it('offers the user nothing to see: its call is no slot, and no evidence that the closing text went out', () => {
    // The closing text names the event (the fake LLM confirms what it booked): its slot is the block's alone, so the
    // calendar's tool-result row in state.db is not read as a sign that the confirmation was dispatched.
    const attribution = attributeAll(asked().observations()).get(session);
    const answer = attribution?.answers[0];
    expect(answer?.slots.map((slot) => slot.text)).toEqual([event]);
    expect(answer?.slots[0]?.toolCalls).toEqual([]);
  });
});

describe('effect-at-most-once in a model run', () => {
  it('the fixed tool path creates the event once, and the user sees its confirmation', async () => {
    await withRun(sql, { bugs: [], plan: booking, script }, (result) => {
      expect(result.ledger.effects.map((fact) => fact.text)).toEqual([event]);
      expect(result.ledger.shown.map((fact) => fact.text)).toEqual([event]);
      expect(result.violations).toEqual([]);
    });
  });

  it('the fixed tool path acts once when the runner resumes the call after a crash', async () => {
    await withRun(sql, { bugs: [], plan: booking, script, prepare: killRunnerAtFirstEffect }, (result) => {
      // The resumed turn asked the calendar again (the replayed call), and the key made it no second effect.
      expect(result.sim.trace.events.filter((e) => e.kind === 'net.send' && e.fields.kind === 'event.create').length).toBeGreaterThanOrEqual(2);
      expect(result.ledger.effects).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('catches a tool path that re-executes the resumed call under a fresh key', async () => {
    await withRun(sql, { bugs: [], plan: booking, script, prepare: (sim, model, world) => (freshKeyPerExecution(sim, model, world), killRunnerAtFirstEffect(sim, model, world)) }, (result) => {
      expect(result.ledger.effects.map((fact) => fact.key)).toHaveLength(2);
      expect(invariants(result)).toEqual(['effect-at-most-once']);
    });
  });
});

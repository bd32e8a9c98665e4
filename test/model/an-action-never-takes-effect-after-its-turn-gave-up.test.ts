// A tool call that acts on the world (create_event) carries a deadline, derived from its carrier row in state.db
// (src/tool-deadline.ts): the tool server refuses a call that reaches it later, and a turn that gives up first waits
// until every such call of its session, a killed predecessor's included, has passed its deadline. Without it a stale
// call acted after the user was shown the error reply for the message that asked for it (effect-at-most-once): chaos
// found a call queued at a tool server that was slow to start, carried out 38 s after the error reply. The old tool
// path stays reachable as the `none` sabotage (Plan.toolDeadlines), and each shape below catches it.
import { describe, expect, it } from 'vitest';
import { type BuiltModel, inboundPath } from '../../src/index.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import type { Plan } from '../../sim/run/plan.ts';
import type { World } from '../../sim/world/index.ts';
import { forMessage, handPlan, invariants, notes, reply, type RunInput, session0, user, visible, withFrozenPlan, withRun } from './support.ts';

const sql = await loadSqlJs();
const errorReply = 'Sorry, something went wrong. Please try again.';
const event = 'team sync at 10:00 [e1]';

const sabotaged = (plan: Plan): Plan => ({ ...plan, toolDeadlines: 'none' });

// Found as gs2.chaos.none.1577943651.0-10-4-3-7-9-3-3-6-4-3-13-4-5-4-6-9-9-13-8-8-8-8-10-8-9-10-11-11-23-14-13.0_1_0-75a0f6.4fab077a
// (fuzz --scenario chaos, fixed model): the tool server restarted with a 111 s start-up; the runner's create_event
// call for m7 waited in its mailbox; the runner was killed, its successor re-formed the turn (in:d8 took in:d7) and
// gave up with the error reply, shown at 449.3 s; the tool server, ready at 487.2 s, carried out the stale call.
const frozen = 'stale-event-after-give-up';

describe('a stale create_event call (the campaign run, frozen)', () => {
  it('is refused by the tool server past its deadline, and nothing acts after the error reply', async () => {
    await withFrozenPlan(sql, frozen, (result) => {
      const refused = notes(result, 'tool-refused');
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((note) => note.timeMs > Number(note.fields.deadlineMs))).toBe(true);
      expect(result.ledger.effects.map((effect) => effect.text)).not.toContain('call with Sam at 16:00 [e5b960e86]');
      expect(result.violations).toEqual([]);
    });
  });

  it('without deadlines (the sabotage) the stale call acts after the error reply and is caught', async () => {
    await withFrozenPlan(
      sql,
      frozen,
      (result) => {
        expect(result.ledger.effects.map((effect) => effect.text)).toContain('call with Sam at 16:00 [e5b960e86]');
        expect(invariants(result)).toContain('effect-at-most-once');
      },
      sabotaged,
    );
  });
});

/**
 * The campaign's shape, scripted, under Hermes' processing (a run ends at its first failure). The tool server is
 * restarted at 1 s with a slow start-up (`toolServerReadyMs`); m0 asks for a booking and its create_event call waits in
 * the starting server's mailbox. 2 s after the call the runner is killed (restarted 1 s later), and the host resets
 * in:d0's claim with its 5 s backoff, as the sweep did in the campaign; the LLM API goes down. The successor's turn for
 * m1 takes m0 over, fails, and gives up with the error reply for both.
 */
function slowToolServer(toolServerReadyMs: number): RunInput {
  const plan: Plan = {
    ...handPlan([user(1_000, 'book the team sync'), user(4_000, 'and the room')], [{ kind: 'kill', atMs: 500, process: 'tool-server', restartAfterMs: 500 }]),
    processing: 'hermes',
    model: { ...handPlan([]).model, effectToolPer1000: 0 },
  };
  const script = forMessage({ 0: { toolCalls: [{ name: 'create_event', text: event }], result: reply(event) }, 1: { toolCalls: [], result: reply('the room is booked') } });
  const prepare = (sim: Simulation, _model: BuiltModel, world: World): void => {
    sim.processes.startupDelay = (name) => (name === 'tool-server' ? toolServerReadyMs - 1_000 : 0);
    let killed = false;
    sim.trace.onEvent((traced) => {
      if (killed || traced.kind !== 'model.tool-call') return;
      killed = true;
      sim.scheduler.schedule(2_000, () => {
        sim.kill('runner');
        sim.sqlite.inspect(inboundPath(session0), "UPDATE messages_in SET tries = tries + 1, process_after = ? WHERE id = 'in:d0'", [sim.clock.nowMs() + 5_000]);
        world.modelApi.outageUntilMs = 100_000;
        sim.restart('runner', 1_000);
      });
    });
  };
  return { bugs: [], plan, script, prepare };
}

const sabotage = (input: RunInput): RunInput => ({ ...input, plan: sabotaged(input.plan) });
const errorShownAtMs = (result: RunResult): number => Math.min(...visible(result).filter((message) => message.text === errorReply).map((message) => message.atMs));

describe("a turn that gives up while its killed predecessor's create_event call waits at a starting tool server", () => {
  it('past the deadline (server ready at 61 s): the call is refused, and the error reply waited for the deadline', async () => {
    await withRun(sql, slowToolServer(61_000), (result) => {
      const waits = notes(result, 'give-up-waits');
      expect(waits).toHaveLength(1);
      expect(errorShownAtMs(result)).toBeGreaterThanOrEqual(Number(waits[0]?.fields.untilMs));
      expect(notes(result, 'tool-refused')).toHaveLength(1);
      expect(result.ledger.effects).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });

  it('before the deadline (server ready at 31 s): the call acts, and the waiting error reply comes after it', async () => {
    await withRun(sql, slowToolServer(31_000), (result) => {
      expect(notes(result, 'give-up-waits')).toHaveLength(1);
      expect(notes(result, 'tool-refused')).toEqual([]);
      const effects = result.ledger.effects;
      expect(effects.map((effect) => effect.text)).toEqual([event]);
      // Without the wait the error reply would have gone out at about 30 s, before the effect.
      expect(effects[0]?.atMs).toBeLessThan(errorShownAtMs(result));
      expect(result.violations).toEqual([]);
    });
  });

  it.each([61_000, 31_000])('without deadlines (the sabotage, server ready at %i ms) the call acts after the error reply, caught', async (readyMs) => {
    await withRun(sql, sabotage(slowToolServer(readyMs)), (result) => {
      expect(notes(result, 'give-up-waits')).toEqual([]);
      expect(result.ledger.effects.map((effect) => effect.text)).toEqual([event]);
      expect(errorShownAtMs(result)).toBeLessThan(result.ledger.effects[0]?.atMs ?? 0);
      expect(invariants(result)).toEqual(['effect-at-most-once']);
    });
  });
});

// every-inbound-answered (liveness): by the end of the fault-free settle, every message the gateway accepted has a
// reply the user saw that traces back to an answer whose prompt carried it (or the system's own give-up or /clear
// reply). Two sabotages of the world after the first turn:
// - the LLM API hangs for an hour on any prompt carrying the second message, so the runner never finishes it (the
//   gateway's sweep kills the stuck runner and the turn is retried, hanging again);
// - the network swallows every send of the second turn, so its replies are produced and retried for ever but never
//   reach the user.
import { describe, expect, it } from 'vitest';
import { runnerName } from '../../src/index.ts';
import type { OutboundSend } from '../../src/protocol.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, marker, session0, withRun } from '../model/support.ts';
import { firstReply, input, interim, messagesOf, type Prepare, secondReply, shown, tamperNetwork, twoTurns } from './support.ts';

const sql = await loadSqlJs();
const invariant = 'every-inbound-answered';
const m1 = marker(1);

const llmHangsOnSecondMessage: Prepare = (_sim, _model, world) => {
  const api = world.modelApi;
  const complete = api.complete.bind(api);
  api.complete = async (request, timers) => {
    if (request.prompt.includes(m1)) await timers.sleep(3_600_000);
    return complete(request, timers);
  };
};

const killsOf = (result: Parameters<typeof shown>[0]): number[] =>
  result.sim.trace.events.filter((event) => event.kind === 'proc.kill' && event.fields.name === runnerName).map((event) => event.timeMs);

const swallowSecondTurn = tamperNetwork((_from, to, payload) => {
  const send = payload as Partial<OutboundSend>;
  return to === 'platform' && send.type === 'send' && (send.text === interim || send.text === secondReply) ? [] : [payload];
});

describe('every-inbound-answered', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, input(), (result) => {
      expect(shown(result)).toEqual([firstReply, interim, secondReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires when the LLM API hangs on every request for one message', async () => {
    await withRun(sql, input(llmHangsOnSecondMessage), (result) => {
      expect(shown(result)).toEqual([firstReply]);
      // The hang outlasts the fault phase; the gateway's sweep (once a minute) kills the stuck runner at the heal,
      // within the grace, and the restarted runner's claim is not stale yet when the run ends.
      const kills = killsOf(result);
      expect(kills).toHaveLength(1);
      expect(kills[0]).toBeGreaterThanOrEqual(twoTurns.faultPhaseMs);
      expect(kills[0]).toBeLessThan(twoTurns.faultPhaseMs + 1_000);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: message ${m1} (delivery d1) got no reply 120000 ms after the faults stopped`]);
      expect(result.violations.find((violation) => violation.invariant === invariant)?.class).toBe('liveness');
    });
  });

  it('fires (with no-lost-reply) when every send of one turn is lost on the way to the platform', async () => {
    await withRun(sql, input(swallowSecondTurn), (result) => {
      expect(shown(result)).toEqual([firstReply]);
      expect(invariants(result)).toEqual([invariant, 'no-lost-reply']);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: message ${m1} (delivery d1) got no reply 120000 ms after the faults stopped`]);
      expect(messagesOf(result, 'no-lost-reply')).toEqual([
        `${session0}: the tool message "${interim}" the LLM produced for ${m1} was never shown`,
        `${session0}: the reply "${secondReply}" the LLM produced for ${m1} was never shown`,
      ]);
    });
  });
});

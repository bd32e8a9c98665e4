// every-inbound-answered (liveness) judges by what the platform showed the user and by the inbound rows' final
// status. Two sabotages of the environment after the first turn, each of which the fixed model cannot overcome:
// - the network silently swallows every send the gateway makes for the second turn, so its reply is produced and
//   retried forever but never reaches the user (no-lost-reply fires too: the reply was produced and not delivered);
// - the model API hangs on the second turn, so the runner never finishes it (the gateway's sweep kills the stuck
//   runner and the turn is retried, hanging again): the row is still open at the end, and nothing else is wrong.
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/index.ts';
import type { OutboundSend } from '../../src/protocol.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, session0, stateRows, visible, withRun } from '../model/support.ts';
import { messagesOf, type Prepare, secondTurn, twoTurns } from './support.ts';

const sql = await loadSqlJs();

const run = (prepare?: Prepare) => ({ bugs: [], plan: twoTurns, ...(prepare === undefined ? {} : { prepare }) });

/** The network loses every send of `turnId` to the platform (without a trace event: a black hole). */
const swallowSendsOf =
  (turnId: string): Prepare =>
  (sim) => {
    const send = sim.network.send.bind(sim.network);
    sim.network.send = (sender, to, payload) => {
      const message = payload as Partial<OutboundSend>;
      if (to === 'platform' && message.type === 'send' && message.turnId === turnId) return;
      send(sender, to, payload);
    };
  };

/** The model API answers `turnId` only after an hour (longer than the run). */
const hangOn =
  (turnId: string): Prepare =>
  (_sim, model) => {
    const api = model.world.modelApi;
    const attempt = api.attempt.bind(api);
    api.attempt = (request: ModelRequest) => (request.turnId === turnId ? { ...attempt(request), latencyMs: 3_600_000 } : attempt(request));
  };

describe('every-inbound-answered', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, run(), (result) => {
      expect(new Set(visible(result).map((message) => message.turnId))).toEqual(new Set(['in:d0', secondTurn]));
      expect(result.violations).toEqual([]);
    });
  });

  it('fires (with no-lost-reply) when every send of one turn is lost on the way to the platform', async () => {
    await withRun(sql, run(swallowSendsOf(secondTurn)), (result) => {
      expect(visible(result).map((message) => message.turnId)).toEqual(['in:d0']);
      expect(invariants(result)).toEqual(['every-inbound-answered', 'no-lost-reply']);
      expect(messagesOf(result, 'every-inbound-answered')).toEqual([`inbound ${secondTurn} (${session0}) got no visible reply 120000 ms after the faults stopped`]);
      expect(messagesOf(result, 'no-lost-reply')).toEqual([expect.stringContaining(`turn ${secondTurn}: the model's reply`)]);
      expect(result.violations.find((violation) => violation.invariant === 'every-inbound-answered')?.class).toBe('liveness');
    });
  });

  it('fires alone when the model API hangs on one turn, so it never completes', async () => {
    await withRun(sql, run(hangOn(secondTurn)), (result) => {
      // The sweep killed the stuck runner at least once and the turn was retried; it produced nothing.
      expect(result.sim.trace.events.some((event) => event.kind === 'model.sweep-kill')).toBe(true);
      expect(stateRows(result).some((row) => row.turnId === secondTurn && row.role === 'assistant')).toBe(false);
      expect(invariants(result)).toEqual(['every-inbound-answered']);
      expect(messagesOf(result, 'every-inbound-answered')).toEqual([expect.stringMatching(new RegExp(`^inbound ${secondTurn} \\(${session0}\\) is still (pending|processing) `))]);
    });
  });
});

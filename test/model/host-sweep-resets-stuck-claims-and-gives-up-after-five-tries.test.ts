// nanoclaw's durable claims and the host's sweep (src/host-sweep.ts, src/db/session-db.ts): the runner records a
// processing_ack row in outbound.db for each message it claims; the host kills a runner whose claim is older than
// 60 s with no heartbeat since, resets the claimed row (tries + 1, a backoff of 5000 * 2^tries ms) and deletes the
// orphan acks; at 5 tries the row is marked failed. Here the LLM never answers the message, so its claim goes stale
// six times. nanoclaw only logs the failure; in the fixed model the runner closes the failed turn with the error
// reply (in both transcripts, sent to the user), so the message is not left unanswered. The sabotage swallows that
// reply on its way to the platform: every-inbound-answered fires.
import { describe, expect, it } from 'vitest';
import { errorReply, inboundPath, outboundPath } from '../../src/index.ts';
import type { OutboundSend } from '../../src/protocol.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { BuiltModel } from '../../src/index.ts';
import type { World } from '../../sim/world/index.ts';
import { both, messagesOf, shown, tamperNetwork } from '../checkers/support.ts';
import { handPlan, invariants, marker, notes, session0, user, withRun } from './support.ts';

const sql = await loadSqlJs();

/** The LLM API never answers a prompt carrying the message. */
function llmHangs(_sim: Simulation, _model: BuiltModel, world: World): void {
  const api = world.modelApi;
  const complete = api.complete.bind(api);
  api.complete = async (request, timers) => {
    if (request.prompt.includes(marker(0))) await timers.sleep(24 * 3_600_000);
    return complete(request, timers);
  };
}

const swallowErrorReply = tamperNetwork((_from, to, payload) => (to === 'platform' && (payload as Partial<OutboundSend>).text === errorReply ? [] : [payload]));
/** Long enough for six stale claims and their backoffs to fall inside the fault phase. */
const plan = { ...handPlan([user(1_000, 'are you there?')]), faultPhaseMs: 900_000 };

describe("the host's sweep over durable claims", () => {
  it('resets the stuck claim with tries + 1 and backoff 5000 * 2^tries, then fails the row at 5 tries; the runner tells the user', async () => {
    await withRun(sql, { bugs: [], plan, prepare: llmHangs }, (result) => {
      expect(notes(result, 'sweep-kill').map((note) => note.fields.reason)).toEqual(Array<string>(6).fill('claim'));
      expect(notes(result, 'claim-reset').map((note) => [note.fields.tries, note.fields.backoffMs])).toEqual([
        [1, 5_000],
        [2, 10_000],
        [3, 20_000],
        [4, 40_000],
        [5, 80_000],
      ]);
      // Each reset also deleted the orphan processing ack, so no successor was killed for it.
      expect(notes(result, 'claims-cleared').filter((note) => note.fields.reason === 'claim')).toHaveLength(6);
      expect(notes(result, 'claim-failed').map((note) => note.fields.failed)).toEqual(['in:d0']);
      // The coverage report counts the failed row (issue 9), at the phase it landed in.
      expect(Object.values(result.coverage['failed-row']).reduce((sum, count) => sum + count, 0)).toBe(1);
      // The failed turn was closed without asking the LLM again: its claim completed, and the host synced the row.
      const failedAtMs = notes(result, 'claim-failed')[0]?.timeMs ?? 0;
      expect(result.ledger.requests.filter((request) => request.atMs > failedAtMs)).toEqual([]);
      expect(notes(result, 'turn-start').filter((note) => note.timeMs > failedAtMs)).toHaveLength(1);
      expect(result.sim.sqlite.inspect(outboundPath(session0), 'SELECT message_id, status FROM processing_ack')).toEqual([{ message_id: 'in:d0', status: 'completed' }]);
      expect(result.sim.sqlite.inspect(inboundPath(session0), 'SELECT status, tries FROM messages_in')).toEqual([{ status: 'completed', tries: 5 }]);
      // Every stale claim was given its full 60 s of silence first.
      const claims = notes(result, 'turn-start').map((note) => note.timeMs).slice(0, 6);
      const kills = notes(result, 'sweep-kill').map((note) => note.timeMs);
      expect(kills.map((atMs, index) => atMs - (claims[index] ?? 0) > 60_000)).toEqual(Array<boolean>(6).fill(true));
      expect(shown(result)).toEqual([errorReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it('every-inbound-answered fires when the user is never told (the error reply is lost on the way)', async () => {
    await withRun(sql, { bugs: [], plan, prepare: both(llmHangs, swallowErrorReply) }, (result) => {
      expect(notes(result, 'claim-failed')).toHaveLength(1);
      expect(shown(result)).toEqual([]);
      expect(invariants(result)).toEqual(['every-inbound-answered']);
      expect(messagesOf(result, 'every-inbound-answered')).toEqual([`${session0}: message ${marker(0)} (delivery d0) got no reply ${plan.settleMs} ms after the faults stopped`]);
    });
  });
});

// OpenClaw's heartbeat runner skips while the session's lane has requests in flight, and a heartbeat runs as a run of
// its own. The model's gateway checks the lane, drains the session's system events and writes one heartbeat row to
// inbound.db. A user message stored between that check and the write shared a batch with the heartbeat row: the
// batch's prompt ended with the heartbeat prompt ("… reply HEARTBEAT_OK"), after the user's message, so the LLM
// answered HEARTBEAT_OK and the user was never answered (`fuzz --scenario chaos --runs 2000 --seed 17` stopped at
// run 1025 with every-inbound-answered). The fixed gateway checks again in the transaction that writes the row, and
// skips the heartbeat (its events go back to the queue) when a message has arrived. The shape needs the campaign's
// exact interleaving (the message stored in the same millisecond as the heartbeat's drain), so its shrunk plan
// is replayed and checked first.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { notes, withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.712552762.0-23-5-6-6-9-10-11-11-11-13-14-16-18-18-18-21-19-18-18.0_1_0-4f551d.5cccead4 (chaos before it offered an action on the world); its plan is frozen.
const plan = 'heartbeat-row-lane-check';
const session = 'agent:main:chat:0';

describe('a heartbeat row and a message stored since its lane check', () => {
  it('skips the heartbeat, so no batch puts the heartbeat prompt after a user message', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      // The shape: a message of the session stored at the instant a heartbeat, which had found the lane idle, wrote
      // its row (the old gateway: an exec-ingest note) or gave up writing it (the fixed one: a heartbeat-skip note).
      const ofSession = (kind: string) => notes(result, kind).filter((note) => note.fields.session === session);
      const stored = ofSession('ingest').filter((note) => note.fields.inserted === 1);
      const heartbeat = [...ofSession('exec-ingest'), ...ofSession('heartbeat-skip')];
      expect(stored.some((note) => heartbeat.some((other) => other.timeMs === note.timeMs))).toBe(true);
      // No turn that carries a user message is asked a prompt that ends by asking for HEARTBEAT_OK.
      const heartbeatLast = /reply HEARTBEAT_OK\.?\s*$/;
      const userMarker = /\[m\d+\]/;
      expect(result.ledger.requests.filter((request) => heartbeatLast.test(request.prompt) && userMarker.test(request.prompt)).map((request) => request.prompt)).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });
});

// no-lost-user-message: every message the gateway acknowledged to the platform (the ledger's word, not the gateway's
// tables) is, at the end, in a user row of state.db and a user entry on the JSONL active branch, found by its marker.
// Sabotages: the acknowledged message's inbound row deleted before the runner claims it; and, after every turn is
// over, its user row deleted from state.db, its row's text replaced, or its JSONL entry's text replaced.
import { describe, expect, it } from 'vitest';
import { inboundPath, stateDbPath, transcriptPath } from '../../src/index.ts';
import type { InboundAck } from '../../src/protocol.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, marker, session0, withRun } from '../model/support.ts';
import { afterAllTurnsMs, firstReply, hermesRows, input, messagesOf, type Prepare, rewriteFileAt, shown, sqlAt } from './support.ts';

const sql = await loadSqlJs();
const invariant = 'no-lost-user-message';
const m0 = marker(0);
const m1 = marker(1);

/** The moment the gateway acknowledges the second message, its inbound row (found by its text) is deleted. */
const loseAcknowledgedRow: Prepare = (sim) => {
  const send = sim.network.send.bind(sim.network);
  let done = false;
  sim.network.send = (sender, to, payload) => {
    send(sender, to, payload);
    const ack = payload as Partial<InboundAck>;
    if (done || to !== 'platform' || ack.type !== 'inbound.ack' || ack.deliveryId !== 'd1') return;
    done = true;
    sim.scheduler.schedule(0, () => void sim.sqlite.inspect(inboundPath(session0), 'DELETE FROM messages_in WHERE content LIKE ?', [`%${m1}%`]));
  };
};

const deleteUserRow = sqlAt(afterAllTurnsMs, stateDbPath, "DELETE FROM messages WHERE role = 'user' AND content LIKE ?", [`%${m0}%`]);
const replaceUserRowText = sqlAt(afterAllTurnsMs, stateDbPath, "UPDATE messages SET content = 'something else entirely' WHERE role = 'user' AND content LIKE ?", [`%${m0}%`]);
const replaceUserEntryText = rewriteFileAt(afterAllTurnsMs, transcriptPath(session0), (text) => text.replace(JSON.stringify(`hello there ${m0}`), JSON.stringify('something else entirely')));

describe('no-lost-user-message', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, input(), (result) => {
      expect(hermesRows(result, stateDbPath).filter((row) => row.role === 'user').map((row) => row.content)).toEqual([`hello there ${m0}`, `second question ${m1}`]);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires (with every-inbound-answered) when an acknowledged message is removed before the runner takes it', async () => {
    await withRun(sql, input(loseAcknowledgedRow), (result) => {
      expect(result.ledger.userMessages.map((message) => [message.deliveryId, message.acknowledgedAtMs !== null])).toEqual([['d0', true], ['d1', true]]);
      expect(shown(result)).toEqual([firstReply]);
      expect(invariants(result)).toEqual(['every-inbound-answered', invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: message ${m1} (delivery d1) was accepted but never reached state.db`]);
      expect(messagesOf(result, 'every-inbound-answered')).toEqual([`${session0}: message ${m1} (delivery d1) got no reply 120000 ms after the faults stopped`]);
    });
  });

  it("fires when a completed turn's user row is deleted from state.db", async () => {
    await withRun(sql, input(deleteUserRow), (result) => {
      expect(hermesRows(result, stateDbPath).some((row) => row.content.includes(m0))).toBe(false);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: message ${m0} (delivery d0) was accepted but never reached state.db`]);
    });
  });

  it("fires when the user row's text no longer carries the message", async () => {
    await withRun(sql, input(replaceUserRowText), (result) => {
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: message ${m0} (delivery d0) was accepted but never reached state.db`]);
    });
  });

  it("fires when the JSONL user entry's text no longer carries the message (state.db intact)", async () => {
    await withRun(sql, input(replaceUserEntryText), (result) => {
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: message ${m0} (delivery d0) was accepted but never reached the JSONL active branch`]);
    });
  });
});

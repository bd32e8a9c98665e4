// An acknowledged message whose inbound row vanishes before the runner claims it (what an acknowledge-before-commit
// bug or a lost write would leave): the user's message never reaches the transcript and never gets a reply. The
// checkers take the set of accepted messages from outside the gateway (what the user sent and the platform saw
// acknowledged), so both no-lost-user-message and every-inbound-answered report it. (Found by this test when the
// checkers still read "accepted" from the gateway's own messages_in table, which hid the loss.)
import { describe, expect, it } from 'vitest';
import { inboundPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, notes, session0, stateRows, visible, withRun } from '../model/support.ts';
import { afterEvent, firstTurn, type Prepare, secondTurn, twoTurns } from './support.ts';

const sql = await loadSqlJs();

/** Delete the inbound row of `turnId` right after the gateway ingested (and acknowledged) it. */
const loseRowAfterIngest =
  (turnId: string): Prepare =>
  (sim) =>
    afterEvent(
      sim,
      (event) => event.kind === 'model.ingest' && event.fields.row === turnId,
      () => void sim.sqlite.inspect(inboundPath(session0), 'DELETE FROM messages_in WHERE id = ?', [turnId]),
    );

const input = { bugs: [], plan: twoTurns, prepare: loseRowAfterIngest(secondTurn) };

describe('an acknowledged message that is missing from inbound.db', () => {
  it('is lost: acknowledged once, never in the transcript, never answered', async () => {
    await withRun(sql, input, (result) => {
      // Ingested once: the platform got its acknowledgement and never redelivered it (a redelivery would re-insert it).
      expect(notes(result, 'ingest').map((note) => note.fields.row)).toEqual([firstTurn, secondTurn]);
      expect(notes(result, 'inbound-abandoned')).toEqual([]);
      expect(stateRows(result).some((row) => row.turnId === secondTurn || row.content.includes('second question'))).toBe(false);
      expect(visible(result).map((message) => message.turnId)).toEqual([firstTurn]);
    });
  });

  it('is reported by no-lost-user-message and every-inbound-answered', async () => {
    await withRun(sql, input, (result) => {
      expect(invariants(result)).toEqual(['every-inbound-answered', 'no-lost-user-message']);
    });
  });
});

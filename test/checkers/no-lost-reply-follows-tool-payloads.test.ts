// no-lost-reply, tool-payload half: a payload the model asked send_message to send is a reply too and must reach
// the user. The first turn calls send_message mid-turn and then answers; the moment the tool server has written
// the tool's outbound row (its `tool-sent` note), the row is deleted from the session's outbound.db, before the
// gateway's delivery poller can pick it up. The closing answer still goes out, so the turn counts as answered and
// only the lost tool message is reported.
import { describe, expect, it } from 'vitest';
import { outboundPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, outboundRows, reply, session0, visible, withRun } from '../model/support.ts';
import { afterEvent, firstTurn, messagesOf, type Prepare, twoTurns } from './support.ts';

const sql = await loadSqlJs();

const interim = 'checking the calendar now';
const answer = 'you are free at 2pm';
const callId = `${firstTurn}:tool:0`;
const script = (request: { turnId: string }) => (request.turnId === firstTurn ? { toolCalls: [{ name: 'send_message' as const, text: interim }], result: reply(answer) } : undefined);
const run = (prepare?: Prepare) => ({ bugs: [], plan: twoTurns, script, ...(prepare === undefined ? {} : { prepare }) });

/** Delete the tool's outbound row right after the tool server wrote it. */
const dropToolRow: Prepare = (sim) =>
  afterEvent(
    sim,
    (event) => event.kind === 'model.tool-sent' && event.fields.call === callId,
    () => void sim.sqlite.inspect(outboundPath(session0), 'DELETE FROM messages_out WHERE id = ? AND delivered = 0', [callId]),
  );

describe('no-lost-reply: a tool payload must be delivered', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, run(), (result) => {
      expect(visible(result).filter((message) => message.turnId === firstTurn).map((message) => [message.source, message.text])).toEqual([
        ['tool', interim],
        ['result', answer],
      ]);
      expect(result.violations).toEqual([]);
    });
  });

  it("fires, naming the tool message, when its outbound row is deleted before delivery", async () => {
    await withRun(sql, run(dropToolRow), (result) => {
      expect(outboundRows(result).some((row) => row.id === callId)).toBe(false);
      expect(result.sim.trace.events.some((event) => event.kind === 'model.deliver-attempt' && event.fields.key === callId)).toBe(false);
      expect(visible(result).filter((message) => message.turnId === firstTurn).map((message) => message.text)).toEqual([answer]);
      expect(invariants(result)).toEqual(['no-lost-reply']);
      expect(messagesOf(result, 'no-lost-reply')).toEqual([`turn ${firstTurn}: the tool message "${interim}" (${callId}) was never delivered`]);
    });
  });
});

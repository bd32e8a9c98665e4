// Attribution of a tool message that two answers of one session offer with the same text (sim/checkers/attribution.ts):
// between slots equal on every other part of the showings' key, the call whose carrier is on the JSONL active branch
// takes the showing. fuzz --all seed 815, chaos run 618 (stop 36), on a key-less platform: m0's first answer sent
// "Looking it up" through send_message (its carrier in state.db and in the JSONL, the tool's outbound row written),
// then a power loss. The re-formed turn (m0 with m1) got an answer with the same call text; its carrier row committed,
// its JSONL append was torn by a second power loss, and its call was never made. A later answer replaced both. The one
// showing of the phrase (the gateway's send of the first call's row) went to the newer call, and
// one-assistant-row-per-visible-reply found no JSONL entry for it: a false alarm on the fixed model.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { type DbRow, parsePiTranscript } from '../../sim/checkers/durable.ts';
import { checkReplies } from '../../sim/checkers/replies.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const sql = await loadSqlJs();
const phrase = 'Looking it up';

/** A state.db assistant row carrying one tool call. */
function carrierRow(id: number, call: string): DbRow {
  return { id, sessionKey: session, sessionId: session, timestamp: id, role: 'assistant', content: '', toolCallIds: [call], toolCallId: null };
}

/** A pi JSONL line: a message entry whose parent is the line before it. */
function line(id: string, parentId: string | null, message: object): string {
  return JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:00.000Z', message });
}

/**
 * m0's first answer calls send_message(phrase) as `call-first`; the re-formed turn (m0 with m1) calls it again as
 * `call-second`; a third answer (m0, m1 and m2) closes with `done`. The user is shown the phrase once (after the second
 * answer returned) and `done`; the first two closing texts never became final rows. Both carriers are state.db rows,
 * neither call has a result row; the JSONL active branch holds `call-first`'s carrier alone. Without the part, the
 * newer answer (latest) would take the showing.
 */
function history(): { judge: () => Violation[]; slotCall: () => string[] | undefined } {
  const h = new KeylessHistory();
  h.userTypes(1_000, 'm0', 'can you check the notes?');
  const first = h.ledger.requestReceived(session, 'can you check the notes? <m0>', 1_100);
  h.ledger.answerReturned(first, { toolCalls: [{ id: 'call-first', name: 'send_message', text: phrase }], result: '<message to="user">no notes</message>' }, 1_400);
  h.userTypes(16_000, 'm1', 'and the calendar?');
  const second = h.ledger.requestReceived(session, 'can you check the notes? <m0>\nand the calendar? <m1>', 19_000);
  h.ledger.answerReturned(second, { toolCalls: [{ id: 'call-second', name: 'send_message', text: phrase }], result: '<message to="user">no notes, free at 2</message>' }, 19_900);
  const shown = h.sendsAndShows(160_000, phrase).shown;
  h.userTypes(300_000, 'm2', 'and the weather?');
  const third = h.ledger.requestReceived(session, 'can you check the notes? <m0>\nand the calendar? <m1>\nand the weather? <m2>', 400_000);
  h.ledger.answerReturned(third, { toolCalls: [], result: '<message to="user">done</message>' }, 400_500);
  h.sendsAndShows(401_000, 'done');
  const o = h.observations();
  const finalRow: DbRow = { id: 9, sessionKey: session, sessionId: session, timestamp: 400_500, role: 'assistant', content: '<message to="user">done</message>', toolCallIds: [], toolCallId: null };
  o.durable.rows.push(carrierRow(2, 'call-first'), carrierRow(5, 'call-second'), finalRow);
  const transcript = parsePiTranscript(
    [
      line('u0', null, { role: 'user', content: 'can you check the notes? <m0>' }),
      line('a0', 'u0', { role: 'assistant', content: [{ type: 'toolCall', id: 'call-first', name: 'send_message', arguments: { text: phrase } }] }),
      line('a1', 'a0', { role: 'assistant', content: [{ type: 'text', text: '<message to="user">done</message>' }] }),
    ].join('\n'),
  );
  o.durable.files.set(session, [transcript]);
  o.durable.transcripts.set(session, transcript);
  return {
    judge: () => {
      const out: Violation[] = [];
      checkReplies(o, attributeAll(o), out);
      return out.filter((violation) => violation.invariant === 'one-assistant-row-per-visible-reply');
    },
    slotCall: () => {
      const slot = attributeAll(o).get(session)?.slotOf.get(shown);
      return slot?.toolCalls.map((call) => call.id);
    },
  };
}

describe('attribution: one call text in two answers, the second call never made', () => {
  it('credits the showing to the call whose carrier the JSONL active branch holds (fuzz --all seed 815, chaos run 618)', () => {
    const run = history();
    expect(run.slotCall()).toEqual(['call-first']);
    expect(run.judge()).toEqual([]);
  });

  it('passes the frozen plan of the seed string on the fixed model', async () => {
    await withFrozenPlan(sql, 'one-call-text-twice-second-never-run', (result) => {
      const key = 'agent:main:chat:2';
      const calls = result.ledger.answers.filter((answer) => answer.sessionKey === key).flatMap((answer) => answer.toolCalls.filter((call) => call.text === phrase));
      // The shape: two answers of the session call the phrase, the user is shown it once, on a key-less platform.
      expect(calls).toHaveLength(2);
      expect(result.ledger.shown.filter((fact) => fact.sessionKey === key && fact.text === phrase)).toHaveLength(1);
      expect(result.ledger.platformHonoursKeys).toBe(false);
      expect(result.violations).toEqual([]);
    });
  });
});

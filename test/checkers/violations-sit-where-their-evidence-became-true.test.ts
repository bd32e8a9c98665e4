// A violation's step is the trace event at which its evidence became true, found from black-box facts only: the
// state.db commit of a second user row (by the row's timestamp), the transcript check that first saw a second JSONL
// entry or saw a durable assistant entry gone, the arrival at the platform of the repeat the user saw, the commit of
// the last durable record of a reply never shown, the acknowledgement of a message later lost. Not the moment the
// subject entered the world, and not the end of the run when an earlier event proves it.
import { describe, expect, it } from 'vitest';
import { inboundPath, stateDbPath, transcriptPath } from '../../src/index.ts';
import type { InboundAck, OutboundSend } from '../../src/protocol.ts';
import type { Violation } from '../../sim/checkers/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { TraceEvent } from '../../sim/kernel/trace.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import { forMessage, marker, reply, session0, withRun } from '../model/support.ts';
import { betweenTurnsMs, execReply, execRunId, input, interim, isEntry, type Prepare, rewriteFileAt, sqlAt, tamperNetwork, turnsAndExec, twoTurns, withoutLines } from './support.ts';

const sql = await loadSqlJs();

function only(result: RunResult, invariant: string, fragment = ''): Violation {
  const found = result.violations.filter((violation) => violation.invariant === invariant && violation.message.includes(fragment));
  expect(found, `${invariant} ${fragment}: ${result.violations.map((violation) => violation.message).join('; ')}`).toHaveLength(1);
  return found[0] as Violation;
}

function eventAt(result: RunResult, violation: Violation): TraceEvent {
  const event = result.sim.trace.events[violation.step];
  if (event === undefined) throw new Error(`no event at step ${violation.step}`);
  return event;
}

/** The first event of `kind` at or after `timeMs` (state.db writes only, for sql.write). */
function firstAtOrAfter(result: RunResult, kind: string, timeMs: number): TraceEvent | undefined {
  return result.sim.trace.events.find((event) => event.kind === kind && event.timeMs >= timeMs && (kind !== 'sql.write' || event.fields.path === stateDbPath));
}

function rowTimestamps(result: RunResult, role: string, fragment: string): number[] {
  return result.sim.sqlite.inspect(stateDbPath, 'SELECT timestamp FROM messages WHERE role = ? AND content LIKE ? ORDER BY timestamp, id', [role, `%${fragment}%`]).map((row) => Number(row.timestamp));
}

/** After the exec prompt was answered, a second prompt row with a new id and the same content appears in inbound.db. */
const execPromptTwice = sqlAt(
  60_000,
  inboundPath(session0),
  "INSERT INTO messages_in(id, seq, kind, content, created_at) SELECT 'sys:copy', (SELECT MAX(seq) + 1 FROM messages_in), kind, content, 60000 FROM messages_in WHERE kind = 'system' AND content LIKE ?",
  [`%id=${execRunId},%`],
);

describe('where a violation sits on the timeline', () => {
  it('a second ingestion: at the commit of the second user row, and at the check that first saw the second entry', async () => {
    await withRun(sql, input(execPromptTwice, turnsAndExec), (result) => {
      const [first, second] = rowTimestamps(result, 'user', `id=${execRunId},`);
      if (first === undefined || second === undefined) throw new Error('expected two user rows for the exec run');
      expect(second).toBeGreaterThanOrEqual(60_000);
      const inDb = only(result, 'no-double-ingestion', 'user rows of state.db');
      expect(eventAt(result, inDb)).toEqual(firstAtOrAfter(result, 'sql.write', second));
      expect(inDb.evidence).toBe(`a second user row carrying command ${execRunId} is committed to state.db`);
      const inFile = only(result, 'no-double-ingestion', 'user entries of its JSONL file');
      expect(eventAt(result, inFile)).toEqual(firstAtOrAfter(result, 'model.turn-completed', second));
    });
  });

  it('a repeat the user saw: at the arrival of the send that showed it again', async () => {
    await withRun(sql, input(execPromptTwice, turnsAndExec), (result) => {
      const repeat = only(result, 'no-duplicate-visible-reply');
      const event = eventAt(result, repeat);
      expect([event.kind, event.fields.to]).toEqual(['net.deliver', 'platform']);
      const showings = result.ledger.shown.filter((fact) => fact.text === execReply);
      expect(showings).toHaveLength(2);
      expect(event.timeMs).toBe(showings[1]?.atMs);
      expect(repeat.evidence).toBe(`the user is shown "${execReply}" again`);
    });
  });

  it('a reply never shown: at the commit of its last durable record', async () => {
    const swallowInterim = tamperNetwork((_from, to, payload) => {
      const send = payload as Partial<OutboundSend>;
      return to === 'platform' && send.type === 'send' && send.text === interim ? [] : [payload];
    });
    await withRun(sql, input(swallowInterim), (result) => {
      const lost = only(result, 'no-lost-reply');
      const sent = result.sim.sqlite.inspect(stateDbPath, "SELECT timestamp FROM messages WHERE role = 'tool' ORDER BY timestamp, id").map((row) => Number(row.timestamp));
      const toolRowMs = sent.at(-1);
      if (toolRowMs === undefined) throw new Error("no tool row: the interim's send_message has no result row");
      expect(eventAt(result, lost)).toEqual(firstAtOrAfter(result, 'sql.write', toolRowMs));
      expect(lost.evidence).toMatch(new RegExp(`^tool call \\S+ with "${interim}" is committed to state.db, and is never shown$`));
    });
  });

  it('an acknowledged message lost before the runner took it: at the arrival of its acknowledgement', async () => {
    const loseAcknowledgedRow: Prepare = (sim) => {
      const send = sim.network.send.bind(sim.network);
      let done = false;
      sim.network.send = (sender, to, payload) => {
        send(sender, to, payload);
        const ack = payload as Partial<InboundAck>;
        if (done || to !== 'platform' || ack.type !== 'inbound.ack' || ack.deliveryId !== 'd1') return;
        done = true;
        sim.scheduler.schedule(0, () => void sim.sqlite.inspect(inboundPath(session0), 'DELETE FROM messages_in WHERE content LIKE ?', [`%${marker(1)}%`]));
      };
    };
    await withRun(sql, input(loseAcknowledgedRow), (result) => {
      const lost = only(result, 'no-lost-user-message');
      const event = eventAt(result, lost);
      expect([event.kind, event.fields.to]).toEqual(['net.deliver', 'platform']);
      const sent = result.sim.trace.events.find((candidate) => candidate.kind === 'net.send' && candidate.fields.id === event.fields.id);
      expect(sent?.fields.kind).toBe('inbound.ack');
      expect(event.timeMs).toBe(result.ledger.userMessages[1]?.acknowledgedAtMs);
    });
  });

  it('a durable assistant entry gone: at the first check after it went, not at the end', async () => {
    const closing = '<message to="scratchpad">the user was told</message>';
    const script = forMessage({ 0: { toolCalls: [{ name: 'send_message', text: 'here you go' }], result: closing }, 1: { toolCalls: [], result: reply('second answer') } });
    const dropFinal = rewriteFileAt(betweenTurnsMs, transcriptPath(session0), (text) => withoutLines(text, isEntry('assistant', 'the user was told')));
    await withRun(sql, { bugs: [], plan: twoTurns, script, prepare: dropFinal }, (result) => {
      const gone = only(result, 'transcript-consistent', 'gone from the active branch');
      expect(eventAt(result, gone)).toEqual(firstAtOrAfter(result, 'model.turn-completed', betweenTurnsMs));
      expect(gone.step).toBeLessThan(result.sim.trace.events.length - 1);
    });
  });
});

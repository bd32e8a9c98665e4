// no-double-ingestion: each user message (by its marker), each exec run's finish (`Exec finished (… id=<runId>, …)`)
// and each exec run's start (`Exec started (… id=<runId>)`, a report of its own) becomes at most one user turn in each
// durable transcript, whatever internal ids the system gave it; a run's start and its finish are not two ingestions. Every sabotage here leaves each internal id unique
// (a new delivery id, a new inbound row id, a new state.db row id, a new JSONL entry id), so counting user rows per
// turn_id or user entries per turnId sees nothing wrong. The verdict rests on the durable transcripts, not on
// nanoclaw's queue: a duplicate prompt row that inbound.db no longer holds (pruned once completed) still counts.
import { describe, expect, it } from 'vitest';
import { inboundPath, stateDbPath, transcriptPath } from '../../src/index.ts';
import type { InboundMessage } from '../../src/protocol.ts';
import { mentionsRun, mentionsStart } from '../../sim/checkers/observations.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, marker, session0, withRun } from '../model/support.ts';
import {
  afterAllTurnsMs,
  both,
  durableEntries,
  execReply,
  execRunId,
  firstReply,
  hermesRows,
  input,
  interim,
  isEntry,
  messagesOf,
  type Prepare,
  rewriteFileAt,
  secondReply,
  shown,
  sqlAt,
  tamperNetwork,
  turnsAndExec,
  withDeadEndCopy,
} from './support.ts';

const sql = await loadSqlJs();
const invariant = 'no-double-ingestion';
const m0 = marker(0);

/** The network re-sends the first webhook under another delivery id, so the gateway keeps it under a new row id. */
const redeliverUnderNewId = tamperNetwork((_from, to, payload) => {
  const message = payload as Partial<InboundMessage>;
  if (to !== 'gateway' || message.type !== 'inbound' || message.deliveryId !== 'd0') return [payload];
  return [payload, { ...message, deliveryId: 'd0-again' }];
});

/** After the exec prompt was answered, a second prompt row with a new id and the same content appears in inbound.db. */
const execPromptTwice = sqlAt(
  60_000,
  inboundPath(session0),
  "INSERT INTO messages_in(id, seq, kind, content, created_at) SELECT 'sys:copy', (SELECT MAX(seq) + 1 FROM messages_in), kind, content, 60000 FROM messages_in WHERE kind = 'system' AND content LIKE ?",
  [`%id=${execRunId},%`],
);

/** After the exec run's start was answered, a second prompt row with a new id and the start's content appears. */
const startPromptTwice = sqlAt(
  60_000,
  inboundPath(session0),
  "INSERT INTO messages_in(id, seq, kind, content, created_at) SELECT 'sys:copy', (SELECT MAX(seq) + 1 FROM messages_in), kind, content, 60000 FROM messages_in WHERE kind = 'system' AND content LIKE ?",
  [`%Exec started (node=node-1 id=${execRunId})%`],
);

/** The same, and the copy is pruned from inbound.db once completed (as a queue that deletes finished rows would), after the sweep at 120 s synced its status. */
const execPromptTwicePruned: Prepare = both(execPromptTwice, sqlAt(125_000, inboundPath(session0), "DELETE FROM messages_in WHERE id = 'sys:copy' AND status = 'completed'"));

/** A second user row for the first message in state.db, written with Hermes' columns only (a new row id). */
const duplicateUserRow = sqlAt(
  afterAllTurnsMs,
  stateDbPath,
  "INSERT INTO messages(session_id, role, content, timestamp) SELECT session_id, role, content, timestamp FROM messages WHERE role = 'user' AND content LIKE ?",
  [`%${m0}%`],
);

/** A copy of the first user entry (new entry id, same parent) right after it in the JSONL: a dead end off the branch. */
const deadEndUserCopy = rewriteFileAt(afterAllTurnsMs, transcriptPath(session0), (text) => withDeadEndCopy(text, isEntry('user', m0), 'c0ffee01'));

const userRowsWith = (result: Parameters<typeof shown>[0], fragment: string) =>
  hermesRows(result, stateDbPath).filter((row) => row.role === 'user' && row.content.includes(fragment));

describe('no-double-ingestion', () => {
  it('holds on the untouched run: each message and the exec run are one user row and one user entry', async () => {
    await withRun(sql, input(undefined, turnsAndExec), (result) => {
      expect(shown(result)).toEqual([firstReply, interim, secondReply, execReply]);
      // The run's start and its finish are two prompt rows (the start's heartbeat answered HEARTBEAT_OK, shown to
      // nobody); neither counts as a second ingestion of the other.
      for (const fragment of [m0, marker(1), `id=${execRunId},`, `id=${execRunId})`]) {
        expect(userRowsWith(result, fragment)).toHaveLength(1);
        expect(durableEntries(result, transcriptPath(session0)).filter(isEntry('user', fragment))).toHaveLength(1);
      }
      expect(result.violations).toEqual([]);
    });
  });

  it('fires when one platform delivery is ingested twice under two delivery ids (one batch carries it twice)', async () => {
    await withRun(sql, input(redeliverUnderNewId), (result) => {
      // The user typed one message; the gateway kept it under two inbound rows, which arrived together and were
      // fetched as one batch: one turn whose prompt carries the message twice. The user saw one answer.
      expect(result.ledger.userMessages.map((message) => message.deliveryId)).toEqual(['d0', 'd1']);
      expect(shown(result)).toEqual([firstReply, interim, secondReply]);
      expect(userRowsWith(result, m0)).toHaveLength(1);
      expect(userRowsWith(result, m0)[0]?.content.split(m0)).toHaveLength(3);
      expect(invariants(result)).toEqual(['no-double-ingestion']);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: message ${m0} (delivery d0) is 2 times in one of the user rows of state.db`,
        `${session0}: message ${m0} (delivery d0) is 2 times in one of the user entries of its JSONL file`,
      ]);
    });
  });

  it('fires when one exec runId becomes two prompt rows with different ids', async () => {
    await withRun(sql, input(execPromptTwice, turnsAndExec), (result) => {
      expect(result.ledger.commands.map((command) => command.runId)).toEqual([execRunId]);
      expect(userRowsWith(result, `id=${execRunId},`)).toHaveLength(2);
      expect(invariants(result)).toEqual(['no-double-ingestion', 'no-duplicate-visible-reply', 'one-assistant-row-per-visible-reply']);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: command ${execRunId} is in 2 user rows of state.db`,
        `${session0}: command ${execRunId} is in 2 user entries of its JSONL file`,
      ]);
      // The second prompt row ran a second turn: same prompt, same answer, shown again and written again.
      expect(messagesOf(result, 'no-duplicate-visible-reply')).toEqual([
        `${session0}: the user saw "${execReply}" again (already shown as the answer to run:${execRunId}), with no new answer producing it`,
      ]);
      expect(messagesOf(result, 'one-assistant-row-per-visible-reply')).toContain(`${session0}: state.db holds the closing text of the answer to run:${execRunId} 2 times`);
    });
  });

  it('fires when one exec runId becomes two prompt rows and inbound.db keeps only one of them', async () => {
    await withRun(sql, input(execPromptTwicePruned, turnsAndExec), (result) => {
      expect(result.sim.sqlite.inspect(inboundPath(session0), "SELECT id FROM messages_in WHERE kind = 'system' AND content LIKE '%Exec finished%'")).toHaveLength(1);
      expect(userRowsWith(result, `id=${execRunId},`)).toHaveLength(2);
      expect(invariants(result)).toEqual(['no-double-ingestion', 'no-duplicate-visible-reply', 'one-assistant-row-per-visible-reply']);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: command ${execRunId} is in 2 user rows of state.db`,
        `${session0}: command ${execRunId} is in 2 user entries of its JSONL file`,
      ]);
    });
  });

  it("fires when one exec run's start becomes two prompt rows: the start, not the command, is ingested twice", async () => {
    await withRun(sql, input(startPromptTwice, turnsAndExec), (result) => {
      expect(userRowsWith(result, `id=${execRunId})`)).toHaveLength(2);
      expect(userRowsWith(result, `id=${execRunId},`)).toHaveLength(1);
      // The copy's turn asks the same prompt again: HEARTBEAT_OK again, nothing shown, one more assistant row.
      expect(shown(result)).toEqual([firstReply, interim, secondReply, execReply]);
      expect(messagesOf(result, invariant)).toEqual([
        `${session0}: the start of command ${execRunId} is in 2 user rows of state.db`,
        `${session0}: the start of command ${execRunId} is in 2 user entries of its JSONL file`,
      ]);
    });
  });

  it("tells a run's start line from its finish line, and one run from another", () => {
    const finish = 'System (untrusted): [6003] Exec finished (node=node-1 id=run-2, code 1)\nSystem (untrusted): boom';
    const start = 'System (untrusted): [1018] Exec started (node=node-1 id=run-2): npm test';
    expect([mentionsRun(finish, 'run-2'), mentionsStart(finish, 'run-2')]).toEqual([true, false]);
    expect([mentionsRun(start, 'run-2'), mentionsStart(start, 'run-2')]).toEqual([false, true]);
    // Another run's finish beside this run's start is not this run's finish; a longer id is another run.
    const mixed = 'System (untrusted): [1] Exec finished (node=node-1 id=run-20, code 0)\nSystem (untrusted): [2] Exec started (node=node-1 id=run-2): ls';
    expect([mentionsRun(mixed, 'run-2'), mentionsStart(mixed, 'run-2'), mentionsRun(mixed, 'run-20')]).toEqual([false, true, true]);
    expect(mentionsStart('Exec started (node=node-1 id=run-21): ls', 'run-2')).toBe(false);
  });

  it('fires for a duplicate user row inserted into state.db behind every component', async () => {
    await withRun(sql, input(duplicateUserRow), (result) => {
      expect(userRowsWith(result, m0)).toHaveLength(2);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: message ${m0} (delivery d0) is in 2 user rows of state.db`]);
    });
  });

  it('fires for a dead-end copy of a user entry in the JSONL', async () => {
    await withRun(sql, input(deadEndUserCopy), (result) => {
      expect(durableEntries(result, transcriptPath(session0)).filter(isEntry('user', m0)).map((entry) => entry.id)).toContain('c0ffee01');
      // The copy is also a dead end off the active branch, which transcript-consistent reports.
      expect(invariants(result)).toEqual([invariant, 'transcript-consistent']);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: message ${m0} (delivery d0) is in 2 user entries of its JSONL file`]);
      expect(messagesOf(result, 'transcript-consistent')).toEqual([`${session0}.jsonl: 1 entries are off the active branch (user c0ffee01 "hello there ${m0}")`]);
    });
  });
});

// Seed 003 (orphan-leaf): a turn is SIGKILLed after its user entry reached the session's .jsonl and before its reply.
// The restarted runner clears its stale claim and runs the turn again (alone, or with a message that arrived while
// it was down and joins its batch); at its start the orphaned trailing user entry is taken off the branch. With the
// bug only the in-memory leaf moves: the orphan stays in the active .jsonl, which then holds two user entries for
// the same turn and no longer matches the runner's in-memory branch. Fixed, the orphan is removed and the file
// rewritten, after a .jsonl.bak-* backup, and no assistant entry is lost.
//
// The oracle finds user messages by their marker wherever they sit in the file, so in both cases the buggy file
// holds message [m1] twice (no-double-ingestion): in the orphan and again in the retried turn's user entry (the
// runner writes its prompt entry again when the active branch no longer holds one, and the buggy repair took the
// orphan off the branch while leaving it in the file).
//
// The issue also says the buggy file "has lost assistant entries that a .jsonl.bak-* still holds". That does not
// happen in this model, and the buggy runs below assert so: the SessionManager appends every entry with the
// current leaf as parent and a reload takes the last entry in file order as the leaf, so the orphan is only ever a
// dead-end side branch; the buggy repair never rewrites the file (no backup is written at all), and the only other
// rewrite (the malformed-line repair) serialises every entry. Losing assistant entries needs a rewrite or projection
// that keeps only part of the tree, which the model does not have.
import { describe, expect, it } from 'vitest';
import { activeBranchOf, type BugId, type SessionEntry } from '../../src/index.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import type { FaultStep } from '../../sim/run/plan.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { forMessage, handPlan, invariants, llmPrompts, marker, notes, reply, session0, stateRows, transcript, transcriptBackups, user, withRun } from './support.ts';

const sql = await loadSqlJs();

/**
 * prompt-persisted phase events: turn-start then prompt-persisted per turn, so nth 3 is in:d1's prompt-persisted,
 * noted right after its user entry was appended and synced to the .jsonl; the model call has not answered yet.
 */
const killAfterUserEntry = (restartAfterMs: number): FaultStep => ({ kind: 'kill-at-phase', phase: 'prompt-persisted', nth: 3, delayMs: 0, process: 'runner', restartAfterMs });
/** Answers by the last message a prompt carries: a prompt that merged the orphan in answers the newer message. */
const script = forMessage(Object.fromEntries([0, 1, 2].map((index) => [index, { toolCalls: [], result: reply(`answer for in:d${index}`) }])));

const cases = [
  {
    name: 'a new message that joins the killed turn',
    // The runner comes back 5 s after the kill; in:d2 arrived meanwhile, so the restarted runner fetches in:d1 (its
    // claim cleared) and in:d2 as one batch, as nanoclaw fetches whatever is pending: turn in:d1 runs again with both.
    plan: handPlan([user(1_000, 'first'), user(10_000, 'second'), user(12_000, 'third')], [killAfterUserEntry(5_000)]),
    lastPrompt: `second ${marker(1)}\nthird ${marker(2)}`,
  },
  {
    name: 'the retry of the killed turn',
    plan: handPlan([user(1_000, 'first'), user(10_000, 'second')], [killAfterUserEntry(0)]),
    lastPrompt: `second ${marker(1)}`,
  },
];
const repairingTurn = 'in:d1';

function describeEntries(entries: readonly SessionEntry[]): string[] {
  return entries.map((entry) => `${entry.message.role} ${entry.turnId}`);
}

function consecutiveUserEntries(entries: readonly SessionEntry[]): number {
  return entries.filter((entry, index) => index > 0 && entry.message.role === 'user' && entries[index - 1]?.message.role === 'user').length;
}

/** The runner's in-memory active branch after the repairing turn (it reports it when the turn completes). */
function memoryBranch(result: RunResult, turn: string): string[] {
  const completed = notes(result, 'turn-completed').find((note) => note.fields.turn === turn);
  return String(completed?.fields.branch ?? '').split(',');
}

function expectKillBetweenUserEntryAndReply(result: RunResult): void {
  const kill = result.sim.trace.events.find((event) => event.kind === 'proc.kill' && event.fields.name === 'runner');
  const d1 = result.sim.trace.events.filter((event) => event.fields.turn === 'in:d1' && event.kind.startsWith('model.'));
  expect(kill).toBeDefined();
  const before = d1.filter((event) => event.index < (kill?.index ?? 0)).map((event) => event.kind);
  // The model call was in flight: no answer, no assistant entry, no result for in:d1 before the kill.
  expect(before).toEqual(['model.turn-start', 'model.prompt-persisted', 'model.model-call']);
}

describe.each(cases)('a turn killed after its user entry and before its reply, then $name', ({ plan, lastPrompt }) => {
  const input = (bugs: BugId[]) => ({ bugs, plan, script });
  const expectedOrder = ['user in:d0', 'assistant in:d0', `user ${repairingTurn}`, `assistant ${repairingTurn}`];

  it('with orphan-leaf on: the orphan stays in the .jsonl, which no longer matches the in-memory branch', async () => {
    await withRun(sql, input(['orphan-leaf']), (result) => {
      expect(notes(result, 'orphan-repair').map((note) => [note.fields.turn, note.fields.persisted])).toEqual([[repairingTurn, false]]);
      const entries = transcript(result);
      expect(describeEntries(entries)).toEqual(['user in:d0', 'assistant in:d0', 'user in:d1', `user ${repairingTurn}`, `assistant ${repairingTurn}`]);
      expect(consecutiveUserEntries(entries)).toBe(1);
      expect(entries.filter((entry) => entry.message.role === 'user' && entry.turnId === 'in:d1')).toHaveLength(2);
      // The runner's branch skips the orphan; the file it leaves behind does not.
      const orphan = entries[2];
      const memory = memoryBranch(result, repairingTurn);
      expect(memory).not.toContain(orphan?.id);
      expect(entries.map((entry) => entry.id)).not.toEqual(memory);
      // A reload follows parent links from the last entry, so it sees the runner's branch; the orphan is a dead end.
      expect(activeBranchOf(entries).map((entry) => entry.id)).toEqual(memory);
      // Not reproduced in this model: nothing was rewritten (no backup) and no assistant entry was lost.
      expect(transcriptBackups(result)).toEqual([]);
      expect(describeEntries(activeBranchOf(entries)).filter((entry) => entry.startsWith('assistant'))).toEqual(['assistant in:d0', `assistant ${repairingTurn}`]);
      // The file holds [m1] in two user entries: the orphan and the repairing turn's (merged, or the retry's own).
      expect(entries.filter((entry) => entry.message.role === 'user' && entry.message.content.includes(marker(1))).map((entry) => entry.id)).toEqual([orphan?.id, entries[3]?.id]);
      // state.db is not affected: one user row per message (the new turn's row leaves out the [m1] it already holds).
      expect(stateRows(result).filter((row) => row.role === 'user' && row.content.includes(marker(1)))).toHaveLength(1);
      expect(invariants(result)).toEqual(['no-double-ingestion', 'transcript-consistent']);
      expect(result.violations.map((violation) => violation.message)).toEqual([
        `${session0}: message ${marker(1)} (delivery d1) is in 2 user entries of its JSONL file`,
        `${session0}.jsonl: 1 entries are off the active branch (user ${orphan?.id ?? '?'} "second ${marker(1)}")`,
      ]);
      expectKillBetweenUserEntryAndReply(result);
    });
  });

  it('with orphan-leaf off: the orphan is removed from the file after a backup, and no assistant entry is lost', async () => {
    await withRun(sql, input([]), (result) => {
      const repairs = notes(result, 'orphan-repair');
      expect(repairs.map((note) => [note.fields.turn, note.fields.persisted])).toEqual([[repairingTurn, true]]);
      expect(llmPrompts(result).at(-1)).toBe(lastPrompt);
      const entries = transcript(result);
      expect(describeEntries(entries)).toEqual(expectedOrder);
      expect(consecutiveUserEntries(entries)).toBe(0);
      expect(entries.map((entry) => entry.id)).toEqual(memoryBranch(result, repairingTurn));
      const backups = transcriptBackups(result);
      expect(backups.map((backup) => backup.path)).toEqual([String(repairs[0]?.fields.backup)]);
      // The backup is the file as the killed turn left it: the orphan is there and only there.
      const backup = backups[0]?.entries ?? [];
      expect(describeEntries(backup)).toEqual(['user in:d0', 'assistant in:d0', 'user in:d1']);
      const orphan = backup[2];
      expect(entries.map((entry) => entry.id)).not.toContain(orphan?.id);
      // Every assistant entry any backup holds is still in the active file.
      const kept = new Set(entries.map((entry) => entry.id));
      expect(backup.filter((entry) => entry.message.role === 'assistant' && !kept.has(entry.id))).toEqual([]);
      expect(result.violations).toEqual([]);
      expectKillBetweenUserEntryAndReply(result);
    });
  });
});

// The orphan merge (OpenClaw run/attempt.ts mergeOrphanedTrailingUserPrompt): a user message left as the trailing
// entry of the transcript by a run that never answered it is merged into the next prompt under the queued-message
// prefix only when that run is user- or manually-triggered (a chat row), never for a heartbeat run (a 'system' row),
// and only when its text has at least 4 characters once trimmed. The orphan leaves the branch either way; a message
// not merged is answered by its own row when it comes due again.
import { describe, expect, it } from 'vitest';
import { inboundPath, queuedPrefix } from '../../../src/index.ts';
import { mergesQueuedText } from '../../../src/turn.ts';
import type { FaultStep } from '../../../sim/run/plan.ts';
import type { Simulation } from '../../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { handPlan, llmPrompts, marker, notes, session0, transcript, user, withRun } from '../support.ts';

const sql = await loadSqlJs();

describe('which queued texts merge', () => {
  it('only into a chat row, and only a text of at least 4 characters once trimmed', () => {
    expect(mergesQueuedText('chat', 'hello [m0]')).toBe(true);
    expect(mergesQueuedText('chat', 'okay')).toBe(true);
    // Four characters with the padding, three without: OpenClaw trims before the check.
    expect(mergesQueuedText('chat', ' ok ')).toBe(false);
    expect(mergesQueuedText('chat', '\n\tabc  ')).toBe(false);
    // A heartbeat run (the gateway's 'system' row) and a /clear ('command') never merge.
    expect(mergesQueuedText('system', 'hello [m0]')).toBe(false);
    expect(mergesQueuedText('command', 'hello [m0]')).toBe(false);
  });
});

/**
 * m0 is answered; m1's first turn persists its prompt (the phase's fourth event: turn-start and prompt-persisted of
 * each turn) and the runner is killed at once, so m1 is the transcript's trailing user entry; the restarted runner
 * sends m1's row back with a 10 s backoff. At 24 s another writer adds a row of `kind` to the session's inbound.db,
 * due at once, so it runs while m1 is the orphan.
 */
const killAfterPrompt: FaultStep = { kind: 'kill-at-phase', phase: 'prompt-persisted', nth: 3, delayMs: 0, process: 'runner', restartAfterMs: 1_000 };
const heartbeatText = 'System (untrusted): [24000] Exec started (node=node-1 id=run-9): ls\n\nRead HEARTBEAT.md if it exists and follow it. If nothing needs attention, reply HEARTBEAT_OK.';
const m1 = `hello there ${marker(1)}`;

function input(kind: 'system' | 'chat', content: string) {
  return {
    bugs: [],
    plan: handPlan([user(1_000, 'first question'), user(20_000, 'hello there')], [killAfterPrompt]),
    prepare: (sim: Simulation) =>
      sim.at(24_000, () =>
        sim.sqlite.inspect(inboundPath(session0), "INSERT INTO messages_in(id, seq, kind, content, created_at) VALUES ('late', (SELECT MAX(seq) + 1 FROM messages_in), ?, ?, 24000)", [kind, content]),
      ),
  };
}

describe('the orphan and the next run', () => {
  it('a heartbeat run does not merge the orphan: the orphan leaves the branch and its own row answers it later', async () => {
    await withRun(sql, input('system', heartbeatText), (result) => {
      const repair = notes(result, 'orphan-repair').find((note) => note.fields.turn === 'late');
      expect(repair?.fields.persisted).toBe(true);
      expect(notes(result, 'merge')).toEqual([]);
      const prompts = llmPrompts(result);
      const heartbeat = prompts.find((prompt) => prompt.includes('id=run-9'));
      expect(heartbeat).toBe(heartbeatText);
      // m1 is asked only in its own prompt: once before the kill, once again after the heartbeat (its row's backoff).
      expect(prompts.filter((prompt) => prompt.includes(marker(1)))).toEqual([m1, m1]);
      expect(prompts.lastIndexOf(m1)).toBeGreaterThan(prompts.indexOf(heartbeatText));
      const users = transcript(result).filter((entry) => entry.message.role === 'user');
      expect(users.filter((entry) => entry.message.content.includes(marker(1)))).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('a user-triggered run merges the orphan under the queued-message prefix', async () => {
    await withRun(sql, input('chat', 'a message typed elsewhere'), (result) => {
      expect(notes(result, 'merge').map((note) => [note.fields.turn, note.fields.merged])).toEqual([['late', 'in:d1']]);
      const merged = llmPrompts(result).find((prompt) => prompt.endsWith('a message typed elsewhere'));
      expect(merged).toBe(`${queuedPrefix}\n${m1}\n\na message typed elsewhere`);
    });
  });
});

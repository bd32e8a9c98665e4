// The orphan merge (OpenClaw run/attempt.ts mergeOrphanedTrailingUserPrompt): a user message left as the trailing
// entry of the transcript by a run that never answered it is merged into the next prompt under the queued-message
// prefix only when that run is user- or manually-triggered (a chat row), never for a heartbeat run (a 'system' row),
// and only when its text has at least 4 characters once trimmed. The orphan leaves the branch either way; a message
// not merged is answered by its own row when it comes due again.
import { describe, expect, it } from 'vitest';
import { inboundPath, queuedPrefix, transcriptPath } from '../../../src/index.ts';
import { modelSessionManagerFactory } from '../../../src/session-manager-port.ts';
import { mergesQueuedText } from '../../../src/turn.ts';
import type { Simulation } from '../../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { handPlan, llmPrompts, notes, session0, transcript, user, withRun } from '../support.ts';

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
 * m0 is answered by 5 s. At 12 s another writer (a rogue process with its own SessionManager, as a second writer
 * would be) appends a user entry that no turn answers, so it is the transcript's trailing user entry, the orphan. At
 * 24 s another writer adds a row of `kind` to the session's inbound.db, due at once, so it runs while the orphan is
 * the leaf. (A killed turn no longer leaves an orphan for another turn: its batch re-forms as the same turn.)
 */
const orphanText = 'an earlier question';
const heartbeatText = 'System (untrusted): [24000] Exec started (node=node-1 id=run-9): ls\n\nRead HEARTBEAT.md if it exists and follow it. If nothing needs attention, reply HEARTBEAT_OK.';

function input(kind: 'system' | 'chat', content: string) {
  return {
    bugs: [],
    plan: handPlan([user(1_000, 'first question')]),
    prepare: (sim: Simulation) => {
      sim.spawn('second-writer', async (ctx) => {
        await ctx.timers.sleep(12_000);
        const session = await modelSessionManagerFactory(ctx, transcriptPath(session0));
        await session.appendMessage({ role: 'user', content: orphanText }, 'ghost');
        await ctx.disk.fsync(transcriptPath(session0));
      });
      sim.at(24_000, () =>
        sim.sqlite.inspect(inboundPath(session0), "INSERT INTO messages_in(id, seq, kind, content, created_at) VALUES ('late', (SELECT MAX(seq) + 1 FROM messages_in), ?, ?, 24000)", [kind, content]),
      );
    },
  };
}

describe('the orphan and the next run', () => {
  it('a heartbeat run does not merge the orphan: the orphan leaves the branch and its text is in no prompt', async () => {
    await withRun(sql, input('system', heartbeatText), (result) => {
      const repair = notes(result, 'orphan-repair').find((note) => note.fields.turn === 'late');
      expect(repair?.fields.persisted).toBe(true);
      expect(notes(result, 'merge')).toEqual([]);
      expect(notes(result, 'history-repair')).toEqual([]);
      const prompts = llmPrompts(result);
      expect(prompts.find((prompt) => prompt.includes('id=run-9'))).toBe(heartbeatText);
      expect(prompts.some((prompt) => prompt.includes(orphanText))).toBe(false);
      expect(transcript(result).some((entry) => entry.message.content === orphanText)).toBe(false);
    });
  });

  it('a user-triggered run merges the orphan under the queued-message prefix', async () => {
    await withRun(sql, input('chat', 'a message typed elsewhere'), (result) => {
      expect(notes(result, 'history-repair').map((note) => [note.fields.turn, note.fields.folded])).toEqual([['late', 'ghost']]);
      const merged = llmPrompts(result).find((prompt) => prompt.endsWith('a message typed elsewhere'));
      expect(merged).toBe(`${queuedPrefix}\n${orphanText}\n\na message typed elsewhere`);
    });
  });
});

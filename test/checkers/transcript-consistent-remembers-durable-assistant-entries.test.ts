// transcript-consistent, second half: an assistant entry that was once durable (synced) on a session's active
// branch must never disappear from it. Here the first turn sends its reply through a tool and closes with a
// scratchpad-only result, so its final assistant entry carries no visible reply; after the turn completed and its
// JSONL was synced, a rogue process rewrites the file without that entry (and fsyncs it) before the next turn. The
// runner reloads the file for the next turn, so its memory and the file agree again (the online half stays
// quiet), and no visible reply maps to the lost entry (one-assistant-row-per-visible-reply stays quiet): only the
// monitor's memory of what was durable can tell.
import { describe, expect, it } from 'vitest';
import { parseTranscript, transcriptPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, reply, session0, transcript, visible, withRun } from '../model/support.ts';
import { betweenTurnsMs, firstTurn, type JsonlLine, messagesOf, type Prepare, rewriteFileAt, twoTurns, withoutLines } from './support.ts';

const sql = await loadSqlJs();

const closing = '<message to="scratchpad">the user was told</message>';
const script = (request: { turnId: string }) =>
  request.turnId === firstTurn ? { toolCalls: [{ name: 'send_message' as const, text: 'here you go' }], result: closing } : { toolCalls: [], result: reply('second answer') };

const run = (prepare?: Prepare) => ({ bugs: [], plan: twoTurns, script, ...(prepare === undefined ? {} : { prepare }) });

const isFinalOfFirstTurn = (line: JsonlLine): boolean => line.turnId === firstTurn && line.message?.role === 'assistant' && line.message.toolCalls === undefined;

describe('transcript-consistent: a once-durable assistant entry disappears', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, run(), (result) => {
      expect(visible(result).map((message) => message.text)).toEqual(['here you go', 'second answer']);
      expect(transcript(result).filter((entry) => isFinalOfFirstTurn(entry)).map((entry) => entry.message.content)).toEqual([closing]);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires, naming the entry, when the synced JSONL is rewritten without it before the next turn', async () => {
    const path = transcriptPath(session0);
    let lost: string | undefined;
    let syncedBefore = '';
    const sabotage: Prepare = (sim, model) => {
      sim.at(betweenTurnsMs - 1, () => {
        syncedBefore = sim.disk.peekSynced(path) ?? '';
      });
      rewriteFileAt(betweenTurnsMs, path, (text) => {
        lost = parseTranscript(text).entries.find((entry) => isFinalOfFirstTurn(entry))?.id;
        return withoutLines(text, isFinalOfFirstTurn);
      })(sim, model);
    };
    await withRun(sql, run(sabotage), (result) => {
      expect(lost).toBeDefined();
      // It was durable before the rewrite, and the rewrite is durable too.
      expect(parseTranscript(syncedBefore).entries.map((entry) => entry.id)).toContain(lost);
      expect(parseTranscript(result.sim.disk.peekSynced(path) ?? '').entries.map((entry) => entry.id)).not.toContain(lost);
      // The model went on: the second turn was answered on the rewritten file.
      expect(visible(result).map((message) => message.text)).toEqual(['here you go', 'second answer']);
      expect(invariants(result)).toEqual(['transcript-consistent']);
      expect(messagesOf(result, 'transcript-consistent')).toEqual([`${session0}: 1 assistant entries that were durable are gone from the active branch (${String(lost)})`]);
    });
  });
});

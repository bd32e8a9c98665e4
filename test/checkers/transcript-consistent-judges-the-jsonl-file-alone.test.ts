// transcript-consistent, decided from the JSONL file alone: no message entry off the active branch (a dead end is a
// durable second copy), and no assistant entry that was once durable on the active branch disappears (entries are
// known by what they carry, not by their ids). Here the first turn sends its reply through a tool and closes with a
// scratchpad-only text, so its final assistant entry carries no visible reply and one-assistant-row-per-visible-reply
// has nothing to say about it.
import { describe, expect, it } from 'vitest';
import { transcriptPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { forMessage, invariants, reply, session0, withRun } from '../model/support.ts';
import { afterAllTurnsMs, betweenTurnsMs, durableEntries, isEntry, messagesOf, type Prepare, rewriteFileAt, shown, twoTurns, withDeadEndCopy, withoutLines } from './support.ts';

const sql = await loadSqlJs();
const invariant = 'transcript-consistent';
const path = transcriptPath(session0);

const closing = '<message to="scratchpad">the user was told</message>';
const script = forMessage({
  0: { toolCalls: [{ name: 'send_message', text: 'here you go' }], result: closing },
  1: { toolCalls: [], result: reply('second answer') },
});
const run = (prepare?: Prepare) => ({ bugs: [], plan: twoTurns, script, ...(prepare === undefined ? {} : { prepare }) });
const isFinalOfFirstTurn = isEntry('assistant', 'the user was told');

describe('transcript-consistent', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, run(), (result) => {
      expect(shown(result)).toEqual(['here you go', 'second answer']);
      expect(durableEntries(result, path).filter(isFinalOfFirstTurn)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires when a durable assistant entry is dropped from the JSONL before the next turn', async () => {
    let syncedBefore = '';
    const sabotage: Prepare = (sim, model, world) => {
      sim.at(betweenTurnsMs - 1, () => {
        syncedBefore = sim.disk.peekSynced(path) ?? '';
      });
      rewriteFileAt(betweenTurnsMs, path, (text) => withoutLines(text, isFinalOfFirstTurn))(sim, model, world);
    };
    await withRun(sql, run(sabotage), (result) => {
      // It was durable before the rewrite; the rewrite is durable too; the model went on on the rewritten file.
      expect(syncedBefore).toContain('the user was told');
      expect(durableEntries(result, path).filter(isFinalOfFirstTurn)).toEqual([]);
      expect(shown(result)).toEqual(['here you go', 'second answer']);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: 1 assistant entries that were durable are gone from the active branch (text:${closing.slice(0, 45)})`]);
    });
  });

  it('fires for a dead-end copy of an assistant entry (a sibling off the active branch)', async () => {
    await withRun(sql, run(rewriteFileAt(afterAllTurnsMs, path, (text) => withDeadEndCopy(text, isFinalOfFirstTurn, 'dead0001'))), (result) => {
      expect(durableEntries(result, path).map((entry) => entry.id)).toContain('dead0001');
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}.jsonl: 1 entries are off the active branch (assistant dead0001 "${closing.slice(0, 40)}")`]);
    });
  });
});

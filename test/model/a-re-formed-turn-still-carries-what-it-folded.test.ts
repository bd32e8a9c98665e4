// A turn folds an orphaned user entry of the JSONL into its prompt (OpenClaw's orphan repair: the orphan leaves the
// branch and its text goes under the queued prefix of the turn's prompt entry). When a newer message then aborts the
// turn (interrupt mode) and the turn re-forms with it, the new prompt must still carry the folded text: the earlier
// answer saw it, and only a prompt carrying everything the earlier one carried supersedes it. Without that, the
// earlier answer stayed owed and was lost (`fuzz --scenario chaos --runs 2000 --seed 3` stopped at run 879 on the fixed
// model with no-lost-reply: a power loss had orphaned a command's start entry). Here the orphan is written into the
// file directly, as that power loss left it: a user entry on the leaf whose message no turn claimed.
import { describe, expect, it } from 'vitest';
import { transcriptPath } from '../../src/index.ts';
import { isoAt } from '../../src/pi-format.ts';
import type { BuiltModel } from '../../src/index.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { World } from '../../sim/world/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { delayRequestsFor, handPlan, marker, notes, session0, user, withRun } from './support.ts';

const sql = await loadSqlJs();

const orphanText = 'System (untrusted): [9] Exec started (node=node-1 id=run-99): make build';
const plan = { ...handPlan([user(1_000, 'hello there'), user(20_000, 'second question'), user(21_000, 'and a third')]), queueModes: ['interrupt' as const] };

/** At 10 s, an orphaned user entry on the leaf of the session's JSONL (of a message no turn claimed). */
function orphanAt10s(sim: Simulation, model: BuiltModel, world: World): void {
  // The first prompt carrying [m1] waits 3 s for its answer, so [m2] arrives while it is awaited and aborts the turn.
  delayRequestsFor(1, 3_000, true)(sim, model, world);
  sim.at(10_000, () => {
    const path = transcriptPath(session0);
    const lines = (sim.disk.peek(path) ?? '').split('\n').filter((line) => line.length > 0);
    const leaf = JSON.parse(lines.at(-1) ?? '{}') as { id?: string };
    expect(leaf.id).toBeDefined();
    const gateway = sim.processes.current('gateway');
    expect(gateway).toBeDefined();
    if (gateway === undefined) return;
    const entry = { type: 'message', id: 'feedf00d', parentId: leaf.id, timestamp: isoAt(10_000), message: { role: 'user', content: orphanText }, turnId: 'in:orphan' };
    sim.disk.appendNow(gateway, path, `${JSON.stringify(entry)}\n`);
  });
}

describe('a turn re-formed after an interrupt', () => {
  it('asks a prompt that still carries what its first attempt folded in', async () => {
    await withRun(sql, { bugs: [], plan, prepare: orphanAt10s }, (result) => {
      // The shape: in:d1 folds the orphan in, is aborted by [m2], and re-forms with it.
      expect(notes(result, 'history-repair').map((note) => [note.fields.turn, note.fields.folded])).toEqual([['in:d1', 'in:orphan']]);
      expect(notes(result, 'turn-aborted').map((note) => note.fields.turn)).toEqual(['in:d1']);
      expect(notes(result, 'turn-start').filter((note) => note.fields.turn === 'in:d1').map((note) => note.fields.members)).toEqual([1, 2]);
      // Both prompts carry the folded text; the second carries [m2] too.
      const prompts = result.ledger.requests.filter((request) => request.prompt.includes(marker(1))).map((request) => request.prompt);
      expect(prompts).toHaveLength(2);
      expect(prompts.every((prompt) => prompt.includes(orphanText))).toBe(true);
      expect(prompts[1]).toContain(marker(2));
      expect(result.violations).toEqual([]);
    });
  });
});

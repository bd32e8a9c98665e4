// A turn folds an orphaned message of another turn into its prompt (OpenClaw's orphan repair: the orphan leaves the
// branch and its text goes under the queued prefix of the turn's prompt entry). When a newer message then aborts the
// turn (interrupt mode) and the turn re-forms with it, the new prompt must still carry the folded text: the earlier
// answer saw it, and only a prompt carrying everything the earlier one carried supersedes it. Without that, the
// earlier answer stayed owed and was lost (`fuzz --scenario chaos --runs 2000 --seed 3` stopped at run 879 on the fixed
// model with no-lost-reply). The shape needs a power loss that orphans a command's start entry, so the campaign's
// shrunk plan is replayed, and the test first checks that the plan still has the shape.
import { describe, expect, it } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { decodeSeedString } from '../../sim/cli/seed-string.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';

const sql = await loadSqlJs();

const seed = 'gs2.chaos.none.465729115.0-28-4-7-7-10-4-4-4-11-11-11-8-7-9-9-10-9-10-11-4-10-10-10-15-17-12-18.0_1_0-4f551d.17db2110';
const foldedStart = 'Exec started (node=node-1 id=run-3)';

describe('a turn re-formed after an interrupt', () => {
  it('asks a prompt that still carries what its first attempt folded in, and loses no answer', async () => {
    const decoded = decodeSeedString(seed);
    const scenario = findScenario(decoded.scenario);
    expect(scenario).toBeDefined();
    if (scenario === undefined) return;
    const result = await runSpec(generateSpec(scenario, decoded.bugs, decoded.seed, decoded.path), { sql });
    try {
      const notes = result.sim.trace.events.filter((event) => event.fields.turn === 'in:d7');
      // The shape: in:d7 folds the start in, is aborted by a newer message, and re-forms with one more member.
      expect(notes.filter((event) => event.kind === 'model.history-repair').map((event) => event.fields.folded)).toEqual(['sys:2:1']);
      expect(notes.filter((event) => event.kind === 'model.turn-aborted')).toHaveLength(1);
      expect(notes.filter((event) => event.kind === 'model.turn-start').map((event) => event.fields.members)).toEqual([2, 3]);
      // Both prompts the LLM was asked for in:d7 carry the folded start; the second supersedes the first.
      const prompts = result.ledger.requests.filter((request) => request.prompt.includes('[m7]')).map((request) => request.prompt);
      expect(prompts).toHaveLength(2);
      expect(prompts.every((prompt) => prompt.includes(foldedStart))).toBe(true);
      expect(prompts[1]).toContain('[m9]');
      expect(result.violations).toEqual([]);
    } finally {
      result.sim.dispose();
    }
  });
});

// A run that compacts and whose prompt is submitted with OpenClaw 2026.4.24's envelope: the enveloped user entry is
// appended, a compaction entry keeping from it follows, and when the model call returns the envelope rewrite branches
// from the entry's parent and appends the plain entry and every later entry again. The release remaps the copied
// compaction's firstKeptEntryId to the new copy of its entry (transcript-rewrite.ts appendBranchEntry, remapEntryId);
// the model copied it unchanged, so the compaction kept from the enveloped entry, off the branch, past the plain
// user entry (`transcript-consistent`, found by chaos once it drew compaction and the envelope together, issue 44).
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.1906580375.0o0F1021L21C32W131C251C22113ii.0_1_0-0012ab.d880f633 (fuzz --scenario chaos
// --runs 500 --seed 3, run 93, shrunk); its plan is frozen.
const plan = 'compaction-rewritten-with-the-envelope';

describe('a compaction entry rewritten with the envelope', () => {
  it('keeps from the plain entry that replaced the enveloped one', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const events = result.sim.trace.events;
      // The shape: a compaction that kept from the turn's own (enveloped) user entry, then the rewrite of that entry.
      const compaction = events.find((event) => event.kind === 'model.compaction');
      expect(compaction).toBeDefined();
      const rewrite = events.find((event) => event.kind === 'model.prompt-rewritten' && event.timeMs >= (compaction?.timeMs ?? 0));
      expect(rewrite).toBeDefined();
      expect(result.violations).toEqual([]);
    });
  });
});

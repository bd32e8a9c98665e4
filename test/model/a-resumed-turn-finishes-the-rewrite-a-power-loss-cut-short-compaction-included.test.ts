// OpenClaw 2026.4.24 stores a prompt as submitted, with its metadata envelope, and when the model call returns it
// rewrites the entry: it branches from the entry's parent and appends the plain prompt, then every later entry of the
// branch again, a compaction keeping from the copy of its first kept entry (transcript-rewrite.ts). A power loss in the
// middle of those appends keeps only the copies already synced. The fixed runner resumes the turn from its durable
// final row; its resumed attempt appended only the entries it finds by turn and role (its closing text), never the
// compaction the rewrite had still to copy, so the enveloped entry, the compaction and the old closing text stayed off
// the branch as a dead end that no copy accounts for, and the message was in two user entries (`no-double-ingestion`,
// `transcript-consistent`: chaos seed 1 run 8524 on 55f3173, an open finding of the clean-run campaigns). The resumed
// attempt now finishes the rewrite first: the copies still missing, in order, then its own entries.
import { describe, expect, it } from 'vitest';
import { activeBranchOf } from '../../src/index.ts';
import { isEnveloped } from '../../src/envelope.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { notes, transcript, withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.83827226.0p3D12C335D75678ccbbcD0018G.0_1_0-a8dd6b.aaa15493 (fuzz --scenario chaos --seconds N
// --seed 1, run 8524, shrunk: one session, two messages, a scheduled task, compaction past 150 tokens, the envelope
// submit-then-rewrite, two power losses right after transcript appends); its plan is frozen.
const plan = 'power-losses-compaction-envelope-message-in-two-user-entries';

describe('a turn resumed after a power loss cut short the rewrite of its enveloped prompt', () => {
  it('appends the compaction the rewrite had still to copy before its closing text, so its message is in one user entry of the branch', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      // The shape: in:d1 compacted, the power went while its rewrite was appending the copies, and the turn resumed.
      const compaction = notes(result, 'compaction').find((note) => note.fields.turn === 'in:d1');
      expect(compaction).toBeDefined();
      const powerLoss = result.sim.trace.events.find((event) => event.kind === 'fault' && event.fields.kind === 'power-loss' && event.timeMs > (compaction?.timeMs ?? 0));
      expect(powerLoss).toBeDefined();
      expect(notes(result, 'answer').filter((note) => note.fields.turn === 'in:d1' && note.fields.resumed === true && note.timeMs > (powerLoss?.timeMs ?? 0))).toHaveLength(1);
      // The durable file: on the branch, the plain prompt, the copy of the compaction keeping from it, the closing text.
      const entries = transcript(result);
      const branch = activeBranchOf(entries);
      const own = branch.findIndex((entry) => entry.turnId === 'in:d1' && entry.message.role === 'user');
      const plain = branch[own];
      expect(plain !== undefined && !isEnveloped(plain.message.content)).toBe(true);
      expect(branch[own + 1]?.compaction?.firstKeptEntryId).toBe(plain?.id);
      expect(branch[own + 2]?.message.role).toBe('assistant');
      expect(branch[own + 2]?.turnId).toBe('in:d1');
      // Off the branch only the superseded submission: the enveloped entry, its compaction and its closing text.
      const onBranch = new Set(branch.map((entry) => entry.id));
      const off = entries.filter((entry) => !onBranch.has(entry.id));
      expect(off.map((entry) => (entry.compaction === undefined ? entry.message.role : 'compaction'))).toEqual(['user', 'compaction', 'assistant']);
      expect(isEnveloped(off[0]?.message.content ?? '')).toBe(true);
      expect(notes(result, 'prompt-rewrite-finished').map((note) => note.fields.copied)).toEqual([2]);
      expect(result.violations).toEqual([]);
    });
  });
});

// 2026.4.24 rewrites an enveloped prompt entry once the run is over: it branches from the entry's parent and appends
// the plain prompt and a copy of every later entry of the run, one pi append each, so a kill can cut the copies short.
// The fixed model finishes such a rewrite before appending anything else. It did so only in the turn that owned the
// prompt, resuming from its durable final row; here the host's sweep killed the runner while in:d3's rewrite was
// waiting on a stalled fsync (its closing text not yet copied), the claim reset gave in:d3 a backoff, and in:d2 ran
// first in the session: its prompt went under the cut copies, and in:d3's enveloped entry, calls and closing text
// stayed off the active branch with no copy accounting for the closing text (transcript-consistent; chaos with
// send-heavy runs, seed 3 run 3,832). The next turn to run in the session now finishes the last prompt's rewrite first.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

describe("a cut-short rewrite of another turn's prompt", () => {
  it('is finished by the next turn to run, before that turn appends its own prompt', async () => {
    await withFrozenPlan(sql, 'entries-off-the-branch-after-streamed-retries-with-the-envelope', (result) => {
      expect(result.violations).toEqual([]);
      const events = result.sim.trace.events;
      // The shape: the sweep killed the runner after in:d3's run and before its rewrite copied its closing text.
      const kill = events.find((event) => event.kind === 'model.sweep-kill' && event.fields.message === 'in:d3');
      expect(kill).toBeDefined();
      const finished = events.filter((event) => event.kind === 'model.prompt-rewrite-finished');
      expect(finished.map((event) => [event.fields.turn, event.fields.copied])).toEqual([['in:d3', 1]]);
      const at = finished[0]?.index ?? -1;
      expect(at).toBeGreaterThan(kill?.index ?? Infinity);
      // It was in:d2's turn, the first to run after the kill, that finished it, before its prompt was persisted.
      const startsAfterKill = events.filter((event) => event.kind === 'model.turn-start' && event.index > (kill?.index ?? Infinity));
      expect(startsAfterKill[0]?.fields.turn).toBe('in:d2');
      const prompt = events.find((event) => event.kind === 'model.prompt-persisted' && event.index > (kill?.index ?? Infinity));
      expect(prompt?.fields.turn).toBe('in:d2');
      expect(at).toBeGreaterThan(startsAfterKill[0]?.index ?? Infinity);
      expect(at).toBeLessThan(prompt?.index ?? -1);
    });
  });
});

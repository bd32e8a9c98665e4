// interrupt mode: a newer message aborts the active run only when the re-formed run would take it. A message that
// arrived behind a pending /clear waits for the /clear's own batch (a command is a batch of its own), which waits for
// the active run; aborting for it re-formed the run without it, forever (found in chaos: the run was aborted 256
// times and nothing after it was ever answered).
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { delayRequestsFor, handPlan, notes, user, withRun } from './support.ts';

const sql = await loadSqlJs();

/** The LLM takes 5 s longer to answer the first message, so the /clear and the next message arrive during its run. */
const slowFirst = delayRequestsFor(0, 5_000);

const plan = { ...handPlan([user(1_000, 'hello there'), { kind: 'clear', atMs: 3_000, session: 0 }, user(3_500, 'second question')]), queueModes: ['interrupt' as const] };

describe('interrupt mode with a command pending', () => {
  it('does not abort the run for a message behind a pending /clear; every message is answered', async () => {
    await withRun(sql, { bugs: [], plan, prepare: slowFirst }, (result) => {
      expect(notes(result, 'turn-aborted')).toEqual([]);
      expect(notes(result, 'turn-completed')).toHaveLength(3);
      expect(result.violations).toEqual([]);
    });
  });
});

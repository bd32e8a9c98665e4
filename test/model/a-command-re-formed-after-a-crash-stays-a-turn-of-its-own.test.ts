// A /clear whose run was cut off by a power loss comes back as the same turn when the runner restarts, and it stays a
// turn of its own: the message queued behind it waits for its own batch. Found in chaos on the fixed model (a power
// loss as the /clear's run started): the re-formed /clear took the next message into its batch, the rotation's reply
// answered it, and the message never got an answer of its own (every-inbound-answered).
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { handPlan, notes, user, withRun } from './support.ts';

const sql = await loadSqlJs();

/** m0, a /clear and m2 arrive together; the machine loses power as the /clear's run begins. */
const plan = handPlan(
  [user(500, 'can you check calendar?'), { kind: 'clear', atMs: 500, session: 0 }, user(500, 'can you check calendar?')],
  [{ kind: 'power-loss-at-phase', phase: 'prompt-persisted', nth: 3, delayMs: 0, restartAfterMs: 1_000 }],
);

describe('a /clear re-formed after a crash', () => {
  it('takes no message behind it; the next message is answered in a turn of its own', async () => {
    await withRun(sql, { bugs: [], plan }, (result) => {
      expect(result.sim.trace.events.filter((event) => event.kind === 'fault' && event.fields.kind === 'power-loss')).toHaveLength(1);
      const completed = notes(result, 'turn-completed').map((note) => note.fields.members);
      expect(completed).toEqual(['in:d0', 'in:d1', 'in:d2']);
      expect(result.violations).toEqual([]);
    });
  });
});

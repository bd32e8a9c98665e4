// Failures of a second writer do not change what the first writer did. OpenClaw logs a failed delivery mirror and
// carries on ("channel send already succeeded"): the delivered row is still marked, whatever the mirror's error (the
// session write lock's timeout or any other), so it is not sent again. Hermes' failed-early append runs in the error
// path of a run: if it fails as well, the run's own error is what ends the attempt (the runner retries a transient
// model error; it must not see the append's error instead).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayTranscriptAppend } from '../../src/gateway-append.ts';
import { SqliteBusyError } from '../../src/index.ts';
import { SessionDb } from '../../src/session-db.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { twoTurns, twoTurnScript } from '../checkers/support.ts';
import { failFirstRequestFor, notes, withRun } from './support.ts';

const sql = await loadSqlJs();

afterEach(() => vi.restoreAllMocks());

function withWriters(deliveryMirror: 'off' | 'on', gatewayAppend: 'off' | 'skip-db'): Plan {
  return { ...twoTurns, secondWriters: { deliveryMirror, gatewayAppend } };
}

describe('a second writer that fails', () => {
  it('a mirror that fails with an error other than the lock timeout is logged; the delivery is marked and not sent again', async () => {
    const sessionsOf = SessionDb.prototype.sessionsOf;
    // The mirror reads the key's sessions; the runner too (its current session, at every turn): only a read after the
    // first delivery attempt fails.
    let attempts = 0;
    let thrown = false;
    vi.spyOn(SessionDb.prototype, 'sessionsOf').mockImplementation(async function (this: SessionDb, key) {
      if (!thrown && attempts > 0) {
        thrown = true;
        throw new Error('EIO: the sessions store could not be read');
      }
      return sessionsOf.call(this, key);
    });
    const countAttempts = (sim: Simulation): void => sim.trace.onEvent((event) => (attempts += event.kind === 'model.deliver-attempt' ? 1 : 0));
    await withRun(sql, { bugs: [], plan: withWriters('on', 'off'), script: twoTurnScript, prepare: countAttempts }, (result) => {
      expect(notes(result, 'mirror-skipped').map((note) => note.fields.reason)).toEqual(['EIO: the sessions store could not be read']);
      const keys = notes(result, 'deliver-attempt').map((note) => note.fields.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(notes(result, 'delivered')).toHaveLength(keys.length);
      expect(result.violations).toEqual([]);
    });
  });

  it("a failed-early append that fails busy leaves the run's own error to end the attempt", async () => {
    vi.spyOn(GatewayTranscriptAppend.prototype, 'afterFailedRun').mockRejectedValue(new SqliteBusyError('/data/state.db'));
    const prepare = failFirstRequestFor(0);
    await withRun(sql, { bugs: [], plan: withWriters('off', 'skip-db'), script: twoTurnScript, prepare }, (result) => {
      expect(notes(result, 'persist-error').map((note) => note.fields.what)).toEqual(['gateway-append']);
      expect(notes(result, 'turn-transient').map((note) => note.fields.error)).toEqual(['503 overloaded']);
      expect(result.violations).toEqual([]);
    });
  });
});

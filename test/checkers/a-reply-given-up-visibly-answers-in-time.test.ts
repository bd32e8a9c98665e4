// answered-in-time (sim/checkers/liveness.ts) reads when a subject was first concluded for the user: an answer to it
// shown, or a reply of an answer carrying it given up visibly (refused for good, the give-up recorded in state.db's
// delivery_obligations), at the record. It read the showings only: a fixed-model chaos run drawing the platform (seed
// 21, run 1873, frozen as `command-answer-given-up-then-answered-late`) had command run-2's answer given up in a chat
// not found at 29 min, and the command was judged first answered at 2 h 12 min, past its deadline. Without the
// records the same run is judged late again.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { answerTimes } from '../../sim/checkers/liveness.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { livenessOf, observationsWithGiveUps } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';


describe('a reply given up visibly', () => {
  it('concludes its subject in time, at the record of the give-up', async () => {
    await withFrozenPlan(sql, 'command-answer-given-up-then-answered-late', (result) => {
      expect(result.violations).toEqual([]);
      const o = observationsWithGiveUps(result, session, true);
      const run2 = answerTimes(o, attributeAll(o)).find((time) => 'runId' in time.subject && time.subject.runId === 'run-2');
      // Concluded when the give-up was recorded, well before the 30-minute bound, not at a later showing.
      expect(run2?.answeredAtMs).toBeDefined();
      expect((run2?.answeredAtMs ?? Infinity) - (run2?.arrivedAtMs ?? 0)).toBeLessThan(30 * 60_000);
      expect(result.ledger.sendRefusals.some((refusal) => refusal.permanent && refusal.atMs <= (run2?.answeredAtMs ?? 0))).toBe(true);
      expect(livenessOf(o)).toEqual([]);
    });
  });

  it('concludes its subject at the record even when a later showing of the same text was credited to it', async () => {
    // Seed 23 run 2842: m0's stock replies were given up at 3 s (chat not found) and shown again by a task an hour
    // later, and the attribution credited those showings to m0's slots.
    await withFrozenPlan(sql, 'stock-replies-given-up-then-shown-again-by-a-task', (result) => {
      expect(result.violations).toEqual([]);
      const o = observationsWithGiveUps(result, session, true);
      const m0 = answerTimes(o, attributeAll(o)).find((time) => 'marker' in time.subject && time.subject.marker === '[m0]');
      expect((m0?.answeredAtMs ?? Infinity) - (m0?.arrivedAtMs ?? 0)).toBeLessThan(60_000);
      expect(livenessOf(observationsWithGiveUps(result, session, false)).map((violation) => violation.message)).toContainEqual(expect.stringMatching(/message \[m0\] arrived at \d+ ms, .*after its deadline/));
    });
  });

  it('concludes nothing without its record: the command is judged answered late', async () => {
    await withFrozenPlan(sql, 'command-answer-given-up-then-answered-late', (result) => {
      expect(livenessOf(observationsWithGiveUps(result, session, false)).map((violation) => violation.message)).toContainEqual(expect.stringMatching(/command run-2 arrived at \d+ ms, .*after its deadline/));
    });
  });
});

// An error reply gives up the answers of the turn it ended: every subject that turn's last failed request carried,
// even one an earlier turn's error reply was already assigned to. Here a command's finish (run-10) was in a turn that
// gave up (its error reply), and is carried again, with run-13's start and finish, by the next system turn: that
// turn's answer is partly shown (its first tool message), a write fails, every retry fails, and it gives up with one
// error reply. The answer is given up; it is not owed (chaos campaign seed 2, run 1306, after the partial streams: a
// false no-lost-reply). The shape needs the campaign's plan, so its shrunk seed string is replayed and checked first.
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../src/index.ts';
import { findScenario } from '../../scenarios/index.ts';
import { decodeSeedString } from '../../sim/cli/seed-string.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';

const sql = await loadSqlJs();

const seed = 'gs2.chaos.none.1400458382.0-12-9-7-6-6-7-6-6-5-10-5-6-6-5-8-5-5-5-6-6-15-12-10-11-10-10-12-24-17-17.0_1_0-4f551d.3396a305';

describe("a later turn's error reply", () => {
  it('gives up its partly shown answer although one of its subjects had an earlier error reply', async () => {
    const decoded = decodeSeedString(seed);
    const scenario = findScenario(decoded.scenario);
    expect(scenario).toBeDefined();
    if (scenario === undefined) return;
    const result = await runSpec(generateSpec(scenario, decoded.bugs, decoded.seed, decoded.path), { sql });
    try {
      const session = 'agent:main:chat:0';
      // The answer whose prompt carries run-10's and run-13's finishes.
      const answer = result.ledger.answers.find((fact) => fact.sessionKey === session && fact.prompt.includes('id=run-10,') && fact.prompt.includes('id=run-13,'));
      expect(answer).toBeDefined();
      const shown = result.ledger.shown.filter((fact) => fact.sessionKey === session);
      // Partly shown: its first tool message went out, its other tool messages did not.
      const texts = answer?.toolCalls.map((call) => call.text) ?? [];
      expect(texts.length).toBeGreaterThan(1);
      expect(shown.some((fact) => fact.text === texts[0] && fact.atMs >= (answer?.returnedAtMs ?? 0))).toBe(true);
      expect(texts.slice(1).some((text) => !shown.some((fact) => fact.text === text))).toBe(true);
      // An error reply before the answer came back (the earlier turn carrying run-10) and one after it.
      const errors = shown.filter((fact) => fact.text === errorReply).map((fact) => fact.atMs);
      expect(errors.some((atMs) => atMs < (answer?.returnedAtMs ?? 0))).toBe(true);
      expect(errors.some((atMs) => atMs > (answer?.returnedAtMs ?? 0))).toBe(true);
      expect(result.violations).toEqual([]);
    } finally {
      result.sim.dispose();
    }
  });
});
